import { performance } from 'node:perf_hooks';
import type { UsageRecord } from '../domain/usage-record.js';
import type { OtlpExporter } from './otlp-exporter.js';
import { epochNs, type AttributeValue, type Span } from './span.js';
import { newSpanId, newTraceId, parseTraceparent, traceparent } from './trace-context.js';

/**
 * Endpoints billed on units rather than tokens (seconds heard, characters spoken): their spans
 * carry `gw.units` and no gen_ai.usage.* token counts (the ledger's are 0 for them, not a count).
 */
const UNIT_ENDPOINTS: ReadonlySet<string> = new Set(['transcriptions', 'translations', 'speech']);

/** Epoch milliseconds now, to the microsecond (span times must line up across the two clocks). */
const nowMs = (): number => performance.timeOrigin + performance.now();

/** One request's trace while it runs: its span and the attempts' spans as they end. */
export class RequestTrace {
  readonly spanId = newSpanId();
  readonly startMs = nowMs();
  model = '';
  readonly attempts: Span[] = [];
  /** The attempt under way (attempts are sequential): its span id, start and the provider's model id. */
  attemptSpanId = '';
  attemptStartMs = 0;
  attemptModel = '';
  /** The serving attempt's record (or the cache hit's), and the provider's model id it ran on. */
  served: UsageRecord | null = null;
  servedModel: string | null = null;
  /** Content, only when tracing.captureContent is on: gen_ai.* JSON strings. */
  content: Record<string, string | null> | null = null;
  /** A span not named `<operation> <model>` (the /mcp request's), and attributes of its own. */
  name: string | null = null;
  extra: Record<string, AttributeValue | null> | null = null;

  constructor(readonly traceId: string, readonly parentId: string | null, readonly requestId: string, readonly operation: string) {}
}

/**
 * Spans of the inference path with the OpenTelemetry GenAI semantic conventions: one server span
 * per request (`chat <model>`), one client span per upstream attempt, the attempt's span sent to
 * the provider as `traceparent` so its own traces join. Built from what the ledger records, and
 * exported off the request path (otlp-exporter.ts).
 *
 * Nothing on the request path holds a trace: the three hooks that feed it (traced-routes.ts,
 * traced-upstream.ts, traced-usage.ts) are installed only when traces are on, and find a request's
 * trace here by its request id, which the reply, the upstream call's abort source and the usage
 * record all carry already.
 */
export class Tracer {
  readonly #exporter: OtlpExporter;
  readonly #open = new Map<string, RequestTrace>();

