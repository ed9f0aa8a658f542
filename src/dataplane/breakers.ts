import { LRUCache } from 'lru-cache';
import CircuitBreaker from 'opossum';
import type { Config } from '../config/schema.js';
import { isGatewayError } from '../errors/gateway-error.js';
import { RouteFailure, SATURATED } from './route-failure.js';

import type { BreakerState } from '../domain/breaker-state.js';

export type { BreakerState };

type Action = () => Promise<unknown>;
type Breaker = CircuitBreaker<[Action], unknown>;

/** Breakers of direct routes (provider/model-id on the caller's key) kept at once; the least recently used goes first. */
const DIRECT_BREAKERS = 1_000;

/**
 * One opossum breaker per route. A route opens after repeated failures in the rolling window and
 * lets a trial request through after resetTimeout (about 30 s). Upstream client errors (4xx that
 * are the caller's fault) are GatewayErrors and do not count against the route.
 */
export class Breakers {
  readonly #opts: CircuitBreaker.Options;
  readonly #byRoute = new Map<string, Breaker>();
  /** Callers name direct routes, so their number has no bound of its own. */
  readonly #direct = new LRUCache<string, Breaker>({ max: DIRECT_BREAKERS, dispose: (b) => b.shutdown() });

  constructor(cfg: Config['breaker']) {
    this.#opts = {
      timeout: false, // the upstream client enforces connect/headers/body timeouts itself
      resetTimeout: cfg.resetTimeoutMs,
      errorThresholdPercentage: cfg.errorThresholdPercentage,
      volumeThreshold: cfg.volumeThreshold,
      rollingCountTimeout: cfg.rollingWindowMs,
      rollingCountBuckets: 10,
      // A full connection pool is the gateway's own limit: the route is not failing.
      errorFilter: (err: unknown) => isGatewayError(err) || (err instanceof RouteFailure && err.code === SATURATED),
      // The route's latency figures are kept by RouteStats; opossum's rolling percentiles would
      // concat and sort every latency in the window each second (seen at ~3% of CPU under load).
      rollingPercentilesEnabled: false,
      enableSnapshots: false,
    };
  }

  #get(route: { id: string; direct: boolean }): Breaker {
    const map = route.direct ? this.#direct : this.#byRoute;
    let b = map.get(route.id);
    if (!b) {
      b = new CircuitBreaker<[Action], unknown>((action: Action) => action(), { ...this.#opts, name: route.id });
      map.set(route.id, b);
    }
    return b;
  }

  /** Runs one attempt through the route's breaker; rejects at once when it is open. */
  fire<T>(route: { id: string; direct: boolean }, action: () => Promise<T>): Promise<T> {
    return this.#get(route).fire(action) as Promise<T>;
  }

  state(routeId: string): BreakerState {
    const b = this.#byRoute.get(routeId) ?? this.#direct.peek(routeId);
    if (!b) return 'closed';
    if (b.halfOpen) return 'half_open';
    return b.opened ? 'open' : 'closed';
  }

  /** True when a request sent now would be refused without trying the upstream. */
  isOpen(routeId: string): boolean {
    const b = this.#byRoute.get(routeId) ?? this.#direct.peek(routeId);
    return b !== undefined && b.opened && !b.halfOpen;
  }

  shutdown(): void {
    for (const b of this.#byRoute.values()) b.shutdown();
    this.#direct.clear();
  }
}

export function isOpenBreakerError(e: unknown): boolean {
  return (e as { code?: string })?.code === 'EOPENBREAKER';
}
