/**
 * One cell of the usage rollup: an IST day × key × model × provider. `requests` counts first
 * attempts (attempt = 0, a request's row under the provider tried first); tokens, cost and
 * `served` come from billable rows (under the provider that served).
 */
export interface UsageCell {
  day: number;
  keyId: string;
  model: string;
  provider: string | null;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  /** Of promptTokens: read from the provider's cache. */
  cachedTokens: number;
  /** Of promptTokens: written to the provider's cache. */
  cacheWriteTokens: number;
  /** Of completionTokens: reasoning. */
  reasoningTokens: number;
  costMicros: number;
  served: number;
}

/** Where an org's rows of some IST days lie among its row ids, and how many there are. */
export interface IdSpan {
  /** Lowest id of a row of those days (Infinity when there is none). */
  lo: number;
  /** Highest id of a row of those days (-Infinity when there is none). */
  hi: number;
  /** Rows (attempts) of those days. */
  rows: number;
}

/** What a report reads from an org's rollup: the cells of the IST days from..to, inclusive. */
export interface OrgUsage {
  /** The cells (shared with other readers of the same range: do not change them). */
  cells(fromDay: number, toDay: number): UsageCell[];
  /** The ids of the org's rows of the IST days from..to, folded so far. */
  span(fromDay: number, toDay: number): IdSpan;
}

/** A key as reports name it, revoked ones included (their usage still shows). */
export interface ReportKey {
  id: string;
  prefix: string;
  name: string;
  revoked_at: number | null;
  expires_at: number | null;
}

export interface EventFilter {
  model?: string;
  keyId?: string;
  /** One request's rows (its attempts), as x-request-id names it. */
  requestId?: string;
  /** 'ok' = 2xx, 'error' = anything else, a number = that status. */
  status?: 'ok' | 'error' | number;
  /**
   * Only rows with `at` in [fromMs, toMs), which all have ids in loId..hiId (OrgUsage.span of
   * those days, with hiId unbounded when the range reaches rows not folded yet).
   */
  range?: { fromMs: number; toMs: number; loId: number; hiId: number };
}

/** A usage row as the events feed shows it: without org, workspace and route, with the key's prefix. */
export interface UsageEventRow {
  id: number;
  at: number;
  request_id: string;
  key_id: string;
  key_prefix: string | null;
  endpoint: string;
  model: string;
  provider: string | null;
  attempt: number;
  status: number;
  error_code: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  units: number;
  cost_micros: number;
  latency_ms: number;
  ttfb_ms: number | null;
  streamed: number;
  billable: number;
  byok: number;
  usage_estimated: number;
  usage_clamped: number;
}

export interface EventPage {
  rows: UsageEventRow[];
  /** Continue with rows whose id is below this; null when no rows are left. */
  nextBefore: number | null;
}

export interface ExportStep {
  /** Raw rows in EXPORT_FIELDS order (no object per row). */
  rows: unknown[][];
  /** Continue below this id; null when the org's rows (or the range's) are done. */
  nextBefore: number | null;
}

/** A usage row as an export writes it, in this order. */
export const EXPORT_FIELDS = ['at', 'request_id', 'key_id', 'endpoint', 'model', 'provider', 'attempt', 'status', 'error_code', 'prompt_tokens',
  'completion_tokens', 'cached_tokens', 'cache_write_tokens', 'reasoning_tokens', 'units', 'cost_micros', 'latency_ms', 'ttfb_ms', 'streamed',
  'billable', 'byok', 'usage_estimated', 'usage_clamped'] as const;

/** The ledger as the usage reports read it (the rollup and the rows). */
export interface UsageReportStore {
  /** The org's rollup, including every row committed before this call. */
  usage(orgId: string): Promise<OrgUsage>;
  /** The last row id folded into the rollup: rows above it are not in it yet. */
  foldedUpTo(): number;
  /** The org's keys, oldest first, revoked ones included. */
  keys(orgId: string): Promise<ReportKey[]>;
  /** Usage rows of an org, newest first, below a row id. */
  events(orgId: string, before: number, limit: number, f: EventFilter): Promise<EventPage>;
  /** The next window of an export's rows, newest first, below a row id. */
  exportStep(orgId: string, before: number, f: EventFilter): Promise<ExportStep>;
}
