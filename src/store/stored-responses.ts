import type { Db } from './database.js';
import type { ResponseStore, StoredResponse } from '../domain/response-store.js';

const DAY_MS = 86_400_000;
/** Expired rows are swept on a save at most this often (and at start), besides never being read. */
const SWEEP_EVERY_MS = 3_600_000;

/** Stored Responses API answers, kept `retentionDays` from their creation. */
export function responseStore(db: Db, retentionDays: number, now: () => number): ResponseStore & { sweep(): number } {
  const keepMs = retentionDays * DAY_MS;
  const insert = db.prepare(`INSERT INTO stored_responses (id, org_id, created_at, expires_at, model, body_json, items_json)
    VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const get = db.prepare('SELECT body_json AS body, items_json AS items FROM stored_responses WHERE id = ? AND org_id = ? AND expires_at > ?');
  const del = db.prepare('DELETE FROM stored_responses WHERE id = ? AND org_id = ? AND expires_at > ?');
  const expired = db.prepare('DELETE FROM stored_responses WHERE expires_at <= ?');
  let swept = 0;
  const sweep = (): number => {
    swept = now();
    return expired.run(swept).changes;
  };
  return {
    save(r: StoredResponse) {
      if (now() - swept >= SWEEP_EVERY_MS) sweep();
      insert.run(r.id, r.orgId, r.createdAt, r.createdAt + keepMs, r.model, r.body, r.items);
    },
    find: (orgId, id) => (get.get(id, orgId, now()) as { body: string; items: string } | undefined) ?? null,
    remove: (orgId, id) => del.run(id, orgId, now()).changes > 0,
    sweep,
  };
}
