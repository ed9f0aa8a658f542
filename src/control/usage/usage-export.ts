import { route, type RouteSpec } from '../../domain/route-spec.js';
import type { ReportKey } from '../../domain/stores/usage-report-store.js';
import type { Logger } from '../../lib/logger.js';
import { csvRecord, type CsvValue } from '../../lib/csv.js';
import { IST_OFFSET_MS } from '../../lib/ist.js';
import { formatInr } from '../../lib/money.js';
import { queryParams } from '../query-params.js';
import { EXPORT_MAX_ROWS, type UsageService } from './usage-service.js';

const COLUMNS = ['time_ist', 'at', 'request_id', 'key_id', 'key_prefix', 'key_name', 'endpoint', 'model', 'provider', 'attempt', 'status',
  'error_code', 'prompt_tokens', 'completion_tokens', 'cached_tokens', 'cache_write_tokens', 'reasoning_tokens', 'units', 'cost_inr',
  'latency_ms', 'ttfb_ms', 'streamed', 'billable', 'byok', 'usage_estimated', 'usage_clamped'] as const;
const HEADER = csvRecord(COLUMNS);

const round3 = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 1000);

/** One CSV record of a raw export row (EXPORT_FIELDS order). */
function record(r: unknown[], keys: Map<string, ReportKey>): string {
  const [at, requestId, keyId, endpoint, model, provider, attempt, status, errorCode, prompt, completion, cached, cacheWrite, reasoning,
    units, cost, latency, ttfb, streamed, billable, byok, estimated, clamped] = r as [number, string, string, string, string, string | null,
    number, number, string | null, number, number, number, number, number, number, number, number, number | null, number, number, number,
    number, number];
  const key = keys.get(keyId);
  return csvRecord([
    // A spreadsheet reads "YYYY-MM-DD HH:MM:SS" as a date and time; this one is IST.
    new Date(at + IST_OFFSET_MS).toISOString().slice(0, 19).replace('T', ' '), new Date(at).toISOString(),
    requestId, keyId, key?.prefix ?? null, key?.name ?? null, endpoint, model, provider, attempt, status, errorCode,
    prompt, completion, cached, cacheWrite, reasoning, units,
    // Exactly, from integer micro-rupees (no 1e-7 notation, no float residue).
    formatInr(cost, 6), round3(latency), round3(ttfb),
    streamed === 1, billable === 1, byok === 1, estimated === 1, clamped === 1,
  ] satisfies CsvValue[]);
}

/**
 * GET /me/activity/events.csv: the events feed's rows (same filters) of a range of IST days as
 * a CSV download, newest first. Streamed a window of the org's rows at a time (usageExportReader),
 * waiting for the client when the socket is full, so neither memory nor the event loop grows
 * with the export.
 */
export function usageExportRoute(usage: UsageService, log: Logger): RouteSpec {
  return route({
    kind: 'raw', method: 'get', path: '/me/activity/events.csv', auth: 'session',
    summary: `The events of from..to (IST dates, inclusive; default the last 30 days; at most 366 and ${EXPORT_MAX_ROWS.toLocaleString('en')} rows) `
      + 'as a CSV download (RFC 4180, header row, newest first; filters model, key_id, status=ok|error|NNN)',
    handle: async (ctx, reply) => {
      const orgId = ctx.session.orgId;
      const { from, to, filter, keys } = await usage.exportPlan(orgId, queryParams(ctx.query, ['from', 'to', 'model', 'key_id', 'status']));
      const headers = {
        'content-disposition': `attachment; filename="activity-${from}-to-${to}.csv"`,
        'x-content-type-options': 'nosniff',
      };
      let before = Number.MAX_SAFE_INTEGER;
      let started = false;
      try {
        for (;;) {
          if (reply.aborted) return;
          const page = await usage.exportStep(orgId, before, filter);
          let text = started ? '' : HEADER;
          for (const r of page.rows) text += record(r, keys);
          const ok = started ? reply.streamWrite(text) : reply.streamStart(200, 'text/csv; charset=utf-8; header=present', headers, Buffer.from(text));
          started = true;
          if (page.nextBefore === null) {
            reply.streamEnd();
            return;
          }
          before = page.nextBefore;
          await (ok ? new Promise((resolve) => setImmediate(resolve)) : reply.drained());
        }
      } catch (e) {
        // Past the headers no error can be said in the body: the download ends unfinished instead.
        if (!started) throw e;
        log.error('usage export failed part-way', { err: String((e as Error)?.stack ?? e) });
        reply.streamAbort();
      }
    },
  });
}
