import type { TrafficRow } from '../traffic.js';
import type { Pg } from './pg-database.js';

/** The traffic reader on PostgreSQL (the twin of store/traffic.ts trafficReader): the same bisection, each probe a round trip. */
export function postgresTrafficReader(sql: Pg): {
  firstIdSince(at: number): Promise<number>; lastId(): Promise<number>; page(afterId: number, upToId: number, limit: number): Promise<TrafficRow[]>;
} {
  const lastId = async (): Promise<number> => (await sql<{ id: number }[]>`SELECT COALESCE(MAX(id), 0) AS id FROM usage`)[0].id;
  const atOf = async (id: number): Promise<number | undefined> =>
    (await sql<{ at: number }[]>`SELECT at FROM usage WHERE id >= ${id} ORDER BY id LIMIT 1`)[0]?.at;
  return {
    // Ids grow with time (rows are written in the order attempts finish), so the first row since
    // a time is found by bisection on the primary key; no index on `at` is needed. About 30 probes
    // on a large ledger: this runs when statistics are rebuilt, not per request.
    async firstIdSince(at) {
      let lo = 1;
      let hi = (await lastId()) + 1;
      while (lo < hi) {
        const mid = Math.floor((lo + hi) / 2);
        const rowAt = await atOf(mid);
        if (rowAt === undefined || rowAt >= at) hi = mid;
        else lo = mid + 1;
      }
      return lo;
    },
    lastId,
    page: async (afterId, upToId, limit) => [...await sql<TrafficRow[]>`SELECT id, at, model, status, error_code, prompt_tokens, completion_tokens,
      latency_ms, ttfb_ms, billable FROM usage WHERE id > ${afterId} AND id <= ${upToId} ORDER BY id LIMIT ${limit}`],
  };
}
