import type { Change } from '../change-log.js';
import type { Pg } from './pg-database.js';

/**
 * The change feed on PostgreSQL (the twin of store/change-log.ts changeFeedReader). Reading by
 * seq never skips a row because appends (recordChangePg) commit in seq order under the feed lock.
 */
export function postgresChangeFeedReader(sql: Pg): { latestSeq(): Promise<number>; since(seq: number): Promise<Change[]> } {
  return {
    latestSeq: async () => (await sql<{ seq: number }[]>`SELECT COALESCE(MAX(seq), 0) AS seq FROM change_log`)[0].seq,
    since: async (seq) => [...await sql<Change[]>`SELECT seq, kind, ref FROM change_log WHERE seq > ${seq} ORDER BY seq LIMIT 1000`],
  };
}
