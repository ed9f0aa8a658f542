import { performance } from 'node:perf_hooks';
import type { Guard } from '../guardrails/guard.js';
import type { GuardrailPolicy } from '../lib/guardrail-policy.js';
import { requestGuard } from './input-guard.js';
import { billedSeconds, FALLBACK_BYTES_PER_SECOND, maxUnitCostMicros, reportedSeconds, unitCostMicros } from '../billing/audio-units.js';
import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import { GUARDRAILS_HEADER } from '../guardrails/guard.js';
import { textPart, type FormPart } from '../lib/multipart.js';
import { adapterFor } from '../providers/registry.js';
import type { AudioEndpoint, UpstreamCall } from '../providers/types.js';
import type { ClientReply } from '../domain/client-reply.js';
import type { KeyRecord } from '../domain/key-record.js';
import { admitted } from './admission.js';
import { parseSpeechBody, parseTranscriptionBody } from './audio-body.js';
import { relayBytes } from './byte-relay.js';
import type { Extensions } from '../domain/extensions.js';
import { RouteFailure, transportFailure } from './route-failure.js';
import { attemptRecord, blockedRecord, type AttemptEnd, type RequestScope } from './attempt-record.js';
import { firstServing, openAnswer, type RouteAttemptDeps, type Served, type Winner } from './route-attempts.js';
import type { Attempt } from './route-planner.js';
import type { RequestPayload } from './upstream-client.js';
import { ESTIMATED_HEADER } from './usage-estimate.js';

/** Audio never reaches an in-process provider (the catalog loader keeps it off), which alone reads the payload. */
const NO_PAYLOAD: RequestPayload = { payload: {} };

export interface AudioDeps extends RouteAttemptDeps {
  /** Largest audio file a transcription takes (spec 4.1: 25 MB). */
  maxFileBytes: number;
  /** The gateway's default guardrail (config guardrails.default): speech's input and a transcription's prompt and transcript are checked as chat's text is. */
  guardrails?: GuardrailPolicy | null;
}

export interface AudioRequest {
  /** The caller's key, authenticated by the router before the upload was read. */
  key: KeyRecord;
  contentType: string;
  body: Buffer;
  /** The x-gw-guardrails header. */
  guardrails?: string;
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
  /** The request's guardrail, when one is on: its text was checked (speech's input, a transcription's prompt), and with outputs a transcript is. */
  guard: Guard | null;
}

/** How the serving attempt's answer ended. */
interface AudioEnd {
  /** Units billed: seconds heard, or characters spoken. */
  units: number;
  estimated: boolean;
  latencyMs: number;
  aborted: boolean;
  failure: RouteFailure | null;
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

