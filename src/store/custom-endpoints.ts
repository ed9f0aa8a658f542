import { newId } from '../lib/ids.js';
import type { Db } from './database.js';

export interface EndpointRow {
  id: string;
  org_id: string;
  name: string;
  base_url: string;
  key_sealed: string | null;
  key_hint: string | null;
  status: string;
  /** The last compliance report, as JSON. */
  compliance: string;
  tested_at: number;
  created_at: number;
}

export function allEndpoints(db: Db): EndpointRow[] {
  return db.prepare('SELECT * FROM custom_endpoints').all() as EndpointRow[];
}

export function listEndpoints(db: Db, orgId: string): EndpointRow[] {
  return db.prepare('SELECT * FROM custom_endpoints WHERE org_id = ? ORDER BY created_at, id').all(orgId) as EndpointRow[];
}

export function findEndpoint(db: Db, id: string): EndpointRow | null {
  return (db.prepare('SELECT * FROM custom_endpoints WHERE id = ?').get(id) as EndpointRow | undefined) ?? null;
}

export function endpointNameTaken(db: Db, orgId: string, name: string): boolean {
  return db.prepare('SELECT 1 FROM custom_endpoints WHERE org_id = ? AND name = ?').get(orgId, name) !== undefined;
}

export function countEndpoints(db: Db, orgId: string): number {
  return db.prepare('SELECT COUNT(*) FROM custom_endpoints WHERE org_id = ?').pluck().get(orgId) as number;
}

export function insertEndpoint(db: Db, r: Omit<EndpointRow, 'id' | 'created_at'>, now: number): string {
  const id = newId('ep');
  db.prepare(`INSERT INTO custom_endpoints (id, org_id, name, base_url, key_sealed, key_hint, status, compliance, tested_at, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(id, r.org_id, r.name, r.base_url, r.key_sealed, r.key_hint, r.status, r.compliance, r.tested_at, now);
  return id;
}

export function updateEndpointTest(db: Db, id: string, status: string, compliance: string, now: number): void {
  db.prepare('UPDATE custom_endpoints SET status = ?, compliance = ?, tested_at = ? WHERE id = ?').run(status, compliance, now, id);
}

export function deleteEndpoint(db: Db, id: string): void {
  db.prepare('DELETE FROM custom_endpoints WHERE id = ?').run(id);
}
