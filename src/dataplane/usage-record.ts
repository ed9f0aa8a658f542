import type { Endpoint } from '../providers/types.js';

/** One upstream attempt as the ledger stores it (usage table). */
export interface UsageRecord {
  at: number;
  requestId: string;
  orgId: string;
  workspaceId: string;
  keyId: string;
  endpoint: Endpoint;
  model: string;
  provider: string | null;
  route: string | null;
  attempt: number;
  status: number;
  errorCode: string | null;
  promptTokens: number;
  completionTokens: number;
  /** Of promptTokens: read from the provider's prompt cache. */
  cachedTokens: number;
  /** Of promptTokens: written to the provider's prompt cache. */
  cacheWriteTokens: number;
  /** Of completionTokens: spent reasoning. */
  reasoningTokens: number;
  /** What an audio request is billed on: seconds of audio (transcriptions), characters (speech); 0 otherwise. */
  units: number;
  costMicros: number;
  latencyMs: number;
  ttfbMs: number | null;
  streamed: boolean;
  byok: boolean;
  /** The attempt that served the request (at most one per request); only these are debited. */
  billable: boolean;
  /** The provider reported no usage: the token counts are the gateway's estimate. */
  usageEstimated: boolean;
  /** How long the attempt waited for a free upstream connection (upstream.connectionsPerOrigin), in ms. */
  queueMs: number;
  /** The provider reported more tokens than the request could have used: the counts (and cost) were cut to the bounds. */
  usageClamped: boolean;
}

/** Where the data plane hands usage records; never awaited per request. */
export interface UsageSink {
  record(r: UsageRecord): void;
}
