import { performance } from 'node:perf_hooks';
import { costMicros, maxCostMicros } from '../billing/cost.js';
import { errors } from '../errors/catalog.js';
import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import type { Clock } from '../lib/clock.js';
import { scanUsage, type TokenUsage } from '../lib/usage-scan.js';
import { adapterFor } from '../providers/registry.js';
import type { TokenEndpoint, UpstreamResponse } from '../providers/types.js';
import type { KeyRecord } from '../domain/key-record.js';
import { attemptFailure } from './attempt-failure.js';
import type { Breakers } from './breakers.js';
import type { ClientReply } from '../domain/client-reply.js';
import { parseInferenceBody, type InferenceBody } from './inference-body.js';
import type { KeyAuthenticator } from './key-auth.js';
import type { RequestGate } from '../domain/request-gate.js';
import { RouteFailure } from './route-failure.js';
import type { Attempt, RoutePlanner } from './route-planner.js';
import type { RouteStatsBook } from './route-stats.js';
import { relayStream } from './stream-relay.js';
import { classifyUpstreamError } from './upstream-error.js';
import { ESTIMATED_HEADER, estimateUsage, withEstimatedUsage } from './usage-estimate.js';
import { transportFailure, type AbortSource, type UpstreamClient } from './upstream-client.js';
import type { UsageRecord, UsageSink } from './usage-record.js';

/** An upstream error body is read for its message only; a larger one is classified by status alone. */
const ERROR_BODY_BYTES = 1024 * 1024;

export interface InferenceDeps {
  auth: KeyAuthenticator;
  gate: RequestGate;
  planner: RoutePlanner;
  breakers: Breakers;
  upstream: UpstreamClient;
  stats: RouteStatsBook;
  usage: UsageSink;
  clock: Clock;
  /** Output tokens assumed for the cost hold when a request gives no max_tokens. */
  reserveOutputTokens: number;
}

export interface InferenceRequest {
  authorization: string;
  body: Buffer;
}

/** What a successful attempt hands back: a whole body, or a stream with its first chunk read. */
type Served =
  | { kind: 'whole'; res: UpstreamResponse; body: Buffer; ttfbMs: number }
  | { kind: 'stream'; res: UpstreamResponse; first: Buffer; ttfbMs: number };

const bootId = Date.now().toString(36);
let counter = 0;

/**
 * The inference path: authenticate, admit, plan routes, try them in order through their
 * breakers, pass the winner's bytes through untouched, and record every attempt.
 */
export class InferenceService {
  readonly #d: InferenceDeps;

  constructor(deps: InferenceDeps) {
    this.#d = deps;
  }

  async handle(endpoint: TokenEndpoint, req: InferenceRequest, reply: ClientReply): Promise<void> {
    const d = this.#d;
    const key = d.auth.authenticate(req.authorization);
    const ticket = d.gate.enter(key);
    let settled = false;
    try {
      const body = parseInferenceBody(endpoint, req.body);
      const plan = d.planner.plan(body.model, endpoint, body.ext);
      const billed = key.tier === 'standard' && !plan[0].byok;
      d.gate.admit(ticket, billed ? maxCostMicros(plan, req.body.length, body.maxTokens, d.reserveOutputTokens) : 0);
      const requestId = `${bootId}-${(counter++).toString(36)}`;
      let cost: number;
      try {
        cost = await this.#serve(endpoint, key, body, plan, requestId, reply);
      } catch (e) {
        // Failures that reached the ledger carry the request id too, so they can be found there.
        throw isGatewayError(e) ? new GatewayError(e.status, e.type, e.code, e.message, { ...e.headers, 'x-gw-request-id': requestId }) : e;
      }
      d.gate.settle(ticket, cost);
      settled = true;
    } finally {
      if (!settled) d.gate.settle(ticket, 0);
    }
  }

