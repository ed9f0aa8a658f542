import type { ComplianceReport, CustomEndpoint, CustomEndpointStore, NewCustomEndpoint, NewEndpointFacts } from '../domain/stores/custom-endpoint-store.js';
import { newId } from '../lib/ids.js';
import type { Db } from './database.js';

interface RawRow extends Omit<CustomEndpoint, 'compliance'> {
  /** The last compliance report, as JSON; its status is also a column of its own. */
  compliance: string;
}

const SELECT = `SELECT id, org_id AS orgId, name, base_url AS baseUrl, key_sealed AS keySealed, key_hint AS keyHint, compliance,
  tested_at AS testedAt, created_at AS createdAt FROM custom_endpoints`;

const parse = (r: RawRow): CustomEndpoint => ({ ...r, compliance: JSON.parse(r.compliance) as ComplianceReport });

/** The CustomEndpointStore on SQLite: statements prepared once; a check and its insert in one immediate transaction. */
export function sqliteCustomEndpointStore(db: Db): CustomEndpointStore {
  const all = db.prepare(SELECT);
  const list = db.prepare(`${SELECT} WHERE org_id = ? ORDER BY created_at, id`);
  const find = db.prepare(`${SELECT} WHERE id = ?`);
  const nameTaken = db.prepare('SELECT 1 FROM custom_endpoints WHERE org_id = ? AND name = ?');
  const count = db.prepare('SELECT COUNT(*) FROM custom_endpoints WHERE org_id = ?').pluck();
  const insert = db.prepare(`INSERT INTO custom_endpoints (id, org_id, name, base_url, key_sealed, key_hint, status, compliance, tested_at, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const update = db.prepare('UPDATE custom_endpoints SET status = ?, compliance = ?, tested_at = ? WHERE id = ?');
  const del = db.prepare('DELETE FROM custom_endpoints WHERE id = ?');

  const one = (r: unknown): CustomEndpoint | undefined => (r === undefined ? undefined : parse(r as RawRow));
  const facts = (orgId: string, name: string): NewEndpointFacts =>
    ({ nameTaken: nameTaken.get(orgId, name) !== undefined, count: count.get(orgId) as number });
  const create = db.transaction((e: NewCustomEndpoint, now: number, check?: (f: NewEndpointFacts) => void) => {
    check?.(facts(e.orgId, e.name));
    const id = newId('ep');
    insert.run(id, e.orgId, e.name, e.baseUrl, e.keySealed, e.keyHint, e.compliance.status, JSON.stringify(e.compliance), now, now);
    return one(find.get(id))!;
  });
  return {
    all: async () => (all.all() as RawRow[]).map(parse),
    list: async (orgId) => (list.all(orgId) as RawRow[]).map(parse),
    find: async (id) => one(find.get(id)),
    newEndpointFacts: async (orgId, name) => facts(orgId, name),
    create: async (e, now, check) => create.immediate(e, now, check),
    recordTest: async (id, report, now) => {
      if (update.run(report.status, JSON.stringify(report), now, id).changes === 0) return undefined;
      return one(find.get(id));
    },
    delete: async (id) => del.run(id).changes > 0,
  };
}
