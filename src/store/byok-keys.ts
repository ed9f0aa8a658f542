import type { ByokKeyStore, SavedByokKey } from '../domain/stores/byok-key-store.js';
import type { Db } from './database.js';

interface RawRow extends Omit<SavedByokKey, 'alwaysUse' | 'models'> {
  alwaysUse: number;
  models: string;
}

const SELECT = `SELECT org_id AS orgId, provider, key_sealed AS keySealed, key_hint AS keyHint, label, always_use AS alwaysUse, models,
  verified_at AS verifiedAt, created_at AS createdAt, updated_at AS updatedAt FROM byok_keys`;

const parse = (r: RawRow): SavedByokKey => ({ ...r, alwaysUse: r.alwaysUse === 1, models: JSON.parse(r.models) as string[] });

/** The ByokKeyStore on SQLite: statements prepared once. */
export function sqliteByokKeyStore(db: Db): ByokKeyStore {
  const all = db.prepare(SELECT);
  const list = db.prepare(`${SELECT} WHERE org_id = ? ORDER BY provider`);
  const find = db.prepare(`${SELECT} WHERE org_id = ? AND provider = ?`);
  const save = db.prepare(`INSERT INTO byok_keys (org_id, provider, key_sealed, key_hint, label, always_use, models, verified_at, created_at, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT(org_id, provider) DO UPDATE SET key_sealed = excluded.key_sealed, key_hint = excluded.key_hint, label = excluded.label,
      always_use = excluded.always_use, models = excluded.models, verified_at = excluded.verified_at, updated_at = excluded.updated_at`);
  const verified = db.prepare('UPDATE byok_keys SET models = ?, verified_at = ? WHERE org_id = ? AND provider = ?');
  const del = db.prepare('DELETE FROM byok_keys WHERE org_id = ? AND provider = ?');

  const one = (r: unknown): SavedByokKey | undefined => (r === undefined ? undefined : parse(r as RawRow));
  return {
    all: async () => (all.all() as RawRow[]).map(parse),
    list: async (orgId) => (list.all(orgId) as RawRow[]).map(parse),
    find: async (orgId, provider) => one(find.get(orgId, provider)),
    save: async (k, now) => {
      save.run(k.orgId, k.provider, k.keySealed, k.keyHint, k.label, k.alwaysUse ? 1 : 0, JSON.stringify(k.models), now, now, now);
      return one(find.get(k.orgId, k.provider))!;
    },
    markVerified: async (orgId, provider, models, now) => {
      verified.run(JSON.stringify(models), now, orgId, provider);
    },
    delete: async (orgId, provider) => del.run(orgId, provider).changes > 0,
  };
}
