import type { KeyTier } from '../lib/api-key.js';

/** What the data plane knows about an API key; loaded by the store, cached by hash. */
export interface KeyRecord {
  id: string;
  orgId: string;
  workspaceId: string;
  name: string;
  prefix: string;
  tier: KeyTier;
  scope: 'full' | 'inference';
  rpmLimit: number | null;
  dailyLimit: number | null;
  monthlyBudgetMicros: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
  /**
   * The guardrail policy text (docs/guardrails.md). As the data plane looks a key up: the key's,
   * else its org's; as the key store lists and finds keys: the key's own. Null or absent when none.
   */
  guardrails?: string | null;
}
