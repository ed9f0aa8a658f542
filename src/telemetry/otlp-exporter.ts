import type { Logger } from '../lib/logger.js';
import { attributesJson, quote, spanJson } from './otlp-json.js';
import type { Span } from './span.js';

export interface OtlpExporterOptions {
  /** The collector's base URL (e.g. http://otel-collector:4318); spans go to <url>/v1/traces. */
  url: string;
  serviceName: string;
  serviceVersion: string;
  log: Logger;
  /** Spans are sent at most this often, or when `batchSize` are waiting. */
  flushMs?: number;
  batchSize?: number;
  /** Spans kept while the collector is slow or away; past it the oldest are dropped (and counted). */
  maxQueue?: number;
}

/**
 * OTLP/HTTP with JSON bodies (the protocol's JSON encoding): spans queue in memory and go in
 * batches off the request path. A collector that fails costs dropped spans, never a request.
 */
export class OtlpExporter {
  readonly #o: Required<OtlpExporterOptions>;
  readonly #endpoint: string;
  /** Spans as OTLP JSON, written when they end. */
  #queue: string[] = [];
  /** The request body around the spans: the resource and scope, written once. */
  readonly #head: string;
  #timer: NodeJS.Timeout | null = null;
  #sending: Promise<void> = Promise.resolve();
  /** Spans the collector took, and spans lost (queue over its bound, or a batch it did not take): /metrics serves both. */
  exported = 0;
  dropped = 0;
  #warned = false;

  constructor(o: OtlpExporterOptions) {
    this.#o = { flushMs: 1_000, batchSize: 256, maxQueue: 10_000, ...o };
    this.#endpoint = `${o.url.replace(/\/+$/, '')}/v1/traces`;
    const version = quote(this.#o.serviceVersion);
    this.#head = `{"resourceSpans":[{"resource":{"attributes":${attributesJson({ 'service.name': this.#o.serviceName, 'service.version': this.#o.serviceVersion })}},`
      + `"scopeSpans":[{"scope":{"name":"gw-gateway","version":${version}},"spans":[`;
  }

  add(spans: Span[]): void {
    for (const s of spans) this.#queue.push(spanJson(s));
    const over = this.#queue.length - this.#o.maxQueue;
    if (over > 0) {
      this.#queue.splice(0, over);
      this.dropped += over;
    }
    if (this.#queue.length >= this.#o.batchSize) void this.flush();
    else if (this.#timer === null) {
      this.#timer = setTimeout(() => void this.flush(), this.#o.flushMs);
      this.#timer.unref();
    }
  }

  /** Sends what is queued (in order after any send under way). */
  flush(): Promise<void> {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length === 0) return this.#sending;
    this.#sending = this.#sending.then(() => this.#send(batch));
    return this.#sending;
  }

  async #send(batch: string[]): Promise<void> {
    try {
      const res = await fetch(this.#endpoint, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: `${this.#head}${batch.join(',')}]}]}]}`,
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`collector answered ${res.status}`);
      this.exported += batch.length;
      this.#warned = false;
    } catch (e) {
      this.dropped += batch.length;
      if (!this.#warned) this.#o.log.warn('traces: the OTLP collector did not take a batch; its spans are dropped', { url: this.#endpoint, err: String(e) });
      this.#warned = true;
    }
  }
}
