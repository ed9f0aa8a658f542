import { performance } from 'node:perf_hooks';
import { costMicros, maxCostMicros } from '../billing/cost.js';
import { clampUsage } from '../billing/usage-bounds.js';
import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import type { Logger } from '../lib/logger.js';
import { scanUsage, type TokenUsage } from '../lib/usage-scan.js';
import { adapterFor } from '../providers/registry.js';
import type { AdapterCaps, ProviderAdapter, TokenEndpoint, UpstreamCall, UpstreamResponse } from '../providers/types.js';
import type { KeyRecord } from '../domain/key-record.js';
import { admitted } from './admission.js';
import type { ClientReply } from '../domain/client-reply.js';
import { parseInferenceBody, type InferenceBody } from './inference-body.js';
import { NativeBytes } from '../domain/native-bytes.js';
import { RouteFailure, transportFailure } from './route-failure.js';
import { firstServing, refusedAnswer, type RouteAttemptDeps, type Served, type Winner } from './route-attempts.js';
import type { Attempt } from './route-planner.js';
import { withAnswerModel } from './answer-model.js';
import { relayStream } from './stream-relay.js';
import { TranslatedResponse } from './translated-response.js';
import { ESTIMATED_HEADER, estimateUsage, withEstimatedUsage } from './usage-estimate.js';
import type { AbortSource } from './upstream-client.js';
import { attemptRecord, blockedRecord, type AttemptEnd, type RequestScope } from './attempt-record.js';
import { GUARDRAILS_HEADER, type Guard } from '../guardrails/guard.js';
import { StreamGuard } from '../guardrails/stream-guard.js';
import type { GuardrailPolicy } from '../lib/guardrail-policy.js';
import { guardedAnswer } from './answer-guard.js';
import { guardedInput, requestGuard } from './input-guard.js';

/** The provider's own id for the model, on answers whose `model` was put back to the catalog id the client asked for. */
export const UPSTREAM_MODEL_HEADER = 'x-gw-upstream-model';

export interface InferenceDeps extends RouteAttemptDeps {
  /** Output tokens assumed for the cost hold when a request gives no max_tokens. */
  reserveOutputTokens: number;
  log: Logger;
  /** promptCache.auto: requests whose body, key and org say nothing ask for cache markers, as `cache: "auto"` does for one. */
  promptCacheAuto?: boolean;
  /** The gateway's default guardrail (config guardrails.default), for requests whose request, key and org set none. */
  guardrails: GuardrailPolicy | null;
}

export interface InferenceRequest {
  /** The caller's key, authenticated by the router. */
  key: KeyRecord;
  body: Buffer;
  /** The x-gw-guardrails header ('' or absent when not sent). */
  guardrails?: string;
}

/**
 * Reads a request in another inbound format (Responses, Anthropic Messages) as the OpenAI
 * chat-completions body every provider adapter takes; runs once the key is known (a stored
 * conversation is the key's org's). Throws a GatewayError for a body it refuses.
 */
/** A promise only when parsing must read a remote store (a stored conversation on PostgreSQL). */
export type InboundParser = (raw: Buffer, key: KeyRecord) => InferenceBody | Promise<InferenceBody>;

/** What the usage records of one request share, and the body the serving attempt's tokens are bounded by. */
interface InferenceScope extends RequestScope {
  endpoint: TokenEndpoint;
  body: InferenceBody;
}

/** How the serving attempt's answer ended. */
interface ServedEnd {
  /** Tokens as the provider reported them (or as estimated), before they are bounded. */
  reported: TokenUsage;
  estimated: boolean;
  latencyMs: number;
  aborted: boolean;
  failure: RouteFailure | null;
}

/**
 * The inference path: authenticate, admit, plan routes, try them in order through their
 * breakers, pass the winner's bytes through untouched, and record every attempt.
 */
export class InferenceService {
  readonly #d: InferenceDeps;

  constructor(deps: InferenceDeps) {
    this.#d = deps;
  }

