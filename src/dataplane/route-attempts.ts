import { performance } from 'node:perf_hooks';
import { errors } from '../errors/catalog.js';
import { isGatewayError } from '../errors/gateway-error.js';
import type { Clock } from '../lib/clock.js';
import { scrubSecrets } from '../lib/secret-scrub.js';
import type { Endpoint, UpstreamCall, UpstreamResponse } from '../providers/types.js';
import type { RequestGate } from '../domain/request-gate.js';
import type { NativeBytes } from '../domain/native-bytes.js';
import type { KeyAuthenticator } from './key-auth.js';
import type { Breakers } from './breakers.js';
import { RouteFailure, SATURATED, transportFailure } from './route-failure.js';
import type { Attempt, RoutePlanner } from './route-planner.js';
import type { RouteStatsBook } from './route-stats.js';
import { classifyUpstreamError } from './upstream-error.js';
import type { AbortSource, RequestPayload, UpstreamClient } from './upstream-client.js';
import type { UsageSink } from '../domain/usage-record.js';
import type { ServedMeter } from '../domain/request-meter.js';

/** What a successful attempt hands back: a whole body, or a body under way with its first chunk read. */
export type Served =
  | { kind: 'whole'; res: UpstreamResponse; body: Buffer; ttfbMs: number; native?: NativeBytes | null }
  | { kind: 'stream'; res: UpstreamResponse; first: Buffer; ttfbMs: number; native?: NativeBytes | null };

/** The attempt that proved itself: its route, its place in the plan, what it served, and when it started. */
export interface Winner<S> {
  a: Attempt;
  i: number;
  served: S;
  started: number;
}

/** What both inference services (tokens, audio) are built from. */
export interface RouteAttemptDeps {
  auth: KeyAuthenticator;
  gate: RequestGate;
  planner: RoutePlanner;
  breakers: Breakers;
  upstream: UpstreamClient;
  stats: RouteStatsBook;
  usage: UsageSink;
  /** Told each served request's time and the gateway's share of it (NO_SERVED_METER when metrics are off). */
  served: ServedMeter;
  clock: Clock;
}

/** Thrown inside the attempt loop when a route's circuit refuses the call. */
const CIRCUIT_OPEN = new Error('circuit open');

/** An upstream error body is read for its message only; a larger one is classified by status alone. */
const ERROR_BODY_BYTES = 1024 * 1024;

/**
 * Sends one attempt's call and waits for the answer's head. An error status is read for its
 * message and thrown as a route failure (fail over) or the caller's own error (return as is).
 */
export async function openAnswer(upstream: UpstreamClient, endpoint: Endpoint, a: Attempt, call: UpstreamCall,
  request: RequestPayload, client: AbortSource): Promise<UpstreamResponse> {
  const res = await upstream.send(endpoint, a.route, call, request, a.headers, client, a.secret);
  if (res.status >= 400) await refusedAnswer(res, a);
  return res;
}

/**
 * Reads an answer with an error status for its message and throws it as a route failure (fail
 * over) or the caller's own error (return as is). The inference path awaits the send itself and
 * calls this only on an error status: openAnswer's async frame was one promise hop more a request.
 */
export async function refusedAnswer(res: UpstreamResponse, a: Attempt): Promise<never> {
  const body = await res.readAll(ERROR_BODY_BYTES).catch(() => Buffer.alloc(0));
  const e = classifyUpstreamError(res.status, body, a.byok, a.secret);
  if (e instanceof RouteFailure) e.queueMs = res.queueMs;
  throw e;
}

/** Told of each failed attempt, for the ledger. */
export type AttemptFailed = (a: Attempt, i: number, status: number, code: string, latencyMs: number, queueMs: number) => void;

/**
 * Tries the planned routes in order, each through its circuit breaker, until one proves itself.
 * A GatewayError (the caller's own mistake reported by the upstream, or the gateway's own limit)
 * ends the request as it is; route failures move on to the next route and, after the last, become
 * 502 all_routes_failed naming the last upstream error. Resolves null when the client went away.
 */
export async function firstServing<S>(breakers: Breakers, plan: readonly Attempt[], client: AbortSource,
  attempt: (a: Attempt, started: number) => Promise<S>, failed: AttemptFailed): Promise<Winner<S> | null> {
  let last: { a: Attempt; failure: RouteFailure } | null = null;
  for (let i = 0; i < plan.length; i++) {
    const a = plan[i];
    if (client.aborted) return null;
    const started = performance.now();
    const breaker = breakers.for(a.route);
    try {
      if (!breaker.enter()) throw CIRCUIT_OPEN;
      let served: S;
      try {
        served = await attempt(a, started);
      } catch (e) {
        breaker.settle(e);
        throw e;
      }
      breaker.settle(null);
      return { a, i, served, started };
    } catch (e) {
      const latencyMs = performance.now() - started;
      if (isGatewayError(e)) {
        failed(a, i, e.status, e.code, latencyMs, 0);
        throw e;
      }
      const failure = e === CIRCUIT_OPEN ? new RouteFailure('circuit_open', 'circuit open (route failing; retried in about 30 s)', 503)
        : transportFailure(e);
      const aborted = client.aborted || failure.code === 'client_aborted';
      failed(a, i, aborted ? 499 : failure.status, aborted ? 'client_aborted' : failure.code, latencyMs, failure.queueMs);
      if (aborted) return null;
      last = { a, failure };
    }
  }
  const l = last!;
  // Every connection to the last route's provider stayed busy: the gateway is full, not the provider down.
  if (l.failure.code === SATURATED) throw errors.upstreamSaturated(`${l.a.route.provider.id}: ${l.failure.message}`);
  // The upstream's words were scrubbed where they came in; this also covers a transport's message.
  throw errors.allRoutesFailed(scrubSecrets(`${l.a.route.provider.id} (${l.a.route.upstreamModel}): ${l.failure.message}`, l.a.secret));
}
