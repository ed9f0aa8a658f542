import { microsToInr } from '../../lib/money.js';
import type { Clock } from '../../lib/clock.js';
import { errors } from '../../errors/catalog.js';
import type { EventFilter, ReportKey, UsageCell, UsageReportStore } from '../../domain/stores/usage-report-store.js';
import { istDayLabel, istDayNumber } from '../../lib/ist.js';
import { dayRange, decodeCursor, encodeCursor, eventFilter, eventRange, parseLimit, WINDOW_DAYS } from './usage-query.js';

const TOP = 10;
/**
 * The most rows one export may hold: Excel opens 1,048,576 rows a sheet. A range with more is
 * refused before anything is sent (a cut-off file would look complete).
 */
export const EXPORT_MAX_ROWS = 1_000_000;

// ---- aggregation ----------------------------------------------------------------------------

/** The summable part of a rollup cell. */
type Tally = Pick<UsageCell, 'requests' | 'promptTokens' | 'completionTokens' | 'cachedTokens' | 'cacheWriteTokens' | 'reasoningTokens' | 'costMicros'>;

const tally = (): Tally => ({ requests: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, costMicros: 0 });

function add(t: Tally, c: UsageCell): void {
  t.requests += c.requests;
  t.promptTokens += c.promptTokens;
  t.completionTokens += c.completionTokens;
  t.cachedTokens += c.cachedTokens;
  t.cacheWriteTokens += c.cacheWriteTokens;
  t.reasoningTokens += c.reasoningTokens;
  t.costMicros += c.costMicros;
}

function tallyIn<K>(m: Map<K, Tally>, k: K, c: UsageCell): void {
  let t = m.get(k);
  if (t === undefined) m.set(k, (t = tally()));
  add(t, c);
}

const volumeOf = (t: Tally) => ({
  requests: t.requests, prompt_tokens: t.promptTokens, completion_tokens: t.completionTokens, cached_tokens: t.cachedTokens,
  cache_write_tokens: t.cacheWriteTokens, reasoning_tokens: t.reasoningTokens, cost: microsToInr(t.costMicros),
});

/** Most spend first, then most requests, then by name, so equal rows keep a stable order. */
const bySpend = <K extends string>([ak, a]: [K, Tally], [bk, b]: [K, Tally]) =>
  b.costMicros - a.costMicros || b.requests - a.requests || (ak < bk ? -1 : ak > bk ? 1 : 0);

function dailyRows(cells: Iterable<UsageCell>) {
  const m = new Map<string, Tally & { day: number; model: string }>();
  for (const c of cells) {
    const k = `${c.day}\u0000${c.model}`;
    let t = m.get(k);
    if (t === undefined) m.set(k, (t = { ...tally(), day: c.day, model: c.model }));
    add(t, c);
  }
  return [...m.values()]
    .sort((a, b) => a.day - b.day || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0))
    .map((t) => ({ day: istDayLabel(t.day), model: t.model, ...volumeOf(t) }));
}

const keyStatus = (k: ReportKey, now: number) => (k.revoked_at !== null ? 'revoked' : k.expires_at !== null && k.expires_at <= now ? 'expired' : 'active');

// ---- the service ----------------------------------------------------------------------------

export interface UsageServiceDeps {
  reports: UsageReportStore;
  clock: Clock;
}

/**
 * The org's usage reports (spec 4.12): per key, per day and model, activity over a range, the
 * events feed and its export, all in IST days and ₹, read from the ledger's rollup and rows.
 */
export class UsageService {
  readonly #d: UsageServiceDeps;

  constructor(deps: UsageServiceDeps) {
    this.#d = deps;
  }

