import type { KeyRecord } from '../key-record.js';
import type { KeyTier } from '../../lib/api-key.js';
import type { PromptCacheSetting, ResponseCacheMode } from '../cache-settings.js';

export type KeyScope = 'full' | 'inference';

/** A key as the org's key list shows it, with its spend in the month asked for. */
export interface KeyListRow extends KeyRecord {
  spentMonthMicros: number;
  lastUsedAt: number | null;
  createdAt: number;
}

export interface NewKey {
  orgId: string;
  workspaceId: string;
  name: string;
  tier: KeyTier;
  scope?: KeyScope;
  rpmLimit?: number | null;
  dailyLimit?: number | null;
  monthlyBudgetMicros?: number | null;
  expiresAt?: number | null;
}

/** What a new key's rules are checked on, read in the same transaction as its insert. */
export interface NewKeyFacts {
  /** Active keys of the new key's scope in its org. */
  active: number;
  /** An active key of the org already has the new key's name. */
  nameTaken: boolean;
}

export interface CreatedKey {
  id: string;
  /** The full key: shown once, only its hash is stored. */
  key: string;
  prefix: string;
}

export interface KeyLimitsPatch {
  rpmLimit?: number | null;
  dailyLimit?: number | null;
  monthlyBudgetMicros?: number | null;
  /** The key's own guardrail policy in its text form (checked by the caller); null to fall back to the org's. */
  guardrails?: string | null;
  /** The key's own cache settings (docs/cache.md); null to fall back to the org's. */
  responseCache?: ResponseCacheMode | null;
  promptCache?: PromptCacheSetting | null;
}

/** What a key's holder may know of its account. */
export interface KeyAccount {
  balanceMicros: number;
  requestsToday: number;
  spentMonthMicros: number;
}

/**
 * API keys, as the control plane's services read and change them. Every method is one atomic
 * operation, so an engine with a network round trip (PostgreSQL) implements it as one
 * transaction; SQLite answers at once.
 */
export interface KeyStore {
  /** Every key of the org, oldest first, with its spend in `istMonth` (YYYY-MM). */
  list(orgId: string, istMonth: string): Promise<KeyListRow[]>;
  /** The org's keys that are neither revoked nor expired at `now`, newest first. */
  listActive(orgId: string, now: number): Promise<KeyRecord[]>;
  /** The key with its own guardrail policy and cache settings (not its org's), as list() gives it too. */
  find(id: string): Promise<KeyRecord | undefined>;
  countActive(orgId: string, now: number, scope?: KeyScope): Promise<number>;
  /**
   * Mints and inserts a key. `check` runs inside the insert's transaction on the facts it
   * reads there and throws to refuse, so two requests cannot both pass a cap.
   */
  create(k: NewKey, now: number, check?: (facts: NewKeyFacts) => void): Promise<CreatedKey>;
  /** false when there is no such active key. */
  revoke(id: string, now: number): Promise<boolean>;
  /** false when there is no such key. */
  updateLimits(id: string, patch: KeyLimitsPatch, now: number): Promise<boolean>;
  account(orgId: string, keyId: string, istDay: string, istMonth: string): Promise<KeyAccount>;
}
