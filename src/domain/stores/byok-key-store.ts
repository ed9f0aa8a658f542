/** An org's saved key for one provider (spec 4.5), sealed. */
export interface SavedByokKey {
  orgId: string;
  provider: string;
  /** The key sealed with the master key. */
  keySealed: string;
  /** The key with all but its first 3 and last 4 characters hidden. */
  keyHint: string;
  label: string | null;
  /** Every call to the provider for the org uses this key, catalog routes included. */
  alwaysUse: boolean;
  /** The models the provider listed for the key at its last passing check. */
  models: string[];
  verifiedAt: number;
  createdAt: number;
  updatedAt: number;
}

export type NewByokKey = Omit<SavedByokKey, 'verifiedAt' | 'createdAt' | 'updatedAt'>;

/** Saved provider keys, as the services read and change them (one atomic operation a method). */
export interface ByokKeyStore {
  /** Every org's saved keys, for the data plane at start. */
  all(): Promise<SavedByokKey[]>;
  /** The org's saved keys, by provider id. */
  list(orgId: string): Promise<SavedByokKey[]>;
  find(orgId: string, provider: string): Promise<SavedByokKey | undefined>;
  /** Saves or replaces the org's key for the provider, verified at `now`. */
  save(k: NewByokKey, now: number): Promise<SavedByokKey>;
  /** After a passing check: the models found, and when. */
  markVerified(orgId: string, provider: string, models: readonly string[], now: number): Promise<void>;
  /** false when there was no saved key. */
  delete(orgId: string, provider: string): Promise<boolean>;
}
