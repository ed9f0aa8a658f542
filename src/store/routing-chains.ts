import type { ChainStep } from '../domain/chain.js';
import type { Db } from './database.js';

export interface ChainRow {
  org_id: string;
  model: string;
  steps: ChainStep[];
  updated_at: number;
}

interface RawRow {
  org_id: string;
  model: string;
  steps: string;
  updated_at: number;
}

const parse = (r: RawRow): ChainRow => ({ ...r, steps: JSON.parse(r.steps) as ChainStep[] });

/** Every saved chain, for the data plane at start. */
export function allChains(db: Db): ChainRow[] {
  return (db.prepare('SELECT org_id, model, steps, updated_at FROM routing_chains').all() as RawRow[]).map(parse);
}

export function listChains(db: Db, orgId: string): ChainRow[] {
  return (db.prepare('SELECT org_id, model, steps, updated_at FROM routing_chains WHERE org_id = ? ORDER BY model').all(orgId) as RawRow[])
    .map(parse);
}

export function findChain(db: Db, orgId: string, model: string): ChainRow | null {
  const r = db.prepare('SELECT org_id, model, steps, updated_at FROM routing_chains WHERE org_id = ? AND model = ?').get(orgId, model) as RawRow | undefined;
  return r ? parse(r) : null;
}

export function saveChain(db: Db, orgId: string, model: string, steps: readonly ChainStep[], userId: string, now: number): ChainRow {
  db.prepare(`INSERT INTO routing_chains (org_id, model, steps, updated_at, updated_by) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT(org_id, model) DO UPDATE SET steps = excluded.steps, updated_at = excluded.updated_at, updated_by = excluded.updated_by`)
    .run(orgId, model, JSON.stringify(steps), now, userId);
  return { org_id: orgId, model, steps: [...steps], updated_at: now };
}

/** True when there was a chain to delete. */
export function deleteChain(db: Db, orgId: string, model: string): boolean {
  return db.prepare('DELETE FROM routing_chains WHERE org_id = ? AND model = ?').run(orgId, model).changes > 0;
}