  /**
   * `inbound` translates another format's request; its caller wraps `reply` so that the OpenAI
   * answer written here reaches the client in that format. Resolves to the cost billed (the
   * response cache stores it with the answer).
   */
  handle(endpoint: TokenEndpoint, req: InferenceRequest, reply: ClientReply, inbound: InboundParser | null = null): Promise<number> {
    const d = this.#d;
    const startedMs = performance.now();
    return admitted(req.key, d.gate, reply.requestId,
      (key) => {
        const body = inbound === null ? parseInferenceBody(endpoint, req.body) : inbound(req.body, key);
        if (body instanceof Promise) return body.then((b) => this.#prepared(endpoint, key, b, req.guardrails, reply.requestId));
        return this.#prepared(endpoint, key, body, req.guardrails, reply.requestId);
      },
      // bytes, not the body's length: a translated request may carry a stored conversation too.
      (p) => maxCostMicros(p.plan, p.body.bytes, p.body.maxTokens, d.reserveOutputTokens),
      (key, p, requestId) => this.#serve(endpoint, key, p.body, p.plan, requestId, reply, p.guard, startedMs));
  }

  /**
   * The body as it may leave (checked by the request's guardrail, when one is on) and its routes.
   * Without a guardrail this is one call that finds none: the client's bytes are not decoded
   * (bench:instructions, the request's own work on the main thread: 89.5k before guardrails,
   * 89.5k and 89.9k after on the plain pass-through; 120.9k, then 120.5k and 122.8k on a stream).
   */
  #prepared(endpoint: TokenEndpoint, key: KeyRecord, parsed: InferenceBody, header: string | undefined, requestId: string) {
    const d = this.#d;
    const guard = requestGuard(parsed, header, key.guardrails ?? null, d.guardrails);
    let body = parsed;
    if (guard !== null) {
      try {
        body = guardedInput(endpoint, parsed, guard);
      } catch (e) {
        if (guard.blocked === null || !isGatewayError(e)) throw e;
        this.#d.usage.record(blockedRecord(this.#d.clock.now(), key, endpoint, parsed.model, requestId, guard));
        throw new GatewayError(e.status, e.type, e.code, e.message, { [GUARDRAILS_HEADER]: guard.summary()! });
      }
    }
    return { body, guard, plan: d.planner.plan(body.model, endpoint, body.ext, key.orgId) };
  }

  /** Tries each planned route; returns the debited cost in micro-rupees. */
  async #serve(endpoint: TokenEndpoint, key: KeyRecord, body: InferenceBody, plan: Attempt[], requestId: string,
    reply: ClientReply, guard: Guard | null, startedMs: number): Promise<number> {
    try {
      const { model, stream } = body;
      const req: InferenceScope = { key, requestId, endpoint, model, body, guard, startedMs, upstreamMs: 0 };
      // Body, then key (its own, else its org's: resolved when its record was read), then config.
      // Once a request rather than once an attempt (bench:instructions, JS self counts a request:
      // #serve 1,258 → 1,287, #attempt 697 → 672; "the rest" 93.1k → 92.7k plain, within run noise).
      const marks = body.ext.cache ?? key.promptCache ?? null;
      const promptCache = marks === null ? this.#d.promptCacheAuto === true : marks === 'auto';
      const won = await firstServing(this.#d.breakers, plan, reply, (a, started) => this.#attempt(endpoint, a, body, promptCache, reply, started),
        (a, i, status, errorCode, latencyMs, queueMs) => this.#record(req, a, i, {
          status, errorCode, tokens: null, units: 0, costMicros: 0, latencyMs, ttfbMs: null, queueMs, streamed: stream, billable: false,
          usageEstimated: false, usageClamped: false,
        }));
      if (won === null) return 0;
      const { a, served, started } = won;
      if (served.native) reply.passThrough?.(served.native);