  /** Per key: today and the last 30 IST days, keys without usage included. */
  async perKey(orgId: string) {
    const now = this.#d.clock.now();
    const today = istDayNumber(now);
    const from = today - WINDOW_DAYS + 1;
    const usage = await this.#d.reports.usage(orgId);
    const perKey = new Map<string, { today: Tally; window: Tally }>();
    for (const c of usage.cells(from, today)) {
      let k = perKey.get(c.keyId);
      if (k === undefined) perKey.set(c.keyId, (k = { today: tally(), window: tally() }));
      add(k.window, c);
      if (c.day === today) add(k.today, c);
    }
    return {
      today: istDayLabel(today),
      from: istDayLabel(from),
      data: (await this.#d.reports.keys(orgId)).map((k) => {
        const u = perKey.get(k.id);
        return {
          id: k.id, prefix: k.prefix, name: k.name, status: keyStatus(k, now),
          today: volumeOf(u?.today ?? tally()), last_30_days: volumeOf(u?.window ?? tally()),
        };
      }),
    };
  }

  /** The last 30 IST days by day and model. */
  async daily(orgId: string) {
    const to = istDayNumber(this.#d.clock.now());
    const from = to - WINDOW_DAYS + 1;
    const usage = await this.#d.reports.usage(orgId);
    return { from: istDayLabel(from), to: istDayLabel(to), data: dailyRows(usage.cells(from, to)) };
  }

  /** Spend and volume from..to: by day and model, top models and keys, the provider split, totals. */
  async activity(orgId: string, q: Map<string, string>) {
    const { from, to } = dayRange(q, istDayNumber(this.#d.clock.now()));

    const usage = await this.#d.reports.usage(orgId);
    const totals = tally();
    const models = new Map<string, Tally>();
    const keys = new Map<string, Tally>();
    const providers = new Map<string, { served: number; costMicros: number }>();
    const cells = usage.cells(from, to);
    for (const c of cells) {
      add(totals, c);
      tallyIn(models, c.model, c);
      tallyIn(keys, c.keyId, c);
      if (c.served > 0 && c.provider !== null) {
        let p = providers.get(c.provider);
        if (p === undefined) providers.set(c.provider, (p = { served: 0, costMicros: 0 }));
        p.served += c.served;
        p.costMicros += c.costMicros;
      }
    }
    const keyInfo = new Map((await this.#d.reports.keys(orgId)).map((k) => [k.id, k]));
    return {
      from: istDayLabel(from),
      to: istDayLabel(to),
      totals: volumeOf(totals),
      events: usage.span(from, to).rows,
      daily: dailyRows(cells),
      top_models: [...models].sort(bySpend).slice(0, TOP).map(([model, t]) => ({ model, ...volumeOf(t) })),
      top_keys: [...keys].sort(bySpend).slice(0, TOP).map(([id, t]) => {
        const k = keyInfo.get(id);
        return { id, prefix: k?.prefix ?? null, name: k?.name ?? null, ...volumeOf(t) };
      }),
      providers: [...providers]
        .sort(([an, a], [bn, b]) => b.costMicros - a.costMicros || b.served - a.served || (an < bn ? -1 : 1))
        .map(([provider, p]) => ({
          provider, requests: p.served, cost: microsToInr(p.costMicros),
          share: totals.costMicros === 0 ? 0 : Math.round((p.costMicros / totals.costMicros) * 10_000) / 10_000,
        })),
    };
  }

  /** A page of per-attempt rows, newest first, below the cursor. */
  async events(orgId: string, q: Map<string, string>) {
    const limit = parseLimit(q.get('limit'));
    const before = q.has('cursor') ? decodeCursor(q.get('cursor')!) : Number.MAX_SAFE_INTEGER;
    const filter: EventFilter = eventFilter(q);
    if (q.has('from') || q.has('to')) {
      const today = istDayNumber(this.#d.clock.now());
      const { from, to } = dayRange(q, today);
      filter.range = (await eventRange(this.#d.reports, orgId, from, to, today)).range;
    }
    const page = await this.#d.reports.events(orgId, before, limit, filter);
    return {
      data: page.rows.map((r) => ({
        at: new Date(r.at).toISOString(), request_id: r.request_id, key_id: r.key_id, key_prefix: r.key_prefix,
        endpoint: r.endpoint, model: r.model, provider: r.provider, attempt: r.attempt, status: r.status, error_code: r.error_code,
        prompt_tokens: r.prompt_tokens, completion_tokens: r.completion_tokens, cached_tokens: r.cached_tokens,
        cache_write_tokens: r.cache_write_tokens, reasoning_tokens: r.reasoning_tokens, cost: microsToInr(r.cost_micros),
        latency_ms: r.latency_ms, ttfb_ms: r.ttfb_ms, streamed: r.streamed === 1, billable: r.billable === 1, byok: r.byok === 1,
        usage_estimated: r.usage_estimated === 1, units: r.units, usage_clamped: r.usage_clamped === 1,
      })),
      next_cursor: page.nextBefore === null ? null : encodeCursor(page.nextBefore),
    };
  }

  /**
   * What an export of from..to reads (its filter with the range's ids, the org's keys by id);
   * refuses a range of more than EXPORT_MAX_ROWS events before anything is sent.
   */
  async exportPlan(orgId: string, q: Map<string, string>): Promise<{ from: string; to: string; filter: EventFilter; keys: Map<string, ReportKey> }> {
    const filter = eventFilter(q);
    const today = istDayNumber(this.#d.clock.now());
    const { from, to } = dayRange(q, today);
    const { range, rows } = await eventRange(this.#d.reports, orgId, from, to, today);
    if (rows > EXPORT_MAX_ROWS) {
      throw errors.badRequest(`${istDayLabel(from)} to ${istDayLabel(to)} holds ${rows.toLocaleString('en')} events and one export takes at most `
        + `${EXPORT_MAX_ROWS.toLocaleString('en')}: choose a shorter range`);
    }
    filter.range = range;
    return { from: istDayLabel(from), to: istDayLabel(to), filter, keys: new Map((await this.#d.reports.keys(orgId)).map((k) => [k.id, k])) };
  }

  /** The next window of an export's rows, below a row id. */
  exportStep(orgId: string, before: number, filter: EventFilter) {
    return this.#d.reports.exportStep(orgId, before, filter);
  }
}
