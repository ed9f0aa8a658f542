import { Type, type Static } from '@sinclair/typebox';
import { fetch } from 'undici';
import type { Catalog } from '../catalog/catalog.js';
import type { Config } from '../config/schema.js';
import { type RouteSpec, route } from '../domain/route-spec.js';
import { errors } from '../errors/catalog.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { ProxyDispatchers } from './proxy-dispatchers.js';
import { readBounded } from './bounded-body.js';

const PerMillion = Type.Object({
  input: Type.Number(), output: Type.Number(),
  cached_input: Type.Optional(Type.Number({ description: 'input read from the prompt cache, where priced' })),
}, { description: '₹ per 1M tokens' });
const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

export const PriceCompareBody = Type.Object({
  source: Type.String({ description: 'the other router\'s model list' }),
  usd_inr: Type.Number({ description: '₹ per US$ used to convert its prices' }),
  fetched_at: Type.String(),
  stale: Type.Boolean({ description: 'the last refresh failed: these are the figures fetched at fetched_at' }),
  data: Type.Array(Type.Object({
    model: Type.String(),
    compare_id: Type.String({ description: 'the model\'s id at the other router' }),
    gateway: PerMillion,
    other: Type.Union([PerMillion, Type.Null()], { description: 'null when the other router does not list the model' }),
    difference_pct: Type.Union([Type.Object({ input: NullableNumber, output: NullableNumber }), Type.Null()],
      { description: '(gateway − other) / other × 100: negative when the gateway is cheaper; null where the other price is 0' }),
  })),
});
export type PriceCompare = Static<typeof PriceCompareBody>;

interface Listed {
  input: number;
  output: number;
  cachedInput?: number;
}

/**
 * GET /v1/pricing/compare: the catalog's INR prices beside another router's, read from its public
 * model list (USD a token) and converted at `usdInr`. Fetched when first asked for, then at most
 * once per `refreshMs` (one fetch at a time); when a refresh fails the last figures are served,
 * marked stale, and with none yet the read is 503 `unavailable`. No request ever waits on the
 * source longer than `timeoutMs`, and a list over `maxBytes` is refused.
 */
export class PriceComparer {
  readonly #cfg: Config['pricingCompare'];
  readonly #models: { model: string; compareId: string; input: number; output: number; cachedInput?: number }[];
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #dispatchers: ProxyDispatchers;
  #cached: PriceCompare | null = null;
  #cachedAt = 0;
  #inflight: Promise<PriceCompare> | null = null;

  constructor(catalog: Catalog, config: Readonly<Config>, clock: Clock, log: Logger, outbound: ProxyDispatchers) {
    this.#cfg = config.pricingCompare;
    this.#clock = clock;
    this.#log = log;
    this.#dispatchers = outbound;
    this.#models = [...catalog.models.values()].filter((m) => m.entry.compareId !== undefined)
      .map((m) => ({
        model: m.id, compareId: m.entry.compareId!, input: m.entry.priceInr.input, output: m.entry.priceInr.output,
        cachedInput: m.entry.priceInr.cachedInput,
      }));
  }

  read(): Promise<PriceCompare> {
    if (this.#cfg.sourceUrl === '') return Promise.reject(errors.serviceUnavailable('Price comparison is turned off on this gateway'));
    if (this.#cached !== null && this.#clock.now() - this.#cachedAt < this.#cfg.refreshMs) return Promise.resolve(this.#cached);
    this.#inflight ??= this.#refresh().finally(() => {
      this.#inflight = null;
    });
    return this.#inflight;
  }

  async #refresh(): Promise<PriceCompare> {
    let listed: Map<string, Listed>;
    try {
      listed = parseList(await this.#fetchList());
    } catch (e) {
      this.#log.warn('price comparison source could not be read', { source: this.#cfg.sourceUrl, err: String((e as Error).message) });
      if (this.#cached === null) throw errors.serviceUnavailable('Price comparison is unavailable: its source could not be read; try again shortly');
      // Retried after the next interval, not on every read.
      this.#cachedAt = this.#clock.now();
      this.#cached = { ...this.#cached, stale: true };
      return this.#cached;
    }
    const now = this.#clock.now();
    const rate = this.#cfg.usdInr;
    const inr = (usdPerToken: number) => round(usdPerToken * 1_000_000 * rate, 4);
    const pct = (ours: number, theirs: number) => (theirs === 0 ? null : round(((ours - theirs) / theirs) * 100, 1));
    this.#cached = {
      source: this.#cfg.sourceUrl,
      usd_inr: rate,
      fetched_at: new Date(now).toISOString(),
      stale: false,
      data: this.#models.map((m) => {
        const l = listed.get(m.compareId);
        const other = l === undefined ? null
          : { input: inr(l.input), output: inr(l.output), ...(l.cachedInput === undefined ? {} : { cached_input: inr(l.cachedInput) }) };
        return {
          model: m.model,
          compare_id: m.compareId,
          gateway: { input: m.input, output: m.output, ...(m.cachedInput === undefined ? {} : { cached_input: m.cachedInput }) },
          other,
          difference_pct: other === null ? null : { input: pct(m.input, other.input), output: pct(m.output, other.output) },
        };
      }),
    };
    this.#cachedAt = now;
    return this.#cached;
  }

  async #fetchList(): Promise<unknown> {
    const url = this.#cfg.sourceUrl;
    const res = await fetch(url, {
      headers: { accept: 'application/json', 'user-agent': 'gw-gateway (pricing compare)' },
      signal: AbortSignal.timeout(this.#cfg.timeoutMs), dispatcher: this.#dispatchers.for(url),
    });
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new Error(`HTTP ${res.status}`);
    }
    return JSON.parse((await readBounded(res, this.#cfg.maxBytes)).toString('utf8'));
  }
}

/** `{data: [{id, pricing: {prompt, completion, input_cache_read?}}]}` with USD a token as strings or numbers. */
function parseList(doc: unknown): Map<string, Listed> {
  const data = (doc as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw new Error('the answer has no data list');
  const out = new Map<string, Listed>();
  for (const m of data as { id?: unknown; pricing?: { prompt?: unknown; completion?: unknown; input_cache_read?: unknown } }[]) {
    if (typeof m?.id !== 'string' || m.pricing === undefined || m.pricing === null) continue;
    const input = Number(m.pricing.prompt);
    const output = Number(m.pricing.completion ?? 0);
    if (!Number.isFinite(input) || !Number.isFinite(output) || input < 0 || output < 0) continue;
    const cached = m.pricing.input_cache_read === undefined ? NaN : Number(m.pricing.input_cache_read);
    out.set(m.id, Number.isFinite(cached) && cached >= 0 ? { input, output, cachedInput: cached } : { input, output });
  }
  return out;
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

export function pricingRoutes(comparer: PriceComparer): RouteSpec[] {
  return [route({
    kind: 'json', method: 'get', path: '/v1/pricing/compare', auth: 'public', response: PriceCompareBody,
    summary: 'The catalog\'s INR prices beside another router\'s, converted to INR, refreshed hourly',
    handle: async () => ({ body: await comparer.read() }),
  })];
}