      const headers: Record<string, string> = { 'x-gw-provider': a.route.provider.id, 'x-gw-request-id': requestId };
      // The answer names the model the client asked for; the provider's id for it goes in a header.
      const renamed = a.route.upstreamModel !== model;
      if (renamed) headers[UPSTREAM_MODEL_HEADER] = a.route.upstreamModel;
      const outputs = guard !== null && guard.policy.outputs ? guard : null;
      if (served.kind === 'whole') {
        let usage = served.res.usage ?? scanUsage(served.body);
        let answer = served.body;
        if (outputs !== null && endpoint === 'chat') {
          const checked = this.#guardedAnswer(req, won, answer, outputs, usage, started, reply);
          if (typeof checked === 'number') return checked;
          answer = checked;
        }
        const estimated = usage === null;
        if (estimated) {
          ({ usage, answer } = withEstimatedUsage(endpoint, body, answer));
          headers[ESTIMATED_HEADER] = 'estimated';
        }
        if (renamed && served.res.named !== true) answer = withAnswerModel(answer, Buffer.from(JSON.stringify(model)));
        const fired = guard?.summary() ?? null;
        if (fired !== null) headers[GUARDRAILS_HEADER] = fired;
        const latencyMs = performance.now() - started;
        if (!reply.aborted) reply.send(200, served.res.contentType, answer, headers);
        return this.#finish(req, won, { reported: usage!, estimated, latencyMs, aborted: reply.aborted, failure: null });
      }
      // Usage goes to the client only if it asked (as OpenAI does); the gateway asks the provider regardless, and bills it.
      const dropUsage = !(body.usageAsked ?? usageAsked(body.payload.stream_options));
      const rename = renamed && served.res.named !== true;
      const streamGuard = outputs === null ? null : new StreamGuard(outputs);
      const edits = rename || dropUsage || streamGuard !== null ? { model: rename ? model : null, dropUsage, guard: streamGuard } : null;
      // A stream's header tells what the request's check did; what its answer's check does is in the ledger.
      const fired = guard?.summary() ?? null;
      if (fired !== null) headers[GUARDRAILS_HEADER] = fired;
      const outcome = await relayStream(reply, served.res, served.first, headers, body, edits);
      const latencyMs = performance.now() - started;
      // A stream cut short, by either side, is billed for what was generated before the cut.
      const usage = outcome.usage ?? estimateUsage(endpoint, body, outcome.textBytes);
      return this.#finish(req, won, { reported: usage, estimated: outcome.usage === null || outcome.estimated, latencyMs,
        aborted: outcome.aborted, failure: outcome.failure });
    } finally {
      // The request has ended: a written request's slab may be lent again once its writes are done (lib/request-slabs.ts).
      body.raw?.release();
    }
  }

  /**
   * A whole answer checked by the request's guardrail: the answer to send, or, refused, the
   * attempt's cost once it is recorded and billed (the provider generated it) and the client told
   * 400 guardrail_blocked in its route's shape.
   */
  #guardedAnswer(req: InferenceScope, won: Winner<Served>, answer: Buffer, guard: Guard, usage: TokenUsage | null, started: number,
    reply: ClientReply): Buffer | number {
    try {
      return guardedAnswer(answer, guard);
    } catch (e) {
      if (guard.blocked === null || !isGatewayError(e)) throw e;
      const estimated = usage === null;
      const reported = usage ?? withEstimatedUsage(req.endpoint, req.body, answer).usage;
      const cost = this.#finish(req, won, { reported, estimated, latencyMs: performance.now() - started, aborted: false, failure: null });
      if (!reply.aborted) {
        reply.sendError(new GatewayError(e.status, e.type, e.code, e.message,
          { 'x-gw-request-id': req.requestId, [GUARDRAILS_HEADER]: guard.summary()! }));
      }
      return cost;
    }
  }

  /** One upstream attempt; resolves once the route has proved itself (whole body, or first chunk). */
  async #attempt(endpoint: TokenEndpoint, a: Attempt, body: InferenceBody, promptCache: boolean, abort: AbortSource, started: number): Promise<Served> {
    const adapter = adapterFor(a.route.provider.entry.kind);
    const nativeRequest = body.native ?? null;
    const native = nativeRequest !== null && adapter.nativeFormat === nativeRequest.format ? new NativeBytes() : null;
    const caps = { streamOptions: a.route.provider.entry.streamOptions, promptCache };
    // `body.payload` is decoded only here, for a provider that cannot take the client's bytes.
    // A native request goes as the client's bytes when the scan read it and no prompt-cache markers are to be added.
    const forward = native !== null && !promptCache ? nativeRequest!.forward ?? null : null;
    const call = forward !== null && adapter.buildNativeForwardCall !== undefined
      ? adapter.buildNativeForwardCall(endpoint, forward, a.route.upstreamModel, nativeRequest!.headers)
      : native !== null ? adapter.buildNativeCall!(endpoint, nativeRequest!.payload, a.route.upstreamModel, nativeRequest!.headers, caps)
      : body.raw !== null && adapter.buildForwardCall !== undefined ? adapter.buildForwardCall(endpoint, body.raw, a.route.upstreamModel, caps)
        : body.literal != null && adapter.buildLiteralCall !== undefined
          ? adapter.buildLiteralCall(endpoint, body.literal.payload, body.literal.literals, a.route.upstreamModel, caps)
          : this.#translatedCall(adapter, endpoint, body, a.route.upstreamModel, caps);
    const sent = await this.#d.upstream.send(endpoint, a.route, call, body, a.headers, abort, a.secret);
    if (sent.status >= 400) await refusedAnswer(sent, a);
    // Providers with their own answer format are read as OpenAI chat answers from here on.
    const res: UpstreamResponse = adapter.streamTranslator === undefined ? sent
      : new TranslatedResponse(sent, adapter, endpoint, a.route.upstreamModel, encodingOf(endpoint, body), native,
        a.route.upstreamModel === body.model ? undefined : body.model);
    const ttfbMs = performance.now() - started;
    try {
      if (body.stream && res.contentType.startsWith('text/event-stream')) {
        const first = await res.next();
        if (first === null) throw new RouteFailure('empty_stream', 'upstream ended the stream before sending any data');
        return { kind: 'stream', res, first, ttfbMs: performance.now() - started, native };
      }
      return { kind: 'whole', res, body: res.arrived?.() ?? await res.readAll(), ttfbMs, native };
    } catch (e) {
      // The gateway's own limit (503 overloaded) is returned as is: another route would not help.
      throw isGatewayError(e) ? e : transportFailure(e);
    }
  }

  /** A translating provider's call: from the client's bytes where the adapter can write it so, else from the decoded payload. */
  #translatedCall(adapter: ProviderAdapter, endpoint: TokenEndpoint, body: InferenceBody, upstreamModel: string, caps: AdapterCaps): UpstreamCall {
    if (adapter.buildScannedCall !== undefined) {
      const scanned = body.scanned ?? null;
      const call = scanned === null ? null : adapter.buildScannedCall(endpoint, scanned, upstreamModel, caps);
      if (call !== null) return call;
    }
    return adapter.buildCall(endpoint, body.payload, upstreamModel, caps);
  }

  /** Records the serving attempt (tokens clamped to what the request could have used) and returns its cost. */
  #finish(req: InferenceScope, won: Winner<Served>, end: ServedEnd): number {
    const { body, endpoint, key } = req;
    const { a, served } = won;
    const { reported, latencyMs, aborted, failure } = end;
    const clamped = clampUsage(reported, { endpoint, request: body, bytes: body.bytes, maxTokens: body.maxTokens,
      contextLength: a.route.contextLength });
    const u = clamped ?? reported;
    if (clamped !== null) {
      this.#d.log.warn('provider reported more usage than the request could have used (or cached parts beyond its totals); billed at the bounds', {
        requestId: req.requestId, provider: a.route.provider.id, route: a.route.id, reported, billed: u,
      });
    }
    const cost = key.tier === 'trial' || a.byok ? 0 : costMicros(a.route, u);
    this.#record(req, a, won.i, {
      status: aborted ? 499 : 200, errorCode: aborted ? 'client_aborted' : failure ? failure.code : null, tokens: u, units: 0,
      costMicros: cost, latencyMs, ttfbMs: served.ttfbMs, queueMs: served.res.queueMs, streamed: served.kind === 'stream', billable: true,
      usageEstimated: end.estimated, usageClamped: clamped !== null,
    });
    if (!aborted && !failure && !a.route.direct) this.#d.stats.for(a.route.id).record(latencyMs, u.completionTokens, latencyMs - served.ttfbMs);
    // The serving attempt's end, as its latency was read: no second clock reading.
    const totalMs = won.started + latencyMs - req.startedMs;
    this.#d.served.served(endpoint, totalMs, totalMs - req.upstreamMs);
    return cost;
  }

  #record(req: InferenceScope, a: Attempt, attempt: number, end: AttemptEnd): void {
    req.upstreamMs += end.latencyMs;
    this.#d.usage.record(attemptRecord(this.#d.clock.now(), req, a, attempt, end));
  }
}

/** The embeddings encoding the client asked for, which a translated answer must be written in ('' for chat, whose payload may be decoded only on first use). */
function encodingOf(endpoint: TokenEndpoint, body: InferenceBody): string {
  if (endpoint !== 'embeddings') return '';
  const f = body.payload.encoding_format;
  return typeof f === 'string' ? f : '';
}

function usageAsked(options: unknown): boolean {
  return typeof options === 'object' && options !== null && (options as { include_usage?: unknown }).include_usage === true;
}
