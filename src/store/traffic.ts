import type { Db } from './database.js';

/** The fields of a usage row that public traffic statistics read. */
export interface TrafficRow {
  id: number;
  at: number;
  model: string;
  status: number;
  error_code: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  latency_ms: number;
  ttfb_ms: number | null;
  billable: number;
}

/**
 * Reads the usage ledger forward in id order from a point in time, in pages, so a caller can
 * rebuild statistics in slices without holding the event loop. Ids grow with time (rows are
 * written in the order attempts finish), so the first row since a time is found by bisection
 * on the primary key; no index on `at` is needed.
 */
export function trafficReader(db: Db): { firstIdSince(at: number): number; lastId(): number; page(afterId: number, upToId: number, limit: number): TrafficRow[] } {
  const atOf = db.prepare('SELECT at FROM usage WHERE id >= ? ORDER BY id LIMIT 1').pluck();
  const last = db.prepare('SELECT COALESCE(MAX(id), 0) FROM usage').pluck();
  const page = db.prepare(`SELECT id, at, model, status, error_code, prompt_tokens, completion_tokens, latency_ms, ttfb_ms, billable
    FROM usage WHERE id > ? AND id <= ? ORDER BY id LIMIT ?`);
  return {
    firstIdSince(at: number): number {
      let lo = 1;
      let hi = (last.get() as number) + 1;
      while (lo < hi) {
        const mid = Math.floor((lo + hi) / 2);
        const rowAt = atOf.get(mid) as number | undefined;
        if (rowAt === undefined || rowAt >= at) hi = mid;
        else lo = mid + 1;
      }
      return lo;
    },
    lastId: () => last.get() as number,
    page: (afterId, upToId, limit) => page.all(afterId, upToId, limit) as TrafficRow[],
  };
}
