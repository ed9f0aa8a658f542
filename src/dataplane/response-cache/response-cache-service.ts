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
}

/** What a cached route serves a miss with: the route's own handler. */
export type Serve = (reply: ClientReply) => Promise<void>;

const MODES: Record<string, CacheMode> = { on: 'on', always: 'always', off: 'off' };

/**
 * The exact-match response cache (docs/cache.md), around an inference route: a request the cache
 * may answer is keyed by its org, route and normalised body; a hit is replayed (admitted by the
 * gate like any request, so limits hold, and recorded in the ledger as a hit, free); a miss is
 * served by the route and, when its answer was a clean 200, stored for `ttlMs`. Requests that send
 * no header, in the default mode `off`, never get here at a cost: one header read.
 */
export class ResponseCacheService {
  readonly #d: ResponseCacheDeps;

  constructor(deps: ResponseCacheDeps) {
    this.#d = deps;
  }

  /** The mode a request asked for; a bad header is refused in the route's shape. */
  modeOf(header: string | undefined): CacheMode {
    // The router reads an absent header as ''.
    if (header === undefined || header === '') return this.#d.defaultMode;
    const mode = MODES[header.trim().toLowerCase()];
    if (mode === undefined) throw errors.badRequest(`Invalid ${CACHE_HEADER} header: expected on, always or off`);
    return mode;
  }

  async handle(route: string, endpoint: TokenEndpoint, mode: CacheMode, key: KeyRecord, body: Buffer, reply: ClientReply, serve: Serve): Promise<void> {
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
    await serve(capture);
    const answer = capture.answer();
    if (answer === null) return;
    try {
      await d.store.put(k.key, key.orgId, answer, d.clock.now(), d.ttlMs);
    } catch (e) {
      d.log.warn('response cache: storing an answer failed', { err: String(e) });
    }
  }

  #replay(endpoint: TokenEndpoint, model: string, key: KeyRecord, hit: CachedAnswer, reply: ClientReply): Promise<void> {
    const d = this.#d;
    const started = performance.now();
    return admitted(key, d.gate, reply.requestId, () => ({ plan: [] }), () => 0, async (k, _p, requestId) => {
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
        attempt: 0, status: 200, errorCode: null, promptTokens: 0, completionTokens: 0, costMicros: 0, latencyMs: ms, ttfbMs: ms,
        streamed: hit.streamed, byok: false, billable: false, usageEstimated: false, units: 0, queueMs: 0, usageClamped: false,
        cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, guardrail: null, cacheHit: true,
      });
      return 0;
    });
  }
}
