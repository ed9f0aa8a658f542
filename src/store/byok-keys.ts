import type { Db } from './database.js';

export interface ByokKeyRow {
  org_id: string;
  provider: string;
  key_sealed: string;
  /** The key with all but its first 3 and last 4 characters hidden. */
  key_hint: string;
  label: string | null;
  always_use: boolean;
  models: string[];
  verified_at: number;
  created_at: number;
  updated_at: number;
}

interface RawRow extends Omit<ByokKeyRow, 'always_use' | 'models'> {
  always_use: number;
  models: string;
}

const parse = (r: RawRow): ByokKeyRow => ({ ...r, always_use: r.always_use === 1, models: JSON.parse(r.models) as string[] });

export function allByokKeys(db: Db): ByokKeyRow[] {
  return (db.prepare('SELECT * FROM byok_keys').all() as RawRow[]).map(parse);
}

export function listByokKeys(db: Db, orgId: string): ByokKeyRow[] {
  return (db.prepare('SELECT * FROM byok_keys WHERE org_id = ? ORDER BY provider').all(orgId) as RawRow[]).map(parse);
}

export function findByokKey(db: Db, orgId: string, provider: string): ByokKeyRow | null {
  const r = db.prepare('SELECT * FROM byok_keys WHERE org_id = ? AND provider = ?').get(orgId, provider) as RawRow | undefined;
  return r ? parse(r) : null;
}

export function saveByokKey(db: Db, r: Omit<ByokKeyRow, 'created_at'>, now: number): void {
  db.prepare(`INSERT INTO byok_keys (org_id, provider, key_sealed, key_hint, label, always_use, models, verified_at, created_at, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT(org_id, provider) DO UPDATE SET key_sealed = excluded.key_sealed, key_hint = excluded.key_hint, label = excluded.label,
      always_use = excluded.always_use, models = excluded.models, verified_at = excluded.verified_at, updated_at = excluded.updated_at`)
    .run(r.org_id, r.provider, r.key_sealed, r.key_hint, r.label, r.always_use ? 1 : 0, JSON.stringify(r.models), r.verified_at, now, r.updated_at);
}

/** After a passing check: the models found and when. */
export function markByokVerified(db: Db, orgId: string, provider: string, models: readonly string[], now: number): void {
  db.prepare('UPDATE byok_keys SET models = ?, verified_at = ? WHERE org_id = ? AND provider = ?').run(JSON.stringify(models), now, orgId, provider);
}

export function deleteByokKey(db: Db, orgId: string, provider: string): boolean {
  return db.prepare('DELETE FROM byok_keys WHERE org_id = ? AND provider = ?').run(orgId, provider).changes > 0;
}