  /** Tries each planned route; returns the debited cost in micro-rupees. */
  async #serve(endpoint: TokenEndpoint, key: KeyRecord, body: InferenceBody, plan: Attempt[], requestId: string,
    reply: ClientReply): Promise<number> {
    const d = this.#d;
    const { model, payload, stream } = body;
    const streamOptions = payload.stream_options;
    let last: { attempt: Attempt; failure: RouteFailure } | null = null;

    for (let i = 0; i < plan.length; i++) {
      const a = plan[i];
      if (reply.aborted) return 0;
      if (streamOptions === undefined) delete payload.stream_options;
      else payload.stream_options = streamOptions;
      const started = performance.now();
      let served: Served;
      try {
        const raw = a.route.upstreamModel === model ? body.raw : null;
        served = await d.breakers.fire(a.route, () => this.#attempt(endpoint, a, payload, raw, stream, reply, started));
      } catch (e) {
        const latencyMs = performance.now() - started;
        if (isGatewayError(e)) {
          // The caller's own mistake reported by the upstream: returned as is, never failed over.
          this.#record(key, requestId, endpoint, model, a, i, e.status, e.code, null, 0, latencyMs, null, stream, false);
          throw e;
        }
        const failure = attemptFailure(e);
        const aborted = reply.aborted || failure.code === 'client_aborted';
        this.#record(key, requestId, endpoint, model, a, i, aborted ? 499 : failure.status, aborted ? 'client_aborted' : failure.code,
          null, 0, latencyMs, null, stream, false);
        if (aborted) return 0;
        last = { attempt: a, failure };
        continue;
      }

      const headers: Record<string, string> = { 'x-gw-provider': a.route.provider.id, 'x-gw-request-id': requestId };
      if (served.kind === 'whole') {
        let usage = scanUsage(served.body);
        let answer = served.body;
        const estimated = usage === null;
        if (estimated) {
          ({ usage, answer } = withEstimatedUsage(endpoint, body, answer));
          headers[ESTIMATED_HEADER] = 'estimated';
        }
        const latencyMs = performance.now() - started;
        if (!reply.aborted) reply.send(200, served.res.contentType, answer, headers);
        return this.#finish(key, requestId, endpoint, model, a, i, usage!, estimated, latencyMs, served.ttfbMs, false, reply.aborted);
      }
      const outcome = await relayStream(reply, served.res, served.first, headers, body);
      const latencyMs = performance.now() - started;
      // A stream cut short, by either side, is billed for what was generated before the cut.
      const usage = outcome.usage ?? estimateUsage(endpoint, body, outcome.textBytes);
      return this.#finish(key, requestId, endpoint, model, a, i, usage, outcome.usage === null || outcome.estimated, latencyMs,
        served.ttfbMs, true, outcome.aborted, outcome.failure);
    }
    const l = last!;
    throw errors.allRoutesFailed(`${l.attempt.route.provider.id} (${l.attempt.route.upstreamModel}): ${l.failure.message}`);
  }

  /** One upstream attempt; resolves once the route has proved itself (whole body, or first chunk). */
  async #attempt(endpoint: TokenEndpoint, a: Attempt, payload: Record<string, unknown>, raw: string | null, stream: boolean,
    abort: AbortSource, started: number): Promise<Served> {
    const call = adapterFor(a.route.provider.entry.kind)
      .buildCall(endpoint, payload, a.route.upstreamModel, { streamOptions: a.route.provider.entry.streamOptions }, raw);
    const res = await this.#d.upstream.send(endpoint, a.route, call, payload, a.headers, abort);
    const ttfbMs = performance.now() - started;
    if (res.status >= 400) {
      const body = await res.readAll(ERROR_BODY_BYTES).catch(() => Buffer.alloc(0));
      throw classifyUpstreamError(res.status, body, a.byok);
    }
    try {
      if (stream && res.contentType.startsWith('text/event-stream')) {
        const first = await res.next();
        if (first === null) throw new RouteFailure('empty_stream', 'upstream ended the stream before sending any data');
        return { kind: 'stream', res, first, ttfbMs: performance.now() - started };
      }
      return { kind: 'whole', res, body: await res.readAll(), ttfbMs };
    } catch (e) {
      // The gateway's own limit (503 overloaded) is returned as is: another route would not help.
      throw isGatewayError(e) ? e : transportFailure(e);
    }
  }

  #finish(key: KeyRecord, requestId: string, endpoint: TokenEndpoint, model: string, a: Attempt, attempt: number,
    u: TokenUsage, estimated: boolean, latencyMs: number, ttfbMs: number, streamed: boolean, aborted: boolean,
    failure: RouteFailure | null = null): number {
    const cost = key.tier === 'trial' || a.byok ? 0 : costMicros(a.route, u);
    const status = aborted ? 499 : 200;
    const code = aborted ? 'client_aborted' : failure ? failure.code : null;
    this.#record(key, requestId, endpoint, model, a, attempt, status, code, u, cost, latencyMs, ttfbMs, streamed, true, estimated);
    if (!aborted && !failure && !a.route.direct) this.#d.stats.for(a.route.id).record(latencyMs, u.completionTokens, latencyMs - ttfbMs);
    return cost;
  }

  #record(key: KeyRecord, requestId: string, endpoint: TokenEndpoint, model: string, a: Attempt, attempt: number, status: number,
    errorCode: string | null, usage: TokenUsage | null, cost: number, latencyMs: number, ttfbMs: number | null,
    streamed: boolean, billable: boolean, usageEstimated = false): void {
    const r: UsageRecord = {
      at: this.#d.clock.now(), requestId, orgId: key.orgId, workspaceId: key.workspaceId, keyId: key.id, endpoint, model,
      provider: a.route.provider.id, route: a.route.id, attempt, status, errorCode,
      promptTokens: usage?.promptTokens ?? 0, completionTokens: usage?.completionTokens ?? 0, units: 0, costMicros: cost,
      latencyMs, ttfbMs, streamed, byok: a.byok, billable, usageEstimated,
    };
    this.#d.usage.record(r);
  }
}
