import type { NewWorkspace, Workspace, WorkspaceNameFacts, WorkspacePatch, WorkspaceStore, WorkspaceWithSpend } from '../../domain/stores/workspace-store.js';
import { newId } from '../../lib/ids.js';
import type { Pg } from './pg-database.js';
import { lockScope, recordChangePg, type Tx } from './pg-locks.js';

const COLUMNS = `w.id, w.org_id AS "orgId", w.name, w.is_default = 1 AS "isDefault", w.monthly_budget_micros AS "monthlyBudgetMicros",
  w.archived_at AS "archivedAt", w.created_at AS "createdAt"`;

/** The WorkspaceStore on PostgreSQL: a name check and its write in one transaction, under the org's lock. */
export function postgresWorkspaceStore(sql: Pg): WorkspaceStore {
  const otherNames = async (tx: Tx, orgId: string, exceptId: string | null): Promise<string[]> =>
    (await tx<{ name: string }[]>`SELECT name FROM workspaces WHERE org_id = ${orgId} AND archived_at IS NULL
      AND id IS DISTINCT FROM ${exceptId}`).map((r) => r.name);
  const findOne = async (q: Pg | Tx, id: string): Promise<Workspace | undefined> =>
    (await q.unsafe<Workspace[]>(`SELECT ${COLUMNS} FROM workspaces w WHERE w.id = $1`, [id]))[0];

  return {
    list: async (orgId, istMonth) => sql.unsafe<WorkspaceWithSpend[]>(`SELECT ${COLUMNS}, COALESCE(s.spent_micros, 0) AS "spentMonthMicros"
      FROM workspaces w LEFT JOIN monthly_spend s ON s.scope_id = w.id AND s.ist_month = $1
      WHERE w.org_id = $2 ORDER BY w.is_default DESC, w.archived_at IS NOT NULL, w.created_at, w.id`, [istMonth, orgId]),
    find: (id) => findOne(sql, id),
    spend: async (id, istMonth) =>
      (await sql<{ spent: number }[]>`SELECT spent_micros AS spent FROM monthly_spend WHERE scope_id = ${id} AND ist_month = ${istMonth}`)[0]?.spent ?? 0,
    create: (w: NewWorkspace, now: number, check: (f: WorkspaceNameFacts) => void) => sql.begin(async (tx) => {
      await lockScope(tx, `org:${w.orgId}`);
      check({ otherNames: await otherNames(tx, w.orgId, null) });
      const id = newId('ws');
      await tx`INSERT INTO workspaces (id, org_id, name, is_default, monthly_budget_micros, created_at)
        VALUES (${id}, ${w.orgId}, ${w.name}, 0, ${w.monthlyBudgetMicros}, ${now})`;
      return (await findOne(tx, id))!;
    }),
    update: (id: string, patch: WorkspacePatch, now: number, check?: (f: WorkspaceNameFacts) => void) => sql.begin(async (tx) => {
      const [ws] = await tx<{ orgId: string }[]>`SELECT org_id AS "orgId" FROM workspaces WHERE id = ${id}`;
      if (!ws) return false;
      await lockScope(tx, `org:${ws.orgId}`);
      check?.({ otherNames: await otherNames(tx, ws.orgId, id) });
      const set: Record<string, string | number | null> = {};
      if (patch.name !== undefined) set.name = patch.name;
      if (patch.monthlyBudgetMicros !== undefined) set.monthly_budget_micros = patch.monthlyBudgetMicros;
      if (Object.keys(set).length === 0) return true;
      if ((await tx`UPDATE workspaces SET ${tx(set)} WHERE id = ${id}`).count === 0) return false;
      // Other instances and the operator CLI follow the change feed.
      await recordChangePg(tx, 'workspace', id, now);
      return true;
    }),
    archive: (id, now) => sql.begin(async (tx) => {
      if ((await tx`UPDATE workspaces SET archived_at = ${now} WHERE id = ${id} AND archived_at IS NULL`).count === 0) {
        return { archived: false, revokedKeyIds: [] };
      }
      await recordChangePg(tx, 'workspace', id, now);
      const revoked = await tx<{ id: string }[]>`UPDATE api_keys SET revoked_at = ${now}
        WHERE workspace_id = ${id} AND revoked_at IS NULL RETURNING id`;
      for (const k of revoked) await recordChangePg(tx, 'key', k.id, now);
      return { archived: true, revokedKeyIds: revoked.map((k) => k.id).sort() };
    }),
  };
}
