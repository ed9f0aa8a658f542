import type { ResponseStore, StoredResponse } from '../../domain/response-store.js';
import type { Pg } from './pg-database.js';

const DAY_MS = 86_400_000;
/** Expired rows are swept on a save at most this often (and at start), besides never being read. */
const SWEEP_EVERY_MS = 3_600_000;

/** Stored Responses API answers on PostgreSQL, kept `retentionDays` from their creation (the twin of store/stored-responses.ts). */
export function postgresResponseStore(sql: Pg, retentionDays: number, now: () => number): ResponseStore & { sweep(): Promise<number> } {
  const keepMs = retentionDays * DAY_MS;
  let swept = 0;
  const sweep = async (): Promise<number> => {
    swept = now();
    return (await sql`DELETE FROM stored_responses WHERE expires_at <= ${swept}`).count;
  };
  return {
    async save(r: StoredResponse) {
      // Each instance sweeps on its own hour; a DELETE of rows already gone is harmless.
      if (now() - swept >= SWEEP_EVERY_MS) await sweep();
      await sql`INSERT INTO stored_responses (id, org_id, created_at, expires_at, model, body_json, items_json)
        VALUES (${r.id}, ${r.orgId}, ${r.createdAt}, ${r.createdAt + keepMs}, ${r.model}, ${r.body}, ${r.items})`;
    },
    find: async (orgId, id) => (await sql<{ body: string; items: string }[]>`SELECT body_json AS body, items_json AS items
      FROM stored_responses WHERE id = ${id} AND org_id = ${orgId} AND expires_at > ${now()}`)[0] ?? null,
    remove: async (orgId, id) =>
      (await sql`DELETE FROM stored_responses WHERE id = ${id} AND org_id = ${orgId} AND expires_at > ${now()}`).count > 0,
    sweep,
  };
}
