import { errors } from '../../errors/catalog.js';
import { DAY_MS, istDayLabel, istDayNumberStart } from '../../lib/ist.js';
import type { EventFilter, UsageReportStore } from '../../domain/stores/usage-report-store.js';
import { shown } from '../query-params.js';

export const WINDOW_DAYS = 30;
export const MAX_SPAN_DAYS = 366;
const EVENTS_DEFAULT = 50;
const EVENTS_MAX = 200;
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

/** An IST calendar date `YYYY-MM-DD` as an IST day number; a 400 unless it is a real date. */
export function parseDay(name: string, v: string): number {
  const ms = DATE_RE.test(v) ? Date.parse(`${v}T00:00:00Z`) : NaN;
  // Date.parse rolls 2025-02-30 over to March; the round trip refuses it.
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== v) {
    throw errors.badRequest(`'${name}' must be a calendar date YYYY-MM-DD (IST), got ${shown(v)}`);
  }
  return ms / DAY_MS;
}

/** from..to as IST day numbers: `to` defaults to today, `from` to 29 days before `to`; at most 366 days. */
export function dayRange(q: Map<string, string>, today: number): { from: number; to: number } {
  const to = q.has('to') ? parseDay('to', q.get('to')!) : today;
  const from = q.has('from') ? parseDay('from', q.get('from')!) : to - WINDOW_DAYS + 1;
  if (from > to) throw errors.badRequest(`'from' (${istDayLabel(from)}) is after 'to' (${istDayLabel(to)})`);
  if (to - from + 1 > MAX_SPAN_DAYS) throw errors.badRequest(`The range spans ${to - from + 1} days; at most ${MAX_SPAN_DAYS} are allowed`);
  return { from, to };
}

export function parseLimit(v: string | undefined): number {
  if (v === undefined) return EVENTS_DEFAULT;
  const n = /^\d{1,4}$/.test(v) ? Number(v) : NaN;
  if (!(n >= 1 && n <= EVENTS_MAX)) throw errors.badRequest(`'limit' must be an integer from 1 to ${EVENTS_MAX}, got ${shown(v)}`);
  return n;
}

/** Cursors are opaque to clients: base64url of the last row id, checked to be one this endpoint could have issued. */
export const encodeCursor = (id: number) => Buffer.from(String(id)).toString('base64url');

export function decodeCursor(v: string): number {
  const text = /^[A-Za-z0-9_-]{1,24}$/.test(v) ? Buffer.from(v, 'base64url').toString('latin1') : '';
  if (!/^[1-9]\d{0,14}$/.test(text) || encodeCursor(Number(text)) !== v) {
    throw errors.badRequest('\'cursor\' is not a cursor this endpoint issued; pass next_cursor from the previous page');
  }
  return Number(text);
}

function parseStatus(v: string): EventFilter['status'] {
  if (v === 'ok' || v === 'error') return v;
  if (/^[1-5]\d\d$/.test(v)) return Number(v);
  throw errors.badRequest(`'status' must be ok, error or an HTTP status such as 429, got ${shown(v)}`);
}

function filterText(name: string, v: string | undefined): string | undefined {
  if (v !== undefined && (v.length === 0 || v.length > 200)) throw errors.badRequest(`'${name}' must be 1 to 200 characters`);
  return v;
}

/** The events feed's filters: model, key_id, status. */
export function eventFilter(q: Map<string, string>): EventFilter {
  return {
    model: filterText('model', q.get('model')),
    keyId: filterText('key_id', q.get('key_id')),
    requestId: filterText('request_id', q.get('request_id')),
    status: q.has('status') ? parseStatus(q.get('status')!) : undefined,
  };
}

/**
 * The events of IST days from..to as a filter range: their times, and the ids they can have
 * (from the rollup, brought up to date first; unbounded above when the range reaches today,
 * whose newest rows may not be folded yet).
 */
export async function eventRange(reports: UsageReportStore, orgId: string, from: number, to: number, today: number): Promise<{ range: NonNullable<EventFilter['range']>; rows: number }> {
  const usage = await reports.usage(orgId);
  const span = usage.span(from, to);
  const open = to >= today;
  const loId = open ? Math.min(span.lo, reports.foldedUpTo() + 1) : span.lo;
  const hiId = open ? Number.MAX_SAFE_INTEGER - 1 : span.hi;
  return {
    range: { fromMs: istDayNumberStart(from), toMs: istDayNumberStart(to + 1), loId, hiId: Math.max(hiId, -1) },
    rows: span.rows,
  };
}
