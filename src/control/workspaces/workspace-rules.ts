import { errors } from '../../errors/catalog.js';
import type { WorkspaceNameFacts } from '../../domain/stores/workspace-store.js';

/** Longest workspace name, in characters. */
export const WORKSPACE_NAME_MAX = 64;

// Folded in JavaScript, not in SQL: SQLite's lower() folds ASCII only, and names may be in any script.
const fold = (s: string) => s.normalize('NFC').toLowerCase();

/** A workspace's name is unique among the org's workspaces that are not archived, ignoring case. */
export function checkWorkspaceName(f: WorkspaceNameFacts, name: string): void {
  const wanted = fold(name);
  if (f.otherNames.some((n) => fold(n) === wanted)) {
    throw errors.rule('duplicate_workspace', `A workspace named '${name}' already exists in this organisation`);
  }
}
