import type { PromptCacheSetting, ResponseCacheMode } from '../cache-settings.js';

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
  /** The org's cache settings (docs/cache.md), for keys that set none; null when it sets none. */
  responseCache: ResponseCacheMode | null;
  promptCache: PromptCacheSetting | null;
}

/** A change of an org's cache settings: a member absent is left as it is, null clears it. */
export interface OrgCachePatch {
  responseCache?: ResponseCacheMode | null;
  promptCache?: PromptCacheSetting | null;
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
  /** Changes the org's cache settings, and records a change of every key of the org as setGuardrails does; returns their ids. */
  setCacheSettings(orgId: string, patch: OrgCachePatch, now: number): Promise<string[]>;
  /** The email addresses of the org's owners, sorted (whom billing mail goes to). */
  ownerEmails(orgId: string): Promise<string[]>;
}
