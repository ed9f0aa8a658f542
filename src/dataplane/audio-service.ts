import { performance } from 'node:perf_hooks';
import { billedSeconds, FALLBACK_BYTES_PER_SECOND, maxUnitCostMicros, reportedSeconds, unitCostMicros } from '../billing/audio-units.js';
import { isGatewayError } from '../errors/gateway-error.js';
import { adapterFor } from '../providers/registry.js';
import type { AudioEndpoint, UpstreamCall } from '../providers/types.js';
import type { ClientReply } from '../domain/client-reply.js';
import type { KeyRecord } from '../domain/key-record.js';
import { admitted } from './admission.js';
import { parseSpeechBody, parseTranscriptionBody } from './audio-body.js';
import { relayBytes } from './byte-relay.js';
import type { Extensions } from '../domain/extensions.js';
import { RouteFailure, transportFailure } from './route-failure.js';
import { firstServing, openAnswer, type RouteAttemptDeps, type Served } from './route-attempts.js';
import type { Attempt } from './route-planner.js';
import type { RequestPayload } from './upstream-client.js';
import { ESTIMATED_HEADER } from './usage-estimate.js';

/** Audio never reaches an in-process provider (the catalog loader keeps it off), which alone reads the payload. */
const NO_PAYLOAD: RequestPayload = { payload: {} };

export interface AudioDeps extends RouteAttemptDeps {
  /** Largest audio file a transcription takes (spec 4.1: 25 MB). */
  maxFileBytes: number;
}

export interface AudioRequest {
  authorization: string;
  contentType: string;
  body: Buffer;
}

/** One audio request, whatever its endpoint: how to call a route, and what it is billed on. */
interface AudioJob {
  endpoint: AudioEndpoint;
  model: string;
  ext: Extensions;
  /** Units held against the balance before the call (seconds heard, or characters spoken). */
  holdUnits: number;
  call(a: Attempt): UpstreamCall;
  /** Transcriptions: the gateway's own measure of the audio, or null. */
  probedSeconds: number | null;
  /** Transcriptions: the response_format asked for. */
  responseFormat: string;
  fileBytes: number;
}

/**
 * Speech to text and text to speech, on the same path as chat: authenticate, admit with a hold,
 * plan routes, try them through their breakers with failover, record every attempt. Billed per
 * unit instead of per token: seconds of audio heard (the provider's figure, else the file's own
 * header, else its size at 128 kbit/s), or characters of text spoken.
 */
export class AudioService {
  readonly #d: AudioDeps;

  constructor(deps: AudioDeps) {
    this.#d = deps;
  }

  /** Refuses a missing, unknown, revoked or expired key (401) before an upload is read. */
  checkKey(authorization: string): void {
    this.#d.auth.authenticate(authorization);
  }

  handle(endpoint: AudioEndpoint, req: AudioRequest, reply: ClientReply): Promise<void> {
    const d = this.#d;
    return admitted(d.auth, d.gate, req.authorization, reply.requestId,
      (key) => {
        const job = endpoint === 'speech' ? this.#speech(req) : this.#transcription(req, endpoint);
        return { job, plan: d.planner.plan(job.model, endpoint, job.ext, key.orgId) };
      },
      (p) => maxUnitCostMicros(p.plan, p.job.holdUnits),
      (key, p, requestId) => this.#serve(p.job, key, p.plan, requestId, reply));
  }

  /** Speech to text: a transcription, or a translation into English; the same upload and billing. */
  #transcription(req: AudioRequest, endpoint: 'transcriptions' | 'translations'): AudioJob {
    const t = parseTranscriptionBody(req.contentType, req.body, this.#d.maxFileBytes);
    return {
      endpoint, model: t.model, ext: t.ext, probedSeconds: t.probedSeconds, fileBytes: t.fileBytes, responseFormat: t.responseFormat,
      holdUnits: billedSeconds(t.probedSeconds ?? t.fileBytes / FALLBACK_BYTES_PER_SECOND),
      call: (a) => {
        const adapter = adapterFor(a.route.provider.entry.kind);
        // Unreachable: the catalog loader and the planner keep transcriptions off adapters that take no uploads.
        if (adapter.buildFormCall === undefined) throw new RouteFailure('unsupported', `${a.route.provider.id} takes no audio uploads`);
        return adapter.buildFormCall(endpoint, t.forward, a.route.upstreamModel);
      },
    };
  }

  #speech(req: AudioRequest): AudioJob {
    const s = parseSpeechBody(req.body);
    return {
      endpoint: 'speech', model: s.model, ext: s.ext, probedSeconds: null, fileBytes: 0, responseFormat: '', holdUnits: s.characters,
      call: (a) => adapterFor(a.route.provider.entry.kind).buildCall('speech', s.payload, a.route.upstreamModel, { streamOptions: false }),
    };
  }

