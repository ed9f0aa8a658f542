/** An organisation as the services see it. */
export interface Org {
  id: string;
  name: string;
  personal: boolean;
  balanceMicros: number;
  /** When money first came in (a payment or credit); null while the org is on the trial. */
  fundedAt: number | null;
  createdAt: number;
  /** The org's guardrail policy in its text form (docs/guardrails.md); null when it sets none. */
  guardrails: string | null;
}

/** Organisations and their workspaces, as the services read them (one atomic operation a method). */
export interface OrgStore {
  find(orgId: string): Promise<Org | undefined>;
  defaultWorkspaceId(orgId: string): Promise<string>;
  /** Whether the workspace is the org's and not archived. */
  hasActiveWorkspace(orgId: string, workspaceId: string): Promise<boolean>;
  rename(orgId: string, name: string): Promise<void>;
  /**
   * Sets the org's guardrail policy (text checked by the caller; null for none) and records a
   * change of every key of the org, whose cached records carry it; returns those keys' ids.
   */
  setGuardrails(orgId: string, policy: string | null, now: number): Promise<string[]>;
  /** The email addresses of the org's owners, sorted (whom billing mail goes to). */
  ownerEmails(orgId: string): Promise<string[]>;
}
