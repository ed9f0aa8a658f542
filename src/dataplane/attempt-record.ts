import type { KeyRecord } from '../domain/key-record.js';
import type { Guard } from '../guardrails/guard.js';
import type { UsageRecord } from '../domain/usage-record.js';
import type { TokenUsage } from '../lib/usage-scan.js';
import type { Endpoint } from '../providers/types.js';
import type { Attempt } from './route-planner.js';

/** What the usage records of one request share: made once per request. */
export interface RequestScope {
  key: KeyRecord;
  requestId: string;
  endpoint: Endpoint;
  /** The model the client asked for. */
  model: string;
  /** The request's guardrail, when one is on: what it did goes in every record's `guardrail`. */
  guard?: Guard | null;
  /** performance.now() when the handler started (the body read), for the served request's timings. */
  startedMs: number;
  /** The time spent so far in upstream attempts: each record adds its latency. */
  upstreamMs: number;
}

/** How one attempt ended, as its usage record tells it. */
export interface AttemptEnd {
  status: number;
  errorCode: string | null;
  /** Tokens billed (token endpoints); null for none. */
  tokens: TokenUsage | null;
  /** Units billed (audio endpoints); 0 otherwise. */
  units: number;
  costMicros: number;
  latencyMs: number;
  ttfbMs: number | null;
  queueMs: number;
  streamed: boolean;
  /** The attempt that served the request; only it is debited. */
  billable: boolean;
  usageEstimated: boolean;
  usageClamped: boolean;
}

/** One attempt's usage record, made at `at`. */
export function attemptRecord(at: number, req: RequestScope, a: Attempt, attempt: number, end: AttemptEnd): UsageRecord {
  const t = end.tokens;
  return {
    at, requestId: req.requestId, orgId: req.key.orgId, workspaceId: req.key.workspaceId, keyId: req.key.id, endpoint: req.endpoint,
    model: req.model, provider: a.route.provider.id, route: a.route.id, attempt, status: end.status, errorCode: end.errorCode,
    promptTokens: t?.promptTokens ?? 0, completionTokens: t?.completionTokens ?? 0, costMicros: end.costMicros, latencyMs: end.latencyMs,
    ttfbMs: end.ttfbMs, streamed: end.streamed, byok: a.byok, billable: end.billable, usageEstimated: end.usageEstimated,
    units: end.units, queueMs: end.queueMs, usageClamped: end.usageClamped, cachedTokens: t?.cachedTokens ?? 0,
    cacheWriteTokens: t?.cacheWriteTokens ?? 0, reasoningTokens: t?.reasoningTokens ?? 0,
    guardrail: req.guard == null ? null : req.guard.summary(), cacheHit: false,
  };
}

/** A request its guardrail refused before it left: one row, no provider, not billed, naming what fired. */
export function blockedRecord(at: number, key: KeyRecord, endpoint: Endpoint, model: string, requestId: string, guard: Guard): UsageRecord {
  return {
    at, requestId, orgId: key.orgId, workspaceId: key.workspaceId, keyId: key.id, endpoint, model,
    provider: null, route: null, attempt: 0, status: 400, errorCode: 'guardrail_blocked', promptTokens: 0, completionTokens: 0,
    costMicros: 0, latencyMs: 0, ttfbMs: null, streamed: false, byok: false, billable: false, usageEstimated: false, units: 0,
    queueMs: 0, usageClamped: false, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, guardrail: guard.summary(), cacheHit: false,
  };
}
