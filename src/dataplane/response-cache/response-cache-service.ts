import { performance } from 'node:perf_hooks';
import type { ClientReply } from '../../domain/client-reply.js';
import type { KeyRecord } from '../../domain/key-record.js';
import type { RequestGate } from '../../domain/request-gate.js';
import type { CachedAnswer, ResponseCacheStore } from '../../domain/stores/response-cache-store.js';
import type { UsageSink } from '../../domain/usage-record.js';
import { errors } from '../../errors/catalog.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { TokenEndpoint } from '../../providers/types.js';
import { admitted } from '../admission.js';
import { cacheKeyOf, type CacheMode } from './cache-key.js';
import { CapturingReply } from './capturing-reply.js';

export const CACHE_HEADER = 'x-gw-cache';

export interface ResponseCacheDeps {
  store: ResponseCacheStore;
  gate: RequestGate;
  usage: UsageSink;
  clock: Clock;
  log: Logger;
  /** The mode of a request that sends no x-gw-cache header (config responseCache.mode). */
  defaultMode: CacheMode;
  ttlMs: number;
  /** Answers larger than this are not stored. */
  maxEntryBytes: number;
  /** A hit is billed this percentage (0-100) of what its answer cost when first served (config responseCache.hitCostPercent). */
  hitCostPercent: number;
}

/** What a cached route serves a miss with: the route's own handler, resolving to the cost it billed. */
export type Serve = (reply: ClientReply) => Promise<number>;

// A Map, not an object's members: a name a client sends such as "constructor" would find Object.prototype's.
const MODES = new Map<string, CacheMode>([['on', 'on'], ['always', 'always'], ['off', 'off']]);

/**
 * The exact-match response cache (docs/cache.md), around an inference route: a request the cache
 * may answer is keyed by its org, route and normalised body; a hit is replayed (admitted by the
 * gate like any request, so limits and the balance hold, billed `hitCostPercent` of its answer's
 * first cost, free by default, and recorded in the ledger as a hit); a miss is served by the route
 * and, when its answer was a clean 200, stored for `ttlMs` with what it cost. Requests that send
 * no header, from a key whose mode (its own, its org's, the config's) is `off`, never get here at a
 * cost: one header read and one field of the key's record.
 */
export class ResponseCacheService {
  readonly #d: ResponseCacheDeps;

  constructor(deps: ResponseCacheDeps) {
    this.#d = deps;
  }

  /**
   * The mode of a request: its header's, else its key's (the key's own, else its org's, read with
   * the key's record), else the config's. A bad header is refused in the route's shape.
   */
  modeOf(header: string | undefined, key: KeyRecord): CacheMode {
    // The router reads an absent header as ''. The key's mode is a field of the record the router
    // already holds, its org's folded in by the key lookup: nothing is looked up per request.
    if (header === undefined || header === '') return key.responseCache ?? this.#d.defaultMode;
    const mode = MODES.get(header.trim().toLowerCase());
    if (mode === undefined) throw errors.badRequest(`Invalid ${CACHE_HEADER} header: expected on, always or off`);
    return mode;
  }

  /** Resolves to the cost billed (a hit's, or the route's on a miss). */
  async handle(route: string, endpoint: TokenEndpoint, mode: CacheMode, key: KeyRecord, body: Buffer, reply: ClientReply, serve: Serve): Promise<number> {
    const k = cacheKeyOf(key.orgId, route, body, mode, endpoint === 'embeddings');
    if ('bypass' in k) return serve(reply);
    const d = this.#d;
    let hit: CachedAnswer | null = null;
    try {
      hit = await d.store.get(k.key, d.clock.now());
    } catch (e) {
      d.log.warn('response cache: a read failed; the request is served', { err: String(e) });
    }
    if (hit !== null) return this.#replay(endpoint, k.model, key, hit, reply);
    const capture = new CapturingReply(reply, d.maxEntryBytes, { [CACHE_HEADER]: 'miss' });
    const cost = await serve(capture);
    const answer = capture.answer(cost);
    if (answer === null) return cost;
    try {
      await d.store.put(k.key, key.orgId, answer, d.clock.now(), d.ttlMs);
    } catch (e) {
      d.log.warn('response cache: storing an answer failed', { err: String(e) });
    }
    return cost;
  }

  /**
   * A hit: held against the balance and settled like any request (its hold is its price, so an org
   * that cannot pay is refused as it would be for a call to a provider), and one ledger row. A
   * trial key's hit is free, as its requests are.
   */
  #replay(endpoint: TokenEndpoint, model: string, key: KeyRecord, hit: CachedAnswer, reply: ClientReply): Promise<number> {
    const d = this.#d;
    const started = performance.now();
    const price = key.tier === 'trial' ? 0 : hitCostMicros(hit.costMicros, d.hitCostPercent);
    return admitted(key, d.gate, reply.requestId, () => ({ plan: [] }), () => price, async (k, _p, requestId) => {
      const headers = { ...hit.headers, [CACHE_HEADER]: 'hit' };
      if (hit.streamed) {
        reply.streamStart(hit.status, hit.contentType, headers, hit.body);
        reply.streamEnd();
      } else {
        reply.send(hit.status, hit.contentType, hit.body, headers);
      }
      const ms = performance.now() - started;
      d.usage.record({
        at: d.clock.now(), requestId, orgId: k.orgId, workspaceId: k.workspaceId, keyId: k.id, endpoint, model, provider: null, route: null,
        attempt: 0, status: 200, errorCode: null, promptTokens: 0, completionTokens: 0, costMicros: price, latencyMs: ms, ttfbMs: ms,
        streamed: hit.streamed, byok: false, billable: price > 0, usageEstimated: false, units: 0, queueMs: 0, usageClamped: false,
        cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, guardrail: null, cacheHit: true,
      });
      return price;
    });
  }
}

/** A hit's price: `percent` of its answer's first cost, rounded to the micro-rupee the ledger counts in. */
export function hitCostMicros(firstCostMicros: number, percent: number): number {
  return Math.round(firstCostMicros * percent / 100);
}