  constructor(exporter: OtlpExporter) {
    this.#exporter = exporter;
  }
  /** Spans exported and dropped so far (/metrics `gw_trace_spans_total`). */
  spans(): { exported: number; dropped: number } {
    return { exported: this.#exporter.exported, dropped: this.#exporter.dropped };
  }


  /** A request starts: continues the client's trace when it sent a valid traceparent. */
  start(requestId: string, header: string | undefined, operation: string): RequestTrace {
    const incoming = parseTraceparent(header);
    const t = new RequestTrace(incoming?.traceId ?? newTraceId(), incoming?.parentId ?? null, requestId, operation);
    this.#open.set(requestId, t);
    return t;
  }

  /**
   * A request made inside another traced request (the MCP chat tool's, inside its /mcp call): a
   * child of that request's span, or a new trace when `parentRequestId` is not traced.
   */
  startWithin(requestId: string, parentRequestId: string, operation: string): RequestTrace {
    const p = this.#open.get(parentRequestId);
    const t = new RequestTrace(p?.traceId ?? newTraceId(), p?.spanId ?? null, requestId, operation);
    this.#open.set(requestId, t);
    return t;
  }

  /** An attempt of request `requestId` is about to be sent: the traceparent header naming its span, or null when the request is not traced. */
  attemptSent(requestId: string, upstreamModel: string): string | null {
    const t = this.#open.get(requestId);
    if (t === undefined) return null;
    t.attemptSpanId = newSpanId();
    t.attemptStartMs = nowMs();
    t.attemptModel = upstreamModel;
    return traceparent(t.traceId, t.attemptSpanId);
  }

  /** A usage record was made: an attempt ended (its span), or the request was answered without one (a cache hit, a guardrail's block). */
  recorded(r: UsageRecord): void {
    const t = this.#open.get(r.requestId);
    if (t === undefined) return;
    if (t.model === '') t.model = r.model;
    if (r.provider === null) {
      if (r.cacheHit) t.served = r;
      return;
    }
    const end = nowMs();
    const failed = r.status >= 400 || r.errorCode !== null;
    // An attempt refused before it was sent (an open circuit) gets a span id of its own.
    const sent = t.attemptSpanId !== '';
    const spanId = sent ? t.attemptSpanId : newSpanId();
    const model = sent ? t.attemptModel : r.model;
    t.attemptSpanId = '';
    const tokens = r.billable && !UNIT_ENDPOINTS.has(r.endpoint);
    t.attempts.push({
      traceId: t.traceId, spanId, parentSpanId: t.spanId, name: `${t.operation} ${model}`, kind: 3,
      startNs: epochNs(sent ? t.attemptStartMs : end - r.latencyMs), endNs: epochNs(end),
      attributes: {
        'gen_ai.operation.name': t.operation, 'gen_ai.provider.name': r.provider, 'gen_ai.request.model': model,
        'gen_ai.usage.input_tokens': tokens ? r.promptTokens : null, 'gen_ai.usage.output_tokens': tokens ? r.completionTokens : null,
        'gw.units': r.billable && !tokens ? r.units : null, 'http.response.status_code': r.status, 'error.type': r.errorCode, 'gw.attempt': r.attempt, 'gw.route': r.route,
        'gw.time_to_first_chunk_ms': r.ttfbMs, 'gw.cost_inr': r.billable ? r.costMicros / 1e6 : null,
      },
      status: failed ? 2 : 1, ...(failed && r.errorCode !== null ? { statusMessage: r.errorCode } : {}),
    });
    if (r.billable) {
      t.served = r;
      t.servedModel = model;
    }
  }

  /** The request ended with `status` (and `code`, an error's): its span and its attempts' go to the exporter. */
  end(t: RequestTrace, status: number, code: string | null): void {
    this.#open.delete(t.requestId);
    const s = t.served;
    const failed = status >= 400;
    const units = s !== null && UNIT_ENDPOINTS.has(s.endpoint);
    const attributes: Record<string, AttributeValue | null> = {
      'gen_ai.operation.name': t.operation || null, 'gen_ai.request.model': t.model || null,
      'gen_ai.provider.name': s?.provider ?? null, 'gen_ai.response.model': t.servedModel,
      'gen_ai.usage.input_tokens': units ? null : s?.promptTokens ?? null, 'gen_ai.usage.output_tokens': units ? null : s?.completionTokens ?? null,
      'gw.units': units ? s.units : null, 'gen_ai.usage.cache_read.input_tokens': s === null || s.cachedTokens === 0 ? null : s.cachedTokens,
      'http.response.status_code': status, 'error.type': code, 'gw.request_id': t.requestId, 'gw.attempts': t.attempts.length,
      'gw.org_id': s?.orgId ?? null, 'gw.key_id': s?.keyId ?? null, 'gw.cache_hit': s?.cacheHit === true ? true : null,
      'gw.guardrail': s?.guardrail ?? null,
    };
    if (t.extra !== null) Object.assign(attributes, t.extra);
    if (t.content !== null) Object.assign(attributes, t.content);
    this.#exporter.add([{
      traceId: t.traceId, spanId: t.spanId, parentSpanId: t.parentId, name: t.name ?? `${t.operation} ${t.model}`.trim(), kind: 2,
      startNs: epochNs(t.startMs), endNs: epochNs(nowMs()), attributes,
      status: failed ? 2 : 1, ...(failed && code !== null ? { statusMessage: code } : {}),
    }, ...t.attempts]);
  }

  /** Requests under way (a test's and a leak's measure: every start has its end). */
  get open(): number {
    return this.#open.size;
  }

  /** Sends what is queued (shutdown). */
  flush(): Promise<void> {
    return this.#exporter.flush();
  }
}