  async #serve(job: AudioJob, key: KeyRecord, plan: Attempt[], requestId: string, reply: ClientReply): Promise<number> {
    const won = await firstServing(this.#d.breakers, plan, reply, (a, started) => this.#attempt(job, a, reply, started),
      (a, i, status, code, latencyMs, queueMs) => this.#record(key, requestId, job, a, i, status, code, 0, 0, latencyMs, null, false, false, queueMs));
    if (won === null) return 0;
    const { a, i, served, started } = won;
    const headers: Record<string, string> = { 'x-gw-provider': a.route.provider.id, 'x-gw-request-id': requestId };
    return served.kind === 'whole'
      ? this.#transcribed(job, key, requestId, a, i, served, headers, reply, started)
      : this.#spoken(job, key, requestId, a, i, served, headers, reply, started);
  }

  async #attempt(job: AudioJob, a: Attempt, reply: ClientReply, started: number): Promise<Served> {
    const res = await openAnswer(this.#d.upstream, job.endpoint, a, job.call(a), NO_PAYLOAD, reply);
    const ttfbMs = performance.now() - started;
    try {
      if (job.endpoint !== 'speech') return { kind: 'whole', res, body: await res.readAll(), ttfbMs };
      const first = await res.next();
      if (first === null) throw new RouteFailure('empty_audio', 'upstream answered 200 with no audio');
      return { kind: 'stream', res, first, ttfbMs: performance.now() - started };
    } catch (e) {
      throw isGatewayError(e) ? e : transportFailure(e);
    }
  }

  #transcribed(job: AudioJob, key: KeyRecord, requestId: string, a: Attempt, i: number, served: Extract<Served, { kind: 'whole' }>,
    headers: Record<string, string>, reply: ClientReply, started: number): number {
    const seconds = reportedSeconds(served.body, served.res.contentType) ?? job.probedSeconds;
    const estimated = seconds === null;
    if (estimated) headers[ESTIMATED_HEADER] = 'estimated';
    const units = billedSeconds(seconds ?? job.fileBytes / FALLBACK_BYTES_PER_SECOND);
    const adapter = adapterFor(a.route.provider.entry.kind);
    const out = adapter.readAnswer ? adapter.readAnswer(job.endpoint, served.body, served.res.contentType, job.responseFormat)
      : { body: served.body, contentType: served.res.contentType };
    if (!reply.aborted) reply.send(200, out.contentType, out.body, headers);
    return this.#finish(key, requestId, job, a, i, units, estimated, performance.now() - started, served.ttfbMs, reply.aborted, null,
      served.res.queueMs);
  }

  async #spoken(job: AudioJob, key: KeyRecord, requestId: string, a: Attempt, i: number, served: Extract<Served, { kind: 'stream' }>,
    headers: Record<string, string>, reply: ClientReply, started: number): Promise<number> {
    const outcome = await relayBytes(reply, served.res, served.first, served.res.contentType, headers);
    return this.#finish(key, requestId, job, a, i, job.holdUnits, false, performance.now() - started, served.ttfbMs, outcome.aborted,
      outcome.failure, served.res.queueMs);
  }

  /**
   * Records the serving attempt and returns its cost. A client that leaves mid-answer is billed
   * in full (the provider did the work); audio the provider broke off is not billed at all.
   */
  #finish(key: KeyRecord, requestId: string, job: AudioJob, a: Attempt, i: number, units: number, estimated: boolean,
    latencyMs: number, ttfbMs: number, aborted: boolean, failure: RouteFailure | null, queueMs: number): number {
    const cost = key.tier === 'trial' || a.byok || failure !== null ? 0 : unitCostMicros(a.route, units);
    const code = aborted ? 'client_aborted' : failure ? failure.code : null;
    this.#record(key, requestId, job, a, i, aborted ? 499 : 200, code, units, cost, latencyMs, ttfbMs, true, estimated, queueMs);
    if (!aborted && failure === null && !a.route.direct) this.#d.stats.for(a.route.id).record(latencyMs, 0, latencyMs - ttfbMs);
    return cost;
  }

  #record(key: KeyRecord, requestId: string, job: AudioJob, a: Attempt, attempt: number, status: number, errorCode: string | null,
    units: number, cost: number, latencyMs: number, ttfbMs: number | null, billable: boolean, usageEstimated: boolean, queueMs: number): void {
    this.#d.usage.record({
      at: this.#d.clock.now(), requestId, orgId: key.orgId, workspaceId: key.workspaceId, keyId: key.id, endpoint: job.endpoint,
      model: job.model, provider: a.route.provider.id, route: a.route.id, attempt, status, errorCode, promptTokens: 0,
      completionTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, units, costMicros: cost, latencyMs, ttfbMs, streamed: job.endpoint === 'speech', byok: a.byok,
      billable, usageEstimated, queueMs, usageClamped: false,
    });
  }
}