  handle(endpoint: AudioEndpoint, req: AudioRequest, reply: ClientReply): Promise<number> {
    const d = this.#d;
    const startedMs = performance.now();
    return admitted(req.key, d.gate, reply.requestId,
      (key) => {
        const job = endpoint === 'speech' ? this.#speech(req, key, reply.requestId) : this.#transcription(req, endpoint, key, reply.requestId);
        return { job, plan: d.planner.plan(job.model, endpoint, job.ext, key.orgId) };
      },
      (p) => maxUnitCostMicros(p.plan, p.job.holdUnits),
      (key, p, requestId) => this.#serve(p.job, key, p.plan, requestId, reply, startedMs));
  }

  /** Speech to text: a transcription, or a translation into English; the same upload and billing. */
  #transcription(req: AudioRequest, endpoint: 'transcriptions' | 'translations', key: KeyRecord, requestId: string): AudioJob {
    const t = parseTranscriptionBody(req.contentType, req.body, this.#d.maxFileBytes);
    const guard = requestGuard(t, req.guardrails, key.guardrails ?? null, this.#d.guardrails ?? null);
    // The prompt is the only text the client sends; the audio itself is not read.
    if (guard !== null) this.#checked(guard, key, endpoint, t.model, requestId, () => { t.forward = t.forward.map((f) => guardedPrompt(f, guard)); });
    return {
      endpoint, model: t.model, ext: t.ext, probedSeconds: t.probedSeconds, fileBytes: t.fileBytes, responseFormat: t.responseFormat, guard,
      holdUnits: billedSeconds(t.probedSeconds ?? t.fileBytes / FALLBACK_BYTES_PER_SECOND),
      call: (a) => {
        const adapter = adapterFor(a.route.provider.entry.kind);
        // Unreachable: the catalog loader and the planner keep transcriptions off adapters that take no uploads.
        if (adapter.buildFormCall === undefined) throw new RouteFailure('unsupported', `${a.route.provider.id} takes no audio uploads`);
        return adapter.buildFormCall(endpoint, t.forward, a.route.upstreamModel);
      },
    };
  }

  /** Text to speech; the text is what the user sends, so a guardrail checks it (redacted text is spoken as its marker). */
  #speech(req: AudioRequest, key: KeyRecord, requestId: string): AudioJob {
    const s = parseSpeechBody(req.body);
    const guard = requestGuard(s, req.guardrails, key.guardrails ?? null, this.#d.guardrails ?? null);
    if (guard !== null) this.#checked(guard, key, 'speech', s.model, requestId, () => { s.payload.input = guard.text(s.payload.input as string); });
    return {
      endpoint: 'speech', model: s.model, ext: s.ext, probedSeconds: null, fileBytes: 0, responseFormat: '', holdUnits: s.characters, guard,
      call: (a) => adapterFor(a.route.provider.entry.kind).buildCall('speech', s.payload, a.route.upstreamModel, { streamOptions: false }),
    };
  }

  /**
   * Runs a request's guardrail check; a refusal is recorded (one row, never sent, not billed) and
   * thrown with the header naming what fired, as on chat.
   */
  #checked(guard: Guard, key: KeyRecord, endpoint: AudioEndpoint, model: string, requestId: string, check: () => void): void {
    try {
      check();
    } catch (e) {
      if (guard.blocked === null || !isGatewayError(e)) throw e;
      this.#d.usage.record(blockedRecord(this.#d.clock.now(), key, endpoint, model, requestId, guard));
      throw new GatewayError(e.status, e.type, e.code, e.message, { [GUARDRAILS_HEADER]: guard.summary()! });
    }
  }

  async #serve(job: AudioJob, key: KeyRecord, plan: Attempt[], requestId: string, reply: ClientReply, startedMs: number): Promise<number> {
    const req: RequestScope = { key, requestId, endpoint: job.endpoint, model: job.model, guard: job.guard, startedMs, upstreamMs: 0 };
    const streamed = job.endpoint === 'speech';
    const won = await firstServing(this.#d.breakers, plan, reply, (a, started) => this.#attempt(job, a, reply, started),
      (a, i, status, errorCode, latencyMs, queueMs) => this.#record(req, a, i, {
        status, errorCode, tokens: null, units: 0, costMicros: 0, latencyMs, ttfbMs: null, queueMs, streamed, billable: false,
        usageEstimated: false, usageClamped: false,
      }));
    if (won === null) return 0;
    const { a, served } = won;
    const headers: Record<string, string> = { 'x-gw-provider': a.route.provider.id, 'x-gw-request-id': requestId };
    return served.kind === 'whole'
      ? this.#transcribed(job, req, won, served, headers, reply)
      : this.#spoken(job, req, won, served, headers, reply);
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

  #transcribed(job: AudioJob, req: RequestScope, won: Winner<Served>, served: Extract<Served, { kind: 'whole' }>,
    headers: Record<string, string>, reply: ClientReply): number {
    const { a } = won;
    const seconds = reportedSeconds(served.body, served.res.contentType) ?? job.probedSeconds;
    const estimated = seconds === null;
    if (estimated) headers[ESTIMATED_HEADER] = 'estimated';
    const units = billedSeconds(seconds ?? job.fileBytes / FALLBACK_BYTES_PER_SECOND);
    const adapter = adapterFor(a.route.provider.entry.kind);
    const out = adapter.readAnswer ? adapter.readAnswer(job.endpoint, served.body, served.res.contentType, job.responseFormat)
      : { body: served.body, contentType: served.res.contentType };
    const guard = job.guard;
    let body = out.body;
    if (guard !== null && guard.policy.outputs) {
      try {
        body = guardedTranscript(body, out.contentType, guard);
      } catch (e) {
        if (guard.blocked === null || !isGatewayError(e)) throw e;
        // The provider did the work: billed, and the client told 400 guardrail_blocked.
        const cost = this.#finish(req, won, { units, estimated, latencyMs: performance.now() - won.started, aborted: false, failure: null });
        if (!reply.aborted) reply.sendError(new GatewayError(e.status, e.type, e.code, e.message, { ...headers, [GUARDRAILS_HEADER]: guard.summary()! }));
        return cost;
      }
    }
    const fired = guard?.summary() ?? null;
    if (fired !== null) headers[GUARDRAILS_HEADER] = fired;
    if (!reply.aborted) reply.send(200, out.contentType, body, headers);
    return this.#finish(req, won, { units, estimated, latencyMs: performance.now() - won.started, aborted: reply.aborted, failure: null });
  }

  async #spoken(job: AudioJob, req: RequestScope, won: Winner<Served>, served: Extract<Served, { kind: 'stream' }>,
    headers: Record<string, string>, reply: ClientReply): Promise<number> {
    const outcome = await relayBytes(reply, served.res, served.first, served.res.contentType, headers);
    return this.#finish(req, won, { units: job.holdUnits, estimated: false, latencyMs: performance.now() - won.started, aborted: outcome.aborted,
      failure: outcome.failure });
  }

  /**
   * Records the serving attempt and returns its cost. A client that leaves mid-answer is billed
   * in full (the provider did the work); audio the provider broke off is not billed at all.
   */
  #finish(req: RequestScope, won: Winner<Served>, end: AudioEnd): number {
    const { a, served } = won;
    const { units, latencyMs, aborted, failure } = end;
    const cost = req.key.tier === 'trial' || a.byok || failure !== null ? 0 : unitCostMicros(a.route, units);
    this.#record(req, a, won.i, {
      status: aborted ? 499 : 200, errorCode: aborted ? 'client_aborted' : failure ? failure.code : null, tokens: null, units,
      costMicros: cost, latencyMs, ttfbMs: served.ttfbMs, queueMs: served.res.queueMs, streamed: req.endpoint === 'speech', billable: true,
      usageEstimated: end.estimated, usageClamped: false,
    });
    if (!aborted && failure === null && !a.route.direct) this.#d.stats.for(a.route.id).record(latencyMs, 0, latencyMs - served.ttfbMs);
    // The serving attempt's end, as its latency was read: no second clock reading.
    const totalMs = won.started + latencyMs - req.startedMs;
    this.#d.served.served(req.endpoint, totalMs, totalMs - req.upstreamMs);
    return cost;
  }

  #record(req: RequestScope, a: Attempt, attempt: number, end: AttemptEnd): void {
    req.upstreamMs += end.latencyMs;
    this.#d.usage.record(attemptRecord(this.#d.clock.now(), req, a, attempt, end));
  }
}

