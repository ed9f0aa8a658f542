import { istDayLabel, istDayNumber, istDayNumberStart } from '../lib/ist.js';
import { LogHistogram } from '../lib/log-histogram.js';
import type { TrafficRow } from '../store/traffic.js';

/** Days kept: the longest window anything reads (rankings' 30 days). */
const KEEP_DAYS = 30;
const STATS_DAYS = 7;
const RANKING_WINDOWS = [7, 30] as const;
/** Rows read per slice while rebuilding from the ledger; the event loop runs between slices. */
const SLICE = 5_000;

/** One upstream attempt as the book counts it (a usage record, or a ledger row read back). */
export interface TrafficSample {
  at: number;
  model: string;
  status: number;
  errorCode: string | null;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
  ttfbMs: number | null;
  billable: boolean;
}

interface Cell {
  /** Attempts that say something about the providers (not the caller's mistakes or departures). */
  attempts: number;
  successes: number;
  /** Requests served (billable attempts) and their tokens, for rankings. */
  served: number;
  tokens: number;
  /** Output tokens and the time taken to produce them, over successful attempts with output. */
  outputTokens: number;
  outputMs: number;
  /** Time to the answer's first byte, of successful attempts. */
  latency: LogHistogram;
}

export interface ModelStats {
  model: string;
  window_days: number;
  since: string;
  requests: number;
  attempts: number;
  success_rate: number | null;
  latency_ms: { p50: number | null; p95: number | null };
  tokens_per_second: number | null;
}

export interface Rankings {
  windows: { days: number; since: string; data: { rank: number; model: string; tokens: number; requests: number; share: number }[] }[];
}

/** The ledger as the rebuild reads it: synchronously on SQLite, with promises on PostgreSQL. */
export interface TrafficReader {
  firstIdSince(at: number): number | Promise<number>;
  lastId(): number | Promise<number>;
  page(afterId: number, upToId: number, limit: number): TrafficRow[] | Promise<TrafficRow[]>;
}

/**
 * Public traffic statistics per model and IST day, across all orgs: reliability, latency and
 * speed for /v1/models/:id/stats, token volume for /v1/rankings. Fed by every usage record as it
 * happens (a few increments), and rebuilt from the ledger's last 30 days at start, in slices.
 */
