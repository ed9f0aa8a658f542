import { errors } from '../../errors/catalog.js';
import { cleanName } from '../../domain/display-name.js';
import type { Workspace, WorkspaceStore, WorkspaceWithSpend } from '../../domain/stores/workspace-store.js';
import type { Clock } from '../../lib/clock.js';
import { istMonth } from '../../lib/ist.js';
import { checkWorkspaceName, WORKSPACE_NAME_MAX } from './workspace-rules.js';

export interface WorkspaceServiceDeps {
  workspaces: WorkspaceStore;
  clock: Clock;
  /** Tells the data plane that a key's cached record is stale (archiving revokes keys). */
  keyChanged(keyId: string): void;
  /** Tells the data plane that a workspace's budget or state changed. */
  workspaceChanged(workspaceId: string): void;
}

export interface WorkspaceInput {
  name?: string;
  /** null: no cap; undefined: unchanged (or no cap on a new workspace). */
  monthlyBudgetMicros?: number | null;
}

/**
 * Workspaces of an org (spec 4.11): groups of keys with a monthly ₹ budget. A budget change
 * reaches the data plane at once; archiving revokes the workspace's keys. A workspace of another
 * org is 404, never its data.
 */
export class WorkspaceService {
  readonly #d: WorkspaceServiceDeps;

  constructor(deps: WorkspaceServiceDeps) {
    this.#d = deps;
  }

  /** Every workspace of the org (archived ones flagged), with this IST month's spend. */
  async list(orgId: string): Promise<WorkspaceWithSpend[]> {
    return this.#d.workspaces.list(orgId, istMonth(this.#d.clock.now()));
  }

  /** A workspace with a name unique in the org (ignoring case), optionally with a budget. */
  async create(orgId: string, input: { name: string; monthlyBudgetMicros?: number | null }): Promise<WorkspaceWithSpend> {
    const name = cleanName(input.name, WORKSPACE_NAME_MAX, 'Workspace');
    const w = await this.#d.workspaces.create({ orgId, name, monthlyBudgetMicros: input.monthlyBudgetMicros ?? null }, this.#d.clock.now(),
      (f) => checkWorkspaceName(f, name));
    return { ...w, spentMonthMicros: 0 };
  }

  /** Renames an active workspace or sets its budget; the data plane enforces a new budget at once. */
  async update(orgId: string, id: string, input: WorkspaceInput): Promise<WorkspaceWithSpend> {
    const d = this.#d;
    const w = await this.#inOrg(orgId, id);
    if (w.archivedAt !== null) throw errors.notFound('No such active workspace in this organisation');
    const name = input.name === undefined ? undefined : cleanName(input.name, WORKSPACE_NAME_MAX, 'Workspace');
    const now = d.clock.now();
    await d.workspaces.update(w.id, { name, monthlyBudgetMicros: input.monthlyBudgetMicros }, now,
      name === undefined ? undefined : (f) => checkWorkspaceName(f, name));
    d.workspaceChanged(w.id);
    const after = (await d.workspaces.find(w.id))!;
    return { ...after, spentMonthMicros: await d.workspaces.spend(w.id, istMonth(now)) };
  }

  /** Archives a workspace other than the default and revokes its keys; how many keys it revoked. */
  async archive(orgId: string, id: string): Promise<{ revokedKeys: number }> {
    const d = this.#d;
    const w = await this.#inOrg(orgId, id);
    if (w.isDefault) throw errors.badRequest('The default workspace cannot be archived');
    const { revokedKeyIds } = await d.workspaces.archive(w.id, d.clock.now());
    for (const k of revokedKeyIds) d.keyChanged(k);
    d.workspaceChanged(w.id);
    return { revokedKeys: revokedKeyIds.length };
  }

  async #inOrg(orgId: string, id: string): Promise<Workspace> {
    const w = await this.#d.workspaces.find(id);
    if (!w || w.orgId !== orgId) throw errors.notFound('No such workspace in this organisation');
    return w;
  }
}
