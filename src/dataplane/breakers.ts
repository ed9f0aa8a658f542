import { performance } from 'node:perf_hooks';
import { LRUCache } from 'lru-cache';
import type { Config } from '../config/schema.js';
import { isGatewayError } from '../errors/gateway-error.js';
import { RouteFailure, SATURATED } from './route-failure.js';

import type { BreakerState } from '../domain/breaker-state.js';

export type { BreakerState };

/** Breakers of direct routes (provider/model-id on the caller's key) kept at once; the least recently used goes first. */
const DIRECT_BREAKERS = 1_000;
/** The rolling window is kept as this many buckets, the oldest dropped as time moves on. */
const BUCKETS = 10;

const enum State {
  Closed,
  Open,
  HalfOpen,
}

/**
 * One route's circuit, with opossum's rules (which it replaced): every call counts as fired,
 * those refused included; after a failure, once the rolling window holds `volumeThreshold`
 * fires and more than `errorThresholdPercentage` of them failed, the circuit opens; after
 * `resetTimeoutMs` it is half-open and lets one trial call through, whose success closes it and
 * whose failure opens it again. The caller's own mistakes and the gateway's full pool are not
 * the route's fault: they count as successes. Synchronous, where opossum wrapped every call in
 * three promises, two events and a timer to clear (~4k instructions a request, bench:instructions).
 */
export class RouteBreaker {
  readonly #o: Config['breaker'];
  readonly #now: () => number;
  readonly #bucketMs: number;
  readonly #fires = new Uint32Array(BUCKETS);
  readonly #failures = new Uint32Array(BUCKETS);
  /** The newest bucket: its index, and the time slot (now / bucketMs) it counts. */
  #head = 0;
  #slot = 0;
  #state = State.Closed;
  /** Half-open: the trial call has not gone yet. */
  #trialDue = false;
  #openedAt = 0;

  constructor(o: Config['breaker'], now: () => number) {
    this.#o = o;
    this.#now = now;
    this.#bucketMs = Math.max(1, Math.floor(o.rollingWindowMs / BUCKETS));
    this.#slot = Math.floor(now() / this.#bucketMs);
  }

  get state(): BreakerState {
    this.#expireOpen();
    return this.#state === State.Closed ? 'closed' : this.#state === State.Open ? 'open' : 'half_open';
  }

  /** Counts a call; false when the circuit refuses it (open, or half-open with its trial already out). */
  enter(): boolean {
    this.#rotate();
    this.#fires[this.#head]++;
    if (this.#state === State.Closed) return true;
    this.#expireOpen();
    if (!this.#trialDue) return false;
    this.#trialDue = false;
    return true;
  }

  /** How a call that entered ended: `error` null when it succeeded. */
  settle(error: unknown): void {
    if (error === null || blameless(error)) {
      if (this.#state === State.HalfOpen) this.#close();
      return;
    }
    this.#rotate();
    this.#failures[this.#head]++;
    const halfOpen = this.#state === State.HalfOpen;
    let fires = 0;
    let failures = 0;
    for (let i = 0; i < BUCKETS; i++) {
      fires += this.#fires[i];
      failures += this.#failures[i];
    }
    if (fires < this.#o.volumeThreshold && !halfOpen) return;
    if ((failures / fires) * 100 > this.#o.errorThresholdPercentage || halfOpen) this.#open();
  }

  #open(): void {
    if (this.#state === State.Open) return;
    this.#state = State.Open;
    this.#trialDue = false;
    this.#openedAt = this.#now();
  }

  #close(): void {
    this.#state = State.Closed;
    this.#trialDue = false;
  }

  /** An open circuit whose reset time has passed is half-open, its trial due. */
  #expireOpen(): void {
    if (this.#state === State.Open && this.#now() - this.#openedAt >= this.#o.resetTimeoutMs) {
      this.#state = State.HalfOpen;
      this.#trialDue = true;
    }
  }

  /** Drops the buckets that time has moved past. */
  #rotate(): void {
    const slot = Math.floor(this.#now() / this.#bucketMs);
    const steps = slot - this.#slot;
    if (steps <= 0) return;
    this.#slot = slot;
    for (let k = 0; k < Math.min(steps, BUCKETS); k++) {
      this.#head = (this.#head + 1) % BUCKETS;
      this.#fires[this.#head] = 0;
      this.#failures[this.#head] = 0;
    }
  }
}

/** A full connection pool is the gateway's own limit, and a GatewayError the caller's: the route is not failing. */
function blameless(e: unknown): boolean {
  return isGatewayError(e) || (e instanceof RouteFailure && e.code === SATURATED);
}

/** One breaker per route, made on first use. */
export class Breakers {
  readonly #o: Config['breaker'];
  readonly #now: () => number;
  readonly #byRoute = new Map<string, RouteBreaker>();
  /** Callers name direct routes, so their number has no bound of its own. */
  readonly #direct = new LRUCache<string, RouteBreaker>({ max: DIRECT_BREAKERS });

  /** `now`: a monotonic clock in ms (tests move it by hand). */
  constructor(cfg: Config['breaker'], now: () => number = () => performance.now()) {
    this.#o = cfg;
    this.#now = now;
  }

  /** The route's breaker. */
  for(route: { id: string; direct: boolean }): RouteBreaker {
    const map = route.direct ? this.#direct : this.#byRoute;
    let b = map.get(route.id);
    if (b === undefined) {
      b = new RouteBreaker(this.#o, this.#now);
      map.set(route.id, b);
    }
    return b;
  }

  /** Runs one attempt through the route's breaker; rejects at once (EOPENBREAKER) when it is open. */
  async fire<T>(route: { id: string; direct: boolean }, action: () => Promise<T>): Promise<T> {
    const b = this.for(route);
    if (!b.enter()) throw Object.assign(new Error('Breaker is open'), { code: 'EOPENBREAKER' });
    let out: T;
    try {
      out = await action();
    } catch (e) {
      b.settle(e);
      throw e;
    }
    b.settle(null);
    return out;
  }

  state(routeId: string): BreakerState {
    return (this.#byRoute.get(routeId) ?? this.#direct.peek(routeId))?.state ?? 'closed';
  }

  /** True when a request sent now would be refused without trying the upstream. */
  isOpen(routeId: string): boolean {
    return this.state(routeId) === 'open';
  }

  /** Nothing runs in the background: kept for the gateway's orderly stop. */
  shutdown(): void {
    this.#byRoute.clear();
    this.#direct.clear();
  }
}

export function isOpenBreakerError(e: unknown): boolean {
  return (e as { code?: string })?.code === 'EOPENBREAKER';
}