/** A form field as it goes upstream: the prompt checked by the guardrail (redacted, or refused by a throw), the rest as sent. */
function guardedPrompt(f: FormPart, guard: Guard): FormPart {
  if (f.name !== 'prompt' || f.filename !== null) return f;
  const text = f.data.toString('utf8');
  const checked = guard.text(text);
  if (checked === text) return f;
  const data = Buffer.from(checked);
  return { name: f.name, filename: null, contentType: f.contentType, data, raw: textPart('prompt', checked) };
}

/**
 * A transcript checked as an answer: in JSON (json, verbose_json) its `text` and each segment's
 * and word's text; in text, srt and vtt the whole of it (a marker holds no line break or arrow).
 */
function guardedTranscript(body: Buffer | string, contentType: string, guard: Guard): Buffer | string {
  const raw = typeof body === 'string' ? body : body.toString('utf8');
  if (!contentType.includes('json')) {
    const checked = guard.text(raw, 'answer');
    return checked === raw ? body : Buffer.from(checked);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch {
    return body;
  }
  if (typeof doc !== 'object' || doc === null) return body;
  const d = doc as { text?: unknown; segments?: unknown; words?: unknown };
  let changed = false;
  const check = (o: { text?: unknown; word?: unknown }): void => {
    for (const k of ['text', 'word'] as const) {
      const v = o[k];
      if (typeof v !== 'string') continue;
      const c = guard.text(v, 'answer');
      if (c !== v) {
        o[k] = c;
        changed = true;
      }
    }
  };
  check(d);
  for (const list of [d.segments, d.words]) if (Array.isArray(list)) for (const x of list) if (typeof x === 'object' && x !== null) check(x as { text?: unknown });
  return changed ? Buffer.from(JSON.stringify(doc)) : body;
}
