import type { ChainStep } from '../domain/chain.js';
import type { RoutingChainStore, SavedChain } from '../domain/stores/routing-chain-store.js';
import type { Db } from './database.js';

interface RawRow {
  orgId: string;
  model: string;
  steps: string;
  updatedAt: number;
}

const COLUMNS = 'org_id AS orgId, model, steps, updated_at AS updatedAt';

const parse = (r: RawRow): SavedChain => ({ ...r, steps: JSON.parse(r.steps) as ChainStep[] });

/** The RoutingChainStore on SQLite: statements prepared once. */
export function sqliteRoutingChainStore(db: Db): RoutingChainStore {
  const all = db.prepare(`SELECT ${COLUMNS} FROM routing_chains`);
  const list = db.prepare(`SELECT ${COLUMNS} FROM routing_chains WHERE org_id = ? ORDER BY model`);
  const find = db.prepare(`SELECT ${COLUMNS} FROM routing_chains WHERE org_id = ? AND model = ?`);
  const save = db.prepare(`INSERT INTO routing_chains (org_id, model, steps, updated_at, updated_by) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT(org_id, model) DO UPDATE SET steps = excluded.steps, updated_at = excluded.updated_at, updated_by = excluded.updated_by`);
  const del = db.prepare('DELETE FROM routing_chains WHERE org_id = ? AND model = ?');
  return {
    all: async () => (all.all() as RawRow[]).map(parse),
    list: async (orgId) => (list.all(orgId) as RawRow[]).map(parse),
    find: async (orgId, model) => {
      const r = find.get(orgId, model) as RawRow | undefined;
      return r && parse(r);
    },
    save: async (orgId, model, steps, userId, now) => {
      save.run(orgId, model, JSON.stringify(steps), now, userId);
      return { orgId, model, steps: [...steps], updatedAt: now };
    },
    delete: async (orgId, model) => del.run(orgId, model).changes > 0,
  };
}
