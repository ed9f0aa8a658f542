import type { ByokKeyStore, SavedByokKey } from '../../domain/stores/byok-key-store.js';
import type { Pg } from './pg-database.js';

interface RawRow extends Omit<SavedByokKey, 'alwaysUse' | 'models'> {
  alwaysUse: number;
  models: string;
}

const SELECT = `SELECT org_id AS "orgId", provider, key_sealed AS "keySealed", key_hint AS "keyHint", label, always_use AS "alwaysUse", models,
  verified_at AS "verifiedAt", created_at AS "createdAt", updated_at AS "updatedAt" FROM byok_keys`;

const parse = (r: RawRow): SavedByokKey => ({ ...r, alwaysUse: r.alwaysUse === 1, models: JSON.parse(r.models) as string[] });

/** The ByokKeyStore on PostgreSQL: each method one statement. */
export function postgresByokKeyStore(sql: Pg): ByokKeyStore {
  const find = async (orgId: string, provider: string): Promise<SavedByokKey | undefined> => {
    const [r] = await sql.unsafe<RawRow[]>(`${SELECT} WHERE org_id = $1 AND provider = $2`, [orgId, provider]);
    return r && parse(r);
  };
  return {
    all: async () => (await sql.unsafe<RawRow[]>(SELECT)).map(parse),
    list: async (orgId) => (await sql.unsafe<RawRow[]>(`${SELECT} WHERE org_id = $1 ORDER BY provider COLLATE "C"`, [orgId])).map(parse),
    find,
    save: async (k, now) => {
      const [r] = await sql.unsafe<RawRow[]>(`INSERT INTO byok_keys
          (org_id, provider, key_sealed, key_hint, label, always_use, models, verified_at, created_at, updated_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $8)
        ON CONFLICT (org_id, provider) DO UPDATE SET key_sealed = EXCLUDED.key_sealed, key_hint = EXCLUDED.key_hint, label = EXCLUDED.label,
          always_use = EXCLUDED.always_use, models = EXCLUDED.models, verified_at = EXCLUDED.verified_at, updated_at = EXCLUDED.updated_at
        RETURNING org_id AS "orgId", provider, key_sealed AS "keySealed", key_hint AS "keyHint", label, always_use AS "alwaysUse", models,
          verified_at AS "verifiedAt", created_at AS "createdAt", updated_at AS "updatedAt"`,
      [k.orgId, k.provider, k.keySealed, k.keyHint, k.label, k.alwaysUse ? 1 : 0, JSON.stringify(k.models), now]);
      return parse(r!);
    },
    markVerified: async (orgId, provider, models, now) => {
      await sql`UPDATE byok_keys SET models = ${JSON.stringify(models)}, verified_at = ${now} WHERE org_id = ${orgId} AND provider = ${provider}`;
    },
    delete: async (orgId, provider) => (await sql`DELETE FROM byok_keys WHERE org_id = ${orgId} AND provider = ${provider}`).count > 0,
  };
}
