import { performance } from 'node:perf_hooks';
import type { UsageRecord } from '../domain/usage-record.js';
import type { OtlpExporter } from './otlp-exporter.js';
import { epochNs, type Span } from './span.js';
import { newSpanId, newTraceId, parseTraceparent, traceparent } from './trace-context.js';

/** Epoch milliseconds now, to the microsecond (span times must line up across the two clocks). */
const nowMs = (): number => performance.timeOrigin + performance.now();

/** One request's trace while it runs: its span and the attempts' spans as they end. */
export class RequestTrace {
  readonly spanId = newSpanId();
  readonly startMs = nowMs();
  model = '';
  readonly attempts: Span[] = [];
  /** The span id sent to the provider with the attempt under way. */
  attemptSpanId = '';
  /** The serving attempt's record, for the request span's usage attributes. */
  served: { record: UsageRecord; upstreamModel: string } | null = null;

  constructor(readonly traceId: string, readonly parentId: string | null, readonly requestId: string, readonly endpoint: string) {}
}

/**
 * Spans of the inference path with the OpenTelemetry GenAI semantic conventions: one server span
 * per request (`chat <model>`), one client span per upstream attempt, the attempt's span sent to
 * the provider as `traceparent` so its own traces join. Built from what the ledger records (never
 * prompts or completions), and exported off the request path (otlp-exporter.ts).
 */
export class Tracer {
  readonly #exporter: OtlpExporter;

  constructor(exporter: OtlpExporter) {
    this.#exporter = exporter;
  }

  /** A request starts: continues the client's trace when it sent a valid traceparent. */
  start(requestId: string, header: string | undefined, endpoint: string): RequestTrace {
    const incoming = parseTraceparent(header);
    return new RequestTrace(incoming?.traceId ?? newTraceId(), incoming?.parentId ?? null, requestId, endpoint);
  }

  /** An attempt is about to be sent: the traceparent header that names its span. */
  attemptSent(t: RequestTrace): string {
    t.attemptSpanId = newSpanId();
    return traceparent(t.traceId, t.attemptSpanId);
  }

  /** An attempt ended, as its usage record tells it. */
  attemptEnded(t: RequestTrace, r: UsageRecord, upstreamModel: string): void {
    const end = nowMs();
    const failed = r.status >= 400 || r.errorCode !== null;
    // An attempt refused before it was sent (an open circuit) gets a span id of its own.
    const spanId = t.attemptSpanId !== '' ? t.attemptSpanId : newSpanId();
    t.attemptSpanId = '';
    t.attempts.push({
      traceId: t.traceId, spanId, parentSpanId: t.spanId, name: `${operation(r.endpoint)} ${upstreamModel}`, kind: 3,
      startNs: epochNs(end - r.latencyMs), endNs: epochNs(end),
      attributes: {
        'gen_ai.operation.name': operation(r.endpoint), 'gen_ai.provider.name': r.provider, 'gen_ai.request.model': upstreamModel,
        'gen_ai.usage.input_tokens': r.billable ? r.promptTokens : null, 'gen_ai.usage.output_tokens': r.billable ? r.completionTokens : null,
        'http.response.status_code': r.status, 'error.type': r.errorCode, 'gw.attempt': r.attempt, 'gw.route': r.route,
        'gw.time_to_first_chunk_ms': r.ttfbMs, 'gw.cost_inr': r.billable ? r.costMicros / 1e6 : null,
      },
      status: failed ? 2 : 1, ...(failed && r.errorCode !== null ? { statusMessage: r.errorCode } : {}),
    });
    if (r.billable) t.served = { record: r, upstreamModel };
  }

  /** The request ended with `status` (and `code`, an error's): its span and its attempts' go to the exporter. */
  end(t: RequestTrace, status: number, code: string | null): void {
    const s = t.served?.record ?? null;
    const failed = status >= 400;
    const span: Span = {
      traceId: t.traceId, spanId: t.spanId, parentSpanId: t.parentId, name: `${operation(t.endpoint)} ${t.model}`.trim(), kind: 2,
      startNs: epochNs(t.startMs), endNs: epochNs(nowMs()),
      attributes: {
        'gen_ai.operation.name': operation(t.endpoint), 'gen_ai.request.model': t.model || null,
        'gen_ai.provider.name': s?.provider ?? null, 'gen_ai.response.model': t.served?.upstreamModel ?? null,
        'gen_ai.usage.input_tokens': s?.promptTokens ?? null, 'gen_ai.usage.output_tokens': s?.completionTokens ?? null,
        'http.response.status_code': status, 'error.type': code, 'gw.request_id': t.requestId, 'gw.attempts': t.attempts.length,
        'gw.org_id': s?.orgId ?? null, 'gw.key_id': s?.keyId ?? null,
      },
      status: failed ? 2 : 1, ...(failed && code !== null ? { statusMessage: code } : {}),
    };
    this.#exporter.add([span, ...t.attempts]);
  }

  /** Sends what is queued (shutdown). */
  flush(): Promise<void> {
    return this.#exporter.flush();
  }
}

/** The GenAI operation name of an endpoint. */
function operation(endpoint: string): string {
  return endpoint === 'chat' ? 'chat' : endpoint === 'embeddings' ? 'embeddings' : endpoint;
}