export class TrafficBook {
  readonly #days = new Map<number, Map<string, Cell>>();
  /** Only catalog models are counted: a provider/model-id a caller sends on its own key is theirs to name, without bound. */
  readonly #counts: (model: string) => boolean;
  #newestDay = 0;
  #ready: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(counts: (model: string) => boolean) {
    this.#counts = counts;
  }

  add(s: TrafficSample): void {
    if (!this.#counts(s.model)) return;
    const day = istDayNumber(s.at);
    let byModel = this.#days.get(day);
    if (byModel === undefined) {
      byModel = new Map();
      this.#days.set(day, byModel);
      if (day > this.#newestDay) this.#retire(day);
    }
    let c = byModel.get(s.model);
    if (c === undefined) {
      c = { attempts: 0, successes: 0, served: 0, tokens: 0, outputTokens: 0, outputMs: 0, latency: new LogHistogram() };
      byModel.set(s.model, c);
    }
    if (s.billable) {
      c.served++;
      c.tokens += s.promptTokens + s.completionTokens;
    }
    if (!countsForReliability(s.status)) return;
    c.attempts++;
    if (s.status < 200 || s.status > 299 || s.errorCode !== null) return;
    c.successes++;
    c.latency.add(s.ttfbMs ?? s.latencyMs);
    if (s.completionTokens > 0 && s.latencyMs > 0) {
      c.outputTokens += s.completionTokens;
      c.outputMs += s.latencyMs;
    }
  }

  /**
   * Rebuilds from the ledger rows up to `upToId` (rows after it arrive through add()). Readers
   * wait for it (ready), and get what was counted if it fails; the returned promise carries the
   * failure for the caller to log.
   */
  load(reader: Pick<TrafficReader, 'firstIdSince' | 'page'>, upToId: number, now: number): Promise<void> {
    const since = istDayNumberStart(istDayNumber(now) - KEEP_DAYS + 1);
    const run = (async () => {
      let after = (await reader.firstIdSince(since)) - 1;
      for (;;) {
        if (this.#stopped) return;
        const rows = await reader.page(after, upToId, SLICE);
        if (rows.length === 0) return;
        for (const r of rows) {
          this.add({
            at: r.at, model: r.model, status: r.status, errorCode: r.error_code, promptTokens: r.prompt_tokens,
            completionTokens: r.completion_tokens, latencyMs: r.latency_ms, ttfbMs: r.ttfb_ms, billable: r.billable === 1,
          });
        }
        after = rows[rows.length - 1].id;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    this.#ready = run.catch(() => undefined);
    return run;
  }

  /** Ends a rebuild still running (before the database closes). */
  stop(): void {
    this.#stopped = true;
  }

  /** Resolves once the rebuild from the ledger is done. */
  get ready(): Promise<void> {
    return this.#ready;
  }

  modelStats(model: string, now: number): ModelStats {
    const today = istDayNumber(now);
    const latency = new LogHistogram();
    let attempts = 0;
    let successes = 0;
    let served = 0;
    let outputTokens = 0;
    let outputMs = 0;
    for (let d = today - STATS_DAYS + 1; d <= today; d++) {
      const c = this.#days.get(d)?.get(model);
      if (c === undefined) continue;
      attempts += c.attempts;
      successes += c.successes;
      served += c.served;
      outputTokens += c.outputTokens;
      outputMs += c.outputMs;
      latency.merge(c.latency);
    }
    const round = (v: number | null) => (v === null ? null : Math.round(v * 10) / 10);
    return {
      model,
      window_days: STATS_DAYS,
      since: istDayLabel(today - STATS_DAYS + 1),
      requests: served,
      attempts,
      success_rate: attempts === 0 ? null : Math.round((successes / attempts) * 10_000) / 10_000,
      latency_ms: { p50: round(latency.quantile(0.5)), p95: round(latency.quantile(0.95)) },
      tokens_per_second: outputMs === 0 ? null : round(outputTokens / (outputMs / 1000)),
    };
  }

  rankings(now: number): Rankings {
    const today = istDayNumber(now);
    return {
      windows: RANKING_WINDOWS.map((days) => {
        const totals = new Map<string, { tokens: number; requests: number }>();
        for (let d = today - days + 1; d <= today; d++) {
          for (const [model, c] of this.#days.get(d) ?? []) {
            if (c.served === 0) continue;
            const t = totals.get(model) ?? { tokens: 0, requests: 0 };
            t.tokens += c.tokens;
            t.requests += c.served;
            totals.set(model, t);
          }
        }
        let sum = 0;
        for (const t of totals.values()) sum += t.tokens;
        const data = [...totals].sort((a, b) => b[1].tokens - a[1].tokens || b[1].requests - a[1].requests || (a[0] < b[0] ? -1 : 1))
          .map(([model, t], i) => ({ rank: i + 1, model, tokens: t.tokens, requests: t.requests, share: sum === 0 ? 0 : Math.round((t.tokens / sum) * 10_000) / 10_000 }));
        return { days, since: istDayLabel(today - days + 1), data };
      }),
    };
  }

  /** Forgets days that have left every window. */
  #retire(newest: number): void {
    this.#newestDay = newest;
    for (const day of this.#days.keys()) if (day <= newest - KEEP_DAYS) this.#days.delete(day);
  }
}

/**
 * Whether an attempt's outcome reflects the provider: a client that went away (499) or sent a
 * request the provider rightly refused (4xx other than 408 and 429) says nothing about it.
 */
function countsForReliability(status: number): boolean {
  if (status === 499) return false;
  return !(status >= 400 && status < 500 && status !== 408 && status !== 429);
}
