import type { UsageRecord } from '../dataplane/usage-record.js';
import type { UsageTuple } from '../store/usage.js';

/**
 * A batch of usage records as it crosses to the ledger writer: every field a number in one
 * Float64Array (a copy, when cloned), the text fields as indexes into a table of the batch's
 * distinct strings. Built a record at a time, so the main thread never serialises a whole batch
 * at once: JSON.stringify of 1,000 rows was ~7,000 instructions a row (bench:instructions) and
 * a pause of a few milliseconds every flush, and the writer then parsed the text back.
 */
export interface EncodedBatch {
  count: number;
  values: Float64Array;
  strings: string[];
}

/** Slots of one row, in UsageTuple order; text fields hold a string index, or -1 for null. */
const WIDTH = 27;
const enum Slot {
  At, RequestId, OrgId, WorkspaceId, KeyId, Endpoint, Model, Provider, Route, Attempt, Status, ErrorCode,
  PromptTokens, CompletionTokens, CostMicros, LatencyMs, TtfbMs, Streamed, Byok, Billable, UsageEstimated, Units,
  QueueMs,
  UsageClamped,
  CachedTokens, CacheWriteTokens, ReasoningTokens,
}
/** Rows room is made for at first; it doubles as needed, and is kept for the next batch. */
const FIRST_CAPACITY = 16;

export class UsageBatchBuilder {
  #values = new Float64Array(FIRST_CAPACITY * WIDTH);
  #strings: string[] = [];
  #index = new Map<string, number>();
  /** Each text field's value in the last row, and its index. */
  #lastText: (string | null)[] = new Array<string | null>(WIDTH).fill(null);
  readonly #lastIndex = new Int32Array(WIDTH);
  count = 0;

  add(r: UsageRecord): void {
    if ((this.count + 1) * WIDTH > this.#values.length) this.#grow();
    const v = this.#values;
    const o = this.count * WIDTH;
    v[o + Slot.At] = r.at;
    v[o + Slot.RequestId] = this.#unique(r.requestId);
    v[o + Slot.OrgId] = this.#text(Slot.OrgId, r.orgId);
    v[o + Slot.WorkspaceId] = this.#text(Slot.WorkspaceId, r.workspaceId);
    v[o + Slot.KeyId] = this.#text(Slot.KeyId, r.keyId);
    v[o + Slot.Endpoint] = this.#text(Slot.Endpoint, r.endpoint);
    v[o + Slot.Model] = this.#text(Slot.Model, r.model);
    v[o + Slot.Provider] = this.#text(Slot.Provider, r.provider);
    v[o + Slot.Route] = this.#text(Slot.Route, r.route);
    v[o + Slot.Attempt] = r.attempt;
    v[o + Slot.Status] = r.status;
    v[o + Slot.ErrorCode] = this.#text(Slot.ErrorCode, r.errorCode);
    v[o + Slot.PromptTokens] = r.promptTokens;
    v[o + Slot.CompletionTokens] = r.completionTokens;
    v[o + Slot.CostMicros] = r.costMicros;
    v[o + Slot.LatencyMs] = r.latencyMs;
    v[o + Slot.TtfbMs] = r.ttfbMs === null ? Number.NaN : r.ttfbMs;
    v[o + Slot.Streamed] = r.streamed ? 1 : 0;
    v[o + Slot.Byok] = r.byok ? 1 : 0;
    v[o + Slot.Billable] = r.billable ? 1 : 0;
    v[o + Slot.UsageEstimated] = r.usageEstimated ? 1 : 0;
    v[o + Slot.Units] = r.units;
    v[o + Slot.QueueMs] = r.queueMs;
    v[o + Slot.UsageClamped] = r.usageClamped ? 1 : 0;
    v[o + Slot.CachedTokens] = r.cachedTokens;
    v[o + Slot.CacheWriteTokens] = r.cacheWriteTokens;
    v[o + Slot.ReasoningTokens] = r.reasoningTokens;
    this.count++;
  }

  /**
   * The batch so far, its numbers copied out at their exact size; the builder starts a new one in
   * the same array. A fresh array per batch, regrown as the batch filled, made two or three
   * typed arrays a batch where this makes one (~1 µs each, with their share of GC).
   */
  take(): EncodedBatch {
    const batch = { count: this.count, values: this.#values.slice(0, this.count * WIDTH), strings: this.#strings };
    this.#strings = [];
    this.#index.clear();
    this.#lastText.fill(null);
    this.count = 0;
    return batch;
  }

  #text(slot: Slot, s: string | null): number {
    // A field that is not a string (a caller's bug) reaches the writer as null, for a NOT NULL
    // column to refuse the batch (which then goes to the dead-letter file) rather than store junk.
    if (typeof s !== 'string') return -1;
    // Consecutive rows mostly repeat each field's value (one key, model, route): a comparison
    // with the field's last value spares the map read, and hashing a string that is new each
    // request (the model read from the body), ~0.5k instructions a row (bench:instructions).
    if (this.#lastText[slot] === s) return this.#lastIndex[slot];
    let i = this.#index.get(s);
    if (i === undefined) {
      i = this.#strings.length;
      this.#strings.push(s);
      this.#index.set(s, i);
    }
    this.#lastText[slot] = s;
    this.#lastIndex[slot] = i;
    return i;
  }

  /** A string no other row shares (a request id): appended without looking it up. */
  #unique(s: string): number {
    if (typeof s !== 'string') return -1;
    this.#strings.push(s);
    return this.#strings.length - 1;
  }

  #grow(): void {
    const next = new Float64Array(this.#values.length * 2);
    next.set(this.#values);
    this.#values = next;
  }
}

/** The batch as rows for the writer (and the dead-letter file). Times are kept to the microsecond. */
export function decodeBatch(b: EncodedBatch): UsageTuple[] {
  const v = b.values;
  const s = b.strings;
  const text = (x: number): string | null => (x < 0 ? null : s[x]);
  const flag = (x: number): 0 | 1 => (x === 1 ? 1 : 0);
  const rows: UsageTuple[] = new Array(b.count);
  for (let r = 0; r < b.count; r++) {
    const o = r * WIDTH;
    const ttfb = v[o + Slot.TtfbMs];
    rows[r] = [
      v[o + Slot.At], text(v[o + Slot.RequestId])!, text(v[o + Slot.OrgId])!, text(v[o + Slot.WorkspaceId])!, text(v[o + Slot.KeyId])!,
      text(v[o + Slot.Endpoint])!, text(v[o + Slot.Model])!, text(v[o + Slot.Provider]), text(v[o + Slot.Route]),
      v[o + Slot.Attempt], v[o + Slot.Status], text(v[o + Slot.ErrorCode]), v[o + Slot.PromptTokens], v[o + Slot.CompletionTokens],
      v[o + Slot.CostMicros], micros(v[o + Slot.LatencyMs]), Number.isNaN(ttfb) ? null : micros(ttfb), flag(v[o + Slot.Streamed]),
      flag(v[o + Slot.Byok]), flag(v[o + Slot.Billable]), flag(v[o + Slot.UsageEstimated]), v[o + Slot.Units],
      micros(v[o + Slot.QueueMs]),
      flag(v[o + Slot.UsageClamped]),
      v[o + Slot.CachedTokens], v[o + Slot.CacheWriteTokens], v[o + Slot.ReasoningTokens],
    ];
  }
  return rows;
}

function micros(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
