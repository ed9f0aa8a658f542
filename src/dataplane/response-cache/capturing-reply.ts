import type { ClientReply } from '../../domain/client-reply.js';
import { ForwardingReply } from '../../domain/forwarding-reply.js';
import type { CachedAnswer } from '../../domain/stores/response-cache-store.js';
import type { GatewayError } from '../../errors/gateway-error.js';

/** Headers that belong to one request, never to a stored answer. */
const OWN = new Set(['x-request-id', 'x-gw-request-id']);

/**
 * A reply that passes every write to the client's and keeps a copy, for the response cache: the
 * answer as the client received it, after every translation and edit. It is storable only when
 * it was a whole 200 (or a 200 stream that ended cleanly) within `maxBytes`.
 */
export class CapturingReply extends ForwardingReply {
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
    super(inner);
    this.#maxBytes = maxBytes;
    this.#extra = extraHeaders;
  }

  override send(status: number, contentType: string, body: Buffer | string, headers?: Record<string, string>): void {
    this.#head(status, contentType, headers);
    this.#keep(body);
    this.#complete = true;
    super.send(status, contentType, body, { ...headers, ...this.#extra });
  }

  override sendError(e: GatewayError): void {
    this.#spoilt = true;
    super.sendError(e);
  }

  override streamStart(status: number, contentType: string, headers: Record<string, string>, first: Buffer): boolean {
    this.#head(status, contentType, headers);
    this.#streamed = true;
    this.#keep(first);
    return super.streamStart(status, contentType, { ...headers, ...this.#extra }, first);
  }

  override streamWrite(chunk: Buffer | string): boolean {
    this.#keep(chunk);
    return super.streamWrite(chunk);
  }

  override streamEnd(last?: Buffer | string, failedWith?: string): void {
    if (last !== undefined) this.#keep(last);
    if (failedWith === undefined) this.#complete = true;
    else this.#spoilt = true;
    super.streamEnd(last, failedWith);
  }

  override streamAbort(): void {
    this.#spoilt = true;
    super.streamAbort();
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
