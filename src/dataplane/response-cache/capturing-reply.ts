import type { ClientReply } from '../../domain/client-reply.js';
import type { CachedAnswer } from '../../domain/stores/response-cache-store.js';
import type { GatewayError } from '../../errors/gateway-error.js';

/** Headers that belong to one request, never to a stored answer. */
const OWN = new Set(['x-request-id', 'x-gw-request-id']);

/**
 * A reply that passes every write to the client's and keeps a copy, for the response cache: the
 * answer as the client received it, after every translation and edit. It is storable only when
 * it was a whole 200 (or a 200 stream that ended cleanly) within `maxBytes`.
 */
export class CapturingReply implements ClientReply {
  readonly #inner: ClientReply;
  readonly #maxBytes: number;
  readonly #extra: Record<string, string>;
  #status = 0;
  #contentType = '';
  #headers: Record<string, string> = {};
  #chunks: Buffer[] = [];
  #bytes = 0;
  #streamed = false;
  #complete = false;
  #spoilt = false;

  constructor(inner: ClientReply, maxBytes: number, extraHeaders: Record<string, string>) {
    this.#inner = inner;
    this.#maxBytes = maxBytes;
    this.#extra = extraHeaders;
  }

  get aborted(): boolean {
    return this.#inner.aborted;
  }

  get requestId(): string {
    return this.#inner.requestId;
  }

  onAbort(cb: () => void): void {
    this.#inner.onAbort(cb);
  }

  send(status: number, contentType: string, body: Buffer | string, headers?: Record<string, string>): void {
    this.#head(status, contentType, headers);
    this.#keep(body);
    this.#complete = true;
    this.#inner.send(status, contentType, body, { ...headers, ...this.#extra });
  }

  sendError(e: GatewayError): void {
    this.#spoilt = true;
    this.#inner.sendError(e);
  }

  streamStart(status: number, contentType: string, headers: Record<string, string>, first: Buffer): boolean {
    this.#head(status, contentType, headers);
    this.#streamed = true;
    this.#keep(first);
    return this.#inner.streamStart(status, contentType, { ...headers, ...this.#extra }, first);
  }

  streamWrite(chunk: Buffer | string): boolean {
    this.#keep(chunk);
    return this.#inner.streamWrite(chunk);
  }

  drained(): Promise<void> {
    return this.#inner.drained();
  }

  streamEnd(last?: Buffer | string, failedWith?: string): void {
    if (last !== undefined) this.#keep(last);
    if (failedWith === undefined) this.#complete = true;
    else this.#spoilt = true;
    this.#inner.streamEnd(last, failedWith);
  }

  streamAbort(): void {
    this.#spoilt = true;
    this.#inner.streamAbort();
  }

  batch(writes: () => void): boolean {
    return this.#inner.batch(writes);
  }

  /**
   * The answer to store with what it cost (micro-rupees), or null when it must not be (an error, a
   * cut stream, too large, the client gone).
   */
  answer(costMicros: number): CachedAnswer | null {
    if (!this.#complete || this.#spoilt || this.#status !== 200 || this.aborted) return null;
    return { status: this.#status, contentType: this.#contentType, headers: this.#headers, body: Buffer.concat(this.#chunks), streamed: this.#streamed,
      costMicros };
  }

  #head(status: number, contentType: string, headers: Record<string, string> | undefined): void {
    this.#status = status;
    this.#contentType = contentType;
    if (headers) for (const [k, v] of Object.entries(headers)) if (!OWN.has(k)) this.#headers[k] = v;
  }

  #keep(chunk: Buffer | string): void {
    if (this.#spoilt) return;
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk);
    this.#bytes += b.length;
    if (this.#bytes > this.#maxBytes) {
      this.#spoilt = true;
      this.#chunks = [];
      return;
    }
    this.#chunks.push(b);
  }
}
