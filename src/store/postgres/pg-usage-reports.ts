import type {
  EventFilter, EventPage, ExportStep, ReportKey, UsageEventRow, UsageReportStore,
} from '../../domain/stores/usage-report-store.js';
import { EXPORT_FIELDS } from '../../domain/stores/usage-report-store.js';
import type { Pg } from './pg-database.js';
import type { PgUsageRollup } from './pg-usage-rollup.js';

/** `?` placeholders numbered as PostgreSQL wants them ($1, $2, …), in order. */
function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

const EVENTS_FLOOR = 'SELECT id FROM usage WHERE org_id = $1 AND id < $2 ORDER BY id DESC LIMIT 1 OFFSET $3';

/** The filters as SQL and their values, in the order of the text. */
function filterSql(f: EventFilter, col: (c: string) => string): { where: string[]; args: (string | number)[] } {
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (f.model !== undefined) { where.push(`${col('model')} = ?`); args.push(f.model); }
  if (f.keyId !== undefined) { where.push(`${col('key_id')} = ?`); args.push(f.keyId); }
  if (f.requestId !== undefined) { where.push(`${col('request_id')} = ?`); args.push(f.requestId); }
  if (f.status === 'ok') where.push(`${col('status')} BETWEEN 200 AND 299`);
  else if (f.status === 'error') where.push(`${col('status')} NOT BETWEEN 200 AND 299`);
  else if (f.status !== undefined) { where.push(`${col('status')} = ?`); args.push(f.status); }
  if (f.range !== undefined) { where.push(`${col('at')} >= ? AND ${col('at')} < ?`); args.push(f.range.fromMs, f.range.toMs); }
  return { where, args };
}

/**
 * The events feed on PostgreSQL, with the same paging as usageEventsReader: a keyset on
 * usage_by_org_id, and a filtered page that looks at no more than `scanRows` of the org's rows
 * (its floor found first), so a rare filter value yields a short page with a cursor below it.
 */
export function pgUsageEventsReader(sql: Pg, scanRows = 20_000): (orgId: string, before: number, limit: number, f: EventFilter) => Promise<EventPage> {
  return async (orgId, before, limit, f) => {
    const range = f.range;
    const top = range === undefined ? before : Math.min(before, range.hiId + 1);
    const bottom = range === undefined ? 0 : range.loId;
    if (top <= bottom) return { rows: [], nextBefore: null };
    const narrowed = f.model !== undefined || f.keyId !== undefined || f.requestId !== undefined || f.status !== undefined || range !== undefined;
    const look = narrowed ? await floor(sql, orgId, top, scanRows - 1) : undefined;
    const ahead = look !== undefined && look > bottom;
    const low = ahead ? look : range === undefined ? undefined : bottom;
    const where = ['u.org_id = ?', 'u.id < ?'];
    const args: (string | number)[] = [orgId, top];
    if (low !== undefined) { where.push('u.id >= ?'); args.push(low); }
    const filters = filterSql(f, (c) => `u.${c}`);
    const text = `SELECT u.id, u.at, u.request_id, u.key_id, k.prefix AS key_prefix, u.endpoint, u.model, u.provider, u.attempt,
        u.status, u.error_code, u.prompt_tokens, u.completion_tokens, u.cost_micros, u.latency_ms, u.ttfb_ms, u.streamed, u.byok, u.billable,
        u.usage_estimated, u.units, u.usage_clamped, u.cached_tokens, u.cache_write_tokens, u.reasoning_tokens
      FROM usage u LEFT JOIN api_keys k ON k.id = u.key_id AND k.org_id = u.org_id
      WHERE ${[...where, ...filters.where].join(' AND ')} ORDER BY u.id DESC LIMIT ?`;
    const rows = [...await sql.unsafe(numbered(text), [...args, ...filters.args, limit + 1] as never[])] as unknown as UsageEventRow[];
    if (rows.length > limit) {
      rows.length = limit;
      return { rows, nextBefore: rows[limit - 1].id };
    }
    return { rows, nextBefore: ahead ? look : null };
  };
}

async function floor(sql: Pg, orgId: string, top: number, offset: number): Promise<number | undefined> {
  const [row] = await sql.unsafe(EVENTS_FLOOR, [orgId, top, offset] as never[]);
  return row?.id as number | undefined;
}

/** An export's rows on PostgreSQL, a window of `windowRows` of the org's rows at a time (as usageExportReader). */
export function pgUsageExportReader(sql: Pg, windowRows = 1_000): (orgId: string, before: number, f: EventFilter) => Promise<ExportStep> {
  return async (orgId, before, f) => {
    const range = f.range;
    const top = range === undefined ? before : Math.min(before, range.hiId + 1);
    const bottom = range === undefined ? 0 : range.loId;
    if (top <= bottom) return { rows: [], nextBefore: null };
    const look = await floor(sql, orgId, top, windowRows - 1);
    const ahead = look !== undefined && look > bottom;
    const filters = filterSql({ ...f, requestId: undefined }, (c) => c);
    const text = `SELECT ${EXPORT_FIELDS.join(', ')} FROM usage WHERE ${['org_id = ?', 'id < ?', 'id >= ?', ...filters.where].join(' AND ')} ORDER BY id DESC`;
    const rows = await sql.unsafe(numbered(text), [orgId, top, ahead ? look : bottom, ...filters.args] as never[]).values();
    return { rows: [...rows] as unknown[][], nextBefore: ahead ? look : null };
  };
}

/** The UsageReportStore on PostgreSQL: the rollup kept in the database (PgUsageRollup), and the readers above. */
export function postgresUsageReports(sql: Pg, rollup: PgUsageRollup): UsageReportStore {
  const events = pgUsageEventsReader(sql);
  const rows = pgUsageExportReader(sql);
  return {
    usage: (orgId) => rollup.read(orgId),
    foldedUpTo: () => rollup.mark(),
    keys: async (orgId) => [...await sql<ReportKey[]>`SELECT id, prefix, name, revoked_at, expires_at FROM api_keys
      WHERE org_id = ${orgId} ORDER BY created_at, id`],
    events,
    exportStep: rows,
  };
}
