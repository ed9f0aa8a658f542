import type { KeyTier } from '../lib/api-key.js';
import type { PromptCacheSetting, ResponseCacheMode } from './cache-settings.js';

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
  /**
   * The exact-match response cache mode of requests that send no x-gw-cache header
   * (docs/cache.md), and whether prompt-cache markers are added when the body says nothing. As
   * the data plane looks a key up: the key's, else its org's (resolved once, when the record is
   * read, so a request reads one field); as the key store lists and finds keys: the key's own.
   * Null or absent when neither sets it: the config's applies.
   */
  responseCache?: ResponseCacheMode | null;
  promptCache?: PromptCacheSetting | null;
}
