/** One upstream attempt as the ledger stores it (usage table). */
export interface UsageRecord {
  at: number;
  requestId: string;
  orgId: string;
  workspaceId: string;
  keyId: string;
  endpoint: 'chat' | 'embeddings';
  model: string;
  provider: string | null;
  route: string | null;
  attempt: number;
  status: number;
  errorCode: string | null;
  promptTokens: number;
  completionTokens: number;
  costMicros: number;
  latencyMs: number;
  ttfbMs: number | null;
  streamed: boolean;
  byok: boolean;
  /** The attempt that served the request (at most one per request); only these are debited. */
  billable: boolean;
  /** The provider reported no usage: the token counts are the gateway's estimate. */
  usageEstimated: boolean;
}

/** Where the data plane hands usage records; never awaited per request. */
export interface UsageSink {
  record(r: UsageRecord): void;
}
