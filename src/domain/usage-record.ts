/**
 * The usage record: one upstream attempt as the ledger stores it, one row of the `usage` table.
 * This list is its only spelling. The record type the data plane fills, the batch encoding that
 * carries it to the ledger writer (src/ledger/usage-batch.ts), the INSERT and its row tuple
 * (src/store/usage.ts) and the row type readers get back are all derived from it, and
 * test/domain/usage-record.test.ts checks it against the table schema.sql builds.
 *
 * Adding a column: one line here (name, column, kind) and an `ALTER TABLE usage ADD COLUMN` in a
 * new schema.sql migration, with a DEFAULT so that older rows read as before.
 */
export const USAGE_FIELDS = [
  { name: 'at', column: 'at', kind: 'int' },
  { name: 'requestId', column: 'request_id', kind: 'text-unique' },
  { name: 'orgId', column: 'org_id', kind: 'text' },
  { name: 'workspaceId', column: 'workspace_id', kind: 'text' },
  { name: 'keyId', column: 'key_id', kind: 'text' },
  { name: 'endpoint', column: 'endpoint', kind: 'text' },
  { name: 'model', column: 'model', kind: 'text' },
  { name: 'provider', column: 'provider', kind: 'text?' },
  { name: 'route', column: 'route', kind: 'text?' },
  { name: 'attempt', column: 'attempt', kind: 'int' },
  { name: 'status', column: 'status', kind: 'int' },
  { name: 'errorCode', column: 'error_code', kind: 'text?' },
  { name: 'promptTokens', column: 'prompt_tokens', kind: 'int' },
  { name: 'completionTokens', column: 'completion_tokens', kind: 'int' },
  { name: 'costMicros', column: 'cost_micros', kind: 'micros' },
  { name: 'latencyMs', column: 'latency_ms', kind: 'ms' },
  { name: 'ttfbMs', column: 'ttfb_ms', kind: 'ms?' },
  { name: 'streamed', column: 'streamed', kind: 'bool' },
  { name: 'byok', column: 'byok', kind: 'bool' },
  // The attempt that served the request (at most one per request); only these are debited.
  { name: 'billable', column: 'billable', kind: 'bool' },
  // The provider reported no usage: the token counts are the gateway's estimate.
  { name: 'usageEstimated', column: 'usage_estimated', kind: 'bool' },
  // What an audio request is billed on: seconds of audio (transcriptions), characters (speech); 0 otherwise.
  { name: 'units', column: 'units', kind: 'int' },
  // How long the attempt waited for a free upstream connection (upstream.connectionsPerOrigin).
  { name: 'queueMs', column: 'queue_ms', kind: 'ms' },
  // The provider reported more tokens than the request could have used: the counts (and cost) were cut to the bounds.
  { name: 'usageClamped', column: 'usage_clamped', kind: 'bool' },
  // Of promptTokens: read from the provider's prompt cache.
  { name: 'cachedTokens', column: 'cached_tokens', kind: 'int' },
  // Of promptTokens: written to the provider's prompt cache.
  { name: 'cacheWriteTokens', column: 'cache_write_tokens', kind: 'int' },
  // Of completionTokens: spent reasoning.
  { name: 'reasoningTokens', column: 'reasoning_tokens', kind: 'int' },
  // What the request's guardrail did ('redacted=aadhaar,pan', 'blocked=card'); null when nothing fired.
  { name: 'guardrail', column: 'guardrail', kind: 'text?' },
  // Answered from the exact-match response cache: no provider, no cost (docs/cache.md).
  { name: 'cacheHit', column: 'cache_hit', kind: 'bool' },
] as const satisfies readonly UsageField[];

/**
 * How a field is typed, stored and carried to the writer:
 * - `text`: a string (TEXT NOT NULL); rows of a batch mostly share it, so a batch carries it once.
 * - `text-unique`: a string new on every row (the request id): carried without looking it up.
 * - `text?`: a string or null (TEXT).
 * - `int`: an integer (INTEGER NOT NULL): counts, statuses, epoch milliseconds.
 * - `micros`: money in micro-rupees (INTEGER NOT NULL).
 * - `ms`: a duration in milliseconds (REAL NOT NULL), stored to the microsecond.
 * - `ms?`: a duration or null (REAL).
 * - `bool`: a flag (INTEGER NOT NULL, 0 or 1).
 */
export type UsageKind = 'text' | 'text-unique' | 'text?' | 'int' | 'micros' | 'ms' | 'ms?' | 'bool';

export interface UsageField {
  /** The record's property. */
  readonly name: string;
  /** The usage table's column. */
  readonly column: string;
  readonly kind: UsageKind;
}

/** A kind's value in the record the data plane fills. */
interface RecordValue {
  text: string;
  'text-unique': string;
  'text?': string | null;
  int: number;
  micros: number;
  ms: number;
  'ms?': number | null;
  bool: boolean;
}

/** A kind's value as SQLite takes it (the insert's parameters) and gives it back (a row). */
interface ColumnValue extends Omit<RecordValue, 'bool'> {
  bool: 0 | 1;
}

type Field = (typeof USAGE_FIELDS)[number];

/** One upstream attempt as the ledger stores it: one property per field. */
export type UsageRecord = { [F in Field as F['name']]: RecordValue[F['kind']] };

/** The usage table's columns as a row read back has them (without its `id`). */
export type UsageColumns = { [F in Field as F['column']]: ColumnValue[F['kind']] };

type Tuple<T extends readonly UsageField[]> = { -readonly [I in keyof T]: T[I] extends UsageField ? ColumnValue[T[I]['kind']] : never };

/** A record as the insert's parameters, in the order of USAGE_FIELDS. */
export type UsageTuple = Tuple<typeof USAGE_FIELDS>;

/** Each field's place in a UsageTuple (and in a row of the encoded batch). */
export const USAGE_SLOT = Object.freeze(Object.fromEntries(USAGE_FIELDS.map((f, i) => [f.name, i]))) as {
  readonly [K in keyof UsageRecord]: number;
};

/** Where the data plane hands usage records; never awaited per request. */
export interface UsageSink {
  record(r: UsageRecord): void;
}
