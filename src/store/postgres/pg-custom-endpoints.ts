import type { ComplianceReport, CustomEndpoint, CustomEndpointStore, NewEndpointFacts } from '../../domain/stores/custom-endpoint-store.js';
import { newId } from '../../lib/ids.js';
import type { Pg } from './pg-database.js';
import { lockScope, type Tx } from './pg-locks.js';

interface RawRow extends Omit<CustomEndpoint, 'compliance'> {
  /** The last compliance report, as JSON; its status is also a column of its own. */
  compliance: string;
}

const SELECT = `SELECT id, org_id AS "orgId", name, base_url AS "baseUrl", key_sealed AS "keySealed", key_hint AS "keyHint", compliance,
  tested_at AS "testedAt", created_at AS "createdAt" FROM custom_endpoints`;

const parse = (r: RawRow): CustomEndpoint => ({ ...r, compliance: JSON.parse(r.compliance) as ComplianceReport });

/** The CustomEndpointStore on PostgreSQL: a check and its insert in one transaction, under the org's lock. */
export function postgresCustomEndpointStore(sql: Pg): CustomEndpointStore {
  const find = async (q: Pg | Tx, id: string): Promise<CustomEndpoint | undefined> => {
    const [r] = await q.unsafe<RawRow[]>(`${SELECT} WHERE id = $1`, [id]);
    return r && parse(r);
  };
  const facts = async (q: Pg | Tx, orgId: string, name: string): Promise<NewEndpointFacts> => {
    const [r] = await q<{ taken: boolean; count: number }[]>`SELECT
      EXISTS (SELECT 1 FROM custom_endpoints WHERE org_id = ${orgId} AND name = ${name}) AS taken,
      (SELECT COUNT(*) FROM custom_endpoints WHERE org_id = ${orgId}) AS count`;
    return { nameTaken: r!.taken, count: r!.count };
  };
  return {
    all: async () => (await sql.unsafe<RawRow[]>(SELECT)).map(parse),
    list: async (orgId) => (await sql.unsafe<RawRow[]>(`${SELECT} WHERE org_id = $1 ORDER BY created_at, id COLLATE "C"`, [orgId])).map(parse),
    find: (id) => find(sql, id),
    newEndpointFacts: (orgId, name) => facts(sql, orgId, name),
    create: (e, now, check) => sql.begin(async (tx) => {
      // The name and the count are read and written in turn with the org's other endpoint writes.
      await lockScope(tx, `org:${e.orgId}`);
      check?.(await facts(tx, e.orgId, e.name));
      const id = newId('ep');
      await tx`INSERT INTO custom_endpoints (id, org_id, name, base_url, key_sealed, key_hint, status, compliance, tested_at, created_at)
        VALUES (${id}, ${e.orgId}, ${e.name}, ${e.baseUrl}, ${e.keySealed}, ${e.keyHint}, ${e.compliance.status},
          ${JSON.stringify(e.compliance)}, ${now}, ${now})`;
      return (await find(tx, id))!;
    }),
    recordTest: async (id, report, now) => {
      const r = await sql`UPDATE custom_endpoints SET status = ${report.status}, compliance = ${JSON.stringify(report)}, tested_at = ${now}
        WHERE id = ${id}`;
      return r.count === 0 ? undefined : find(sql, id);
    },
    delete: async (id) => (await sql`DELETE FROM custom_endpoints WHERE id = ${id}`).count > 0,
  };
}
