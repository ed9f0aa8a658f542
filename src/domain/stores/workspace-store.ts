/** A workspace of an org: a group of keys with an optional monthly ₹ budget. */
export interface Workspace {
  id: string;
  orgId: string;
  name: string;
  isDefault: boolean;
  /** null: no cap. */
  monthlyBudgetMicros: number | null;
  archivedAt: number | null;
  createdAt: number;
}

/** A workspace with its spend in the IST month asked for. */
export interface WorkspaceWithSpend extends Workspace {
  spentMonthMicros: number;
}

export interface NewWorkspace {
  orgId: string;
  name: string;
  monthlyBudgetMicros: number | null;
}

export interface WorkspacePatch {
  name?: string;
  /** null clears the budget; undefined leaves it. */
  monthlyBudgetMicros?: number | null;
}

/** What a workspace's name is checked on, read in the transaction that writes it. */
export interface WorkspaceNameFacts {
  /** The names of the org's other workspaces that are not archived. */
  otherNames: string[];
}

/** Workspaces (one atomic operation a method). */
export interface WorkspaceStore {
  /** Every workspace of the org, archived ones included: the default first, then oldest first. */
  list(orgId: string, istMonth: string): Promise<WorkspaceWithSpend[]>;
  find(id: string): Promise<Workspace | undefined>;
  /** What the workspace's keys spent in `istMonth` (YYYY-MM), in micros. */
  spend(id: string, istMonth: string): Promise<number>;
  /** Inserts a workspace once `check` passes. */
  create(w: NewWorkspace, now: number, check: (facts: WorkspaceNameFacts) => void): Promise<Workspace>;
  /**
   * Renames a workspace or sets its budget, and records the change for other processes; `check`,
   * when given, runs first on the names of the org's other workspaces. false when there is no such workspace.
   */
  update(id: string, patch: WorkspacePatch, now: number, check?: (facts: WorkspaceNameFacts) => void): Promise<boolean>;
  /** Archives a workspace and revokes its keys; the ids of the keys revoked (none when it was archived already). */
  archive(id: string, now: number): Promise<{ archived: boolean; revokedKeyIds: string[] }>;
}
