import type { ChainStep } from '../../domain/chain.js';
import type { RoutingChainStore, SavedChain } from '../../domain/stores/routing-chain-store.js';
import type { Pg } from './pg-database.js';

interface RawRow {
  orgId: string;
  model: string;
  steps: string;
  updatedAt: number;
}

const COLUMNS = 'org_id AS "orgId", model, steps, updated_at AS "updatedAt"';

const parse = (r: RawRow): SavedChain => ({ orgId: r.orgId, model: r.model, steps: JSON.parse(r.steps) as ChainStep[], updatedAt: r.updatedAt });

/** The RoutingChainStore on PostgreSQL: each method one statement. */
export function postgresRoutingChainStore(sql: Pg): RoutingChainStore {
  return {
    all: async () => (await sql.unsafe<RawRow[]>(`SELECT ${COLUMNS} FROM routing_chains`)).map(parse),
    list: async (orgId) => (await sql.unsafe<RawRow[]>(`SELECT ${COLUMNS} FROM routing_chains WHERE org_id = $1 ORDER BY model COLLATE "C"`, [orgId])).map(parse),
    find: async (orgId, model) => {
      const [r] = await sql.unsafe<RawRow[]>(`SELECT ${COLUMNS} FROM routing_chains WHERE org_id = $1 AND model = $2`, [orgId, model]);
      return r && parse(r);
    },
    save: async (orgId, model, steps, userId, now) => {
      await sql`INSERT INTO routing_chains (org_id, model, steps, updated_at, updated_by)
        VALUES (${orgId}, ${model}, ${JSON.stringify(steps)}, ${now}, ${userId})
        ON CONFLICT (org_id, model) DO UPDATE SET steps = EXCLUDED.steps, updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by`;
      return { orgId, model, steps: [...steps], updatedAt: now };
    },
    delete: async (orgId, model) => (await sql`DELETE FROM routing_chains WHERE org_id = ${orgId} AND model = ${model}`).count > 0,
  };
}
