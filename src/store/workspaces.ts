import type { Db } from './database.js';
import type { NewWorkspace, Workspace, WorkspaceNameFacts, WorkspacePatch, WorkspaceStore, WorkspaceWithSpend } from '../domain/stores/workspace-store.js';
import { recordChange } from './change-log.js';
import { revokeKey } from './keys.js';
import { newId } from '../lib/ids.js';

export type { WorkspacePatch };

const COLUMNS = `w.id, w.org_id AS orgId, w.name, w.is_default = 1 AS isDefault, w.monthly_budget_micros AS monthlyBudgetMicros,
  w.archived_at AS archivedAt, w.created_at AS createdAt`;

// SQLite answers a comparison with 0 or 1: the domain's boolean.
type Row<T extends Workspace> = Omit<T, 'isDefault'> & { isDefault: number };
const workspace = <T extends Workspace>(row: Row<T>): T => ({ ...row, isDefault: row.isDefault === 1 }) as T;

/** The WorkspaceStore on SQLite: statements prepared once; a name check and its write in one immediate transaction. */
export function sqliteWorkspaceStore(db: Db): WorkspaceStore {
  const list = db.prepare(`SELECT ${COLUMNS}, COALESCE(s.spent_micros, 0) AS spentMonthMicros FROM workspaces w
    LEFT JOIN monthly_spend s ON s.scope_id = w.id AND s.ist_month = ?
    WHERE w.org_id = ? ORDER BY w.is_default DESC, w.archived_at IS NOT NULL, w.created_at, w.id`);
  const find = db.prepare(`SELECT ${COLUMNS} FROM workspaces w WHERE w.id = ?`);
  const spend = db.prepare('SELECT spent_micros FROM monthly_spend WHERE scope_id = ? AND ist_month = ?').pluck();
  const otherNames = db.prepare('SELECT name FROM workspaces WHERE org_id = ? AND archived_at IS NULL AND id IS NOT ?').pluck();
  const orgOf = db.prepare('SELECT org_id FROM workspaces WHERE id = ?').pluck();
  const insert = db.prepare(`INSERT INTO workspaces (id, org_id, name, is_default, monthly_budget_micros, created_at)
    VALUES (?, ?, ?, 0, ?, ?)`);
  const archive = db.prepare('UPDATE workspaces SET archived_at = ? WHERE id = ? AND archived_at IS NULL');
  const liveKeys = db.prepare('SELECT id FROM api_keys WHERE workspace_id = ? AND revoked_at IS NULL').pluck();

  const findOne = (id: string): Workspace | undefined => {
    const row = find.get(id) as Row<Workspace> | undefined;
    return row && workspace(row);
  };
  const create = db.transaction((w: NewWorkspace, now: number, check: (f: WorkspaceNameFacts) => void): Workspace => {
    check({ otherNames: otherNames.all(w.orgId, null) as string[] });
    const id = newId('ws');
    insert.run(id, w.orgId, w.name, w.monthlyBudgetMicros, now);
    return findOne(id)!;
  });
  const update = db.transaction((id: string, patch: WorkspacePatch, now: number, check?: (f: WorkspaceNameFacts) => void): boolean => {
    const orgId = orgOf.get(id) as string | undefined;
    if (orgId === undefined) return false;
    check?.({ otherNames: otherNames.all(orgId, id) as string[] });
    const sets: string[] = [];
    const args: (string | number | null)[] = [];
    if (patch.name !== undefined) { sets.push('name = ?'); args.push(patch.name); }
    if (patch.monthlyBudgetMicros !== undefined) { sets.push('monthly_budget_micros = ?'); args.push(patch.monthlyBudgetMicros); }
    if (sets.length === 0) return true;
    if (db.prepare(`UPDATE workspaces SET ${sets.join(', ')} WHERE id = ?`).run(...args, id).changes === 0) return false;
    // Other processes (a second gateway, the operator CLI) follow the change feed.
    recordChange(db, 'workspace', id, now);
    return true;
  });
  const archiveOne = db.transaction((id: string, now: number) => {
    if (archive.run(now, id).changes === 0) return { archived: false, revokedKeyIds: [] };
    recordChange(db, 'workspace', id, now);
    const revokedKeyIds = (liveKeys.all(id) as string[]).filter((k) => revokeKey(db, k, now));
    return { archived: true, revokedKeyIds };
  });
  return {
    list: async (orgId, istMonth) => (list.all(istMonth, orgId) as Row<WorkspaceWithSpend>[]).map(workspace),
    find: async (id) => findOne(id),
    spend: async (id, istMonth) => (spend.get(id, istMonth) as number | undefined) ?? 0,
    create: async (w, now, check) => create.immediate(w, now, check),
    update: async (id, patch, now, check) => update.immediate(id, patch, now, check),
    archive: async (id, now) => archiveOne.immediate(id, now),
  };
}
