import type { Db } from './database.js';
import { recordChange } from './change-log.js';
import { revokeKey } from './keys.js';
import { newId } from '../lib/ids.js';

export interface WorkspaceRow {
  id: string;
  org_id: string;
  name: string;
  is_default: number;
  monthly_budget_micros: number | null;
  archived_at: number | null;
  created_at: number;
}

/** A workspace as listed, with its spend in the IST month asked for. */
export interface WorkspaceListRow extends WorkspaceRow {
  spent_micros: number;
}

/** Every workspace of the org, archived ones included: the default first, then oldest first. */
export function listWorkspaces(db: Db, orgId: string, istMonth: string): WorkspaceListRow[] {
  return db.prepare(`SELECT w.*, COALESCE(s.spent_micros, 0) AS spent_micros FROM workspaces w
    LEFT JOIN monthly_spend s ON s.scope_id = w.id AND s.ist_month = ?
    WHERE w.org_id = ? ORDER BY w.is_default DESC, w.archived_at IS NOT NULL, w.created_at, w.id`).all(istMonth, orgId) as WorkspaceListRow[];
}

export function findWorkspace(db: Db, id: string): WorkspaceRow | undefined {
  return db.prepare('SELECT * FROM workspaces WHERE id = ?').get(id) as WorkspaceRow | undefined;
}

export function findWorkspaceSpend(db: Db, id: string, istMonth: string): number {
  return (db.prepare('SELECT spent_micros FROM monthly_spend WHERE scope_id = ? AND ist_month = ?').pluck().get(id, istMonth) as number | undefined) ?? 0;
}

const fold = (s: string) => s.normalize('NFC').toLowerCase();

/**
 * Whether a non-archived workspace of the org (other than `exceptId`) has this name, ignoring
 * case. Compared in JavaScript: SQLite's lower() folds ASCII only, and names may be in any script.
 */
export function workspaceNameTaken(db: Db, orgId: string, name: string, exceptId?: string): boolean {
  const names = db.prepare('SELECT id, name FROM workspaces WHERE org_id = ? AND archived_at IS NULL').all(orgId) as { id: string; name: string }[];
  const wanted = fold(name);
  return names.some((w) => w.id !== exceptId && fold(w.name) === wanted);
}

export function insertWorkspace(db: Db, w: { orgId: string; name: string; monthlyBudgetMicros: number | null }, now: number): WorkspaceRow {
  const id = newId('ws');
  db.prepare('INSERT INTO workspaces (id, org_id, name, is_default, monthly_budget_micros, created_at) VALUES (?, ?, ?, 0, ?, ?)')
    .run(id, w.orgId, w.name, w.monthlyBudgetMicros, now);
  return findWorkspace(db, id)!;
}

export interface WorkspacePatch {
  name?: string;
  /** null clears the budget; undefined leaves it. */
  monthlyBudgetMicros?: number | null;
}

/** Renames a workspace or sets its budget, and records the change for other processes. */
export function updateWorkspace(db: Db, id: string, patch: WorkspacePatch, now: number): boolean {
  const sets: string[] = [];
  const args: (string | number | null)[] = [];
  if (patch.name !== undefined) { sets.push('name = ?'); args.push(patch.name); }
  if (patch.monthlyBudgetMicros !== undefined) { sets.push('monthly_budget_micros = ?'); args.push(patch.monthlyBudgetMicros); }
  if (sets.length === 0) return findWorkspace(db, id) !== undefined;
  return db.transaction(() => {
    const res = db.prepare(`UPDATE workspaces SET ${sets.join(', ')} WHERE id = ?`).run(...args, id);
    if (res.changes === 1) recordChange(db, 'workspace', id, now);
    return res.changes === 1;
  })();
}

/**
 * Archives a workspace and revokes every key in it that is not yet revoked, in one transaction;
 * returns the ids of the keys it revoked (empty when the workspace was already archived).
 */
export function archiveWorkspace(db: Db, id: string, now: number): { archived: boolean; revokedKeyIds: string[] } {
  return db.transaction(() => {
    const res = db.prepare('UPDATE workspaces SET archived_at = ? WHERE id = ? AND archived_at IS NULL').run(now, id);
    if (res.changes === 0) return { archived: false, revokedKeyIds: [] };
    recordChange(db, 'workspace', id, now);
    const keyIds = db.prepare('SELECT id FROM api_keys WHERE workspace_id = ? AND revoked_at IS NULL').pluck().all(id) as string[];
    const revokedKeyIds = keyIds.filter((k) => revokeKey(db, k, now));
    return { archived: true, revokedKeyIds };
  }).immediate();
}
