import type { ClientReply } from '../domain/client-reply.js';
import type { GatewayError } from '../errors/gateway-error.js';

/** The most of an answer kept for gen_ai.output.messages (content capture only). */
const MAX_KEPT_BYTES = 256 * 1024;

/**
 * The client's reply with traces on: passes every write through and notes the status and error
 * code the client was given, for the request span; with content capture, keeps the answer's
 * bytes too (up to 256 KiB). Like the cache's CapturingReply, it sits between the route and the
 * service, so the service never knows it is traced. It has no passThrough: a translating reply
 * inside it takes that call.
 */
export class TracedReply implements ClientReply {
  readonly #inner: ClientReply;
  status = 0;
  code: string | null = null;
  contentType = '';
  /** The answer's bytes, kept only when content is captured. */
  readonly kept: Buffer[] | null;
  #keptBytes = 0;

  constructor(inner: ClientReply, keep: boolean) {
    this.#inner = inner;
    this.kept = keep ? [] : null;
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
    this.status = status;
    this.contentType = contentType;
    this.#keep(body);
    this.#inner.send(status, contentType, body, headers);
  }

  sendError(e: GatewayError): void {
    this.status = e.status;
    this.code = e.code;
    this.#inner.sendError(e);
  }

  streamStart(status: number, contentType: string, headers: Record<string, string>, first: Buffer): boolean {
    this.status = status;
    this.contentType = contentType;
    this.#keep(first);
    return this.#inner.streamStart(status, contentType, headers, first);
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
    if (failedWith !== undefined) this.code = failedWith;
    this.#inner.streamEnd(last, failedWith);
  }

  streamAbort(): void {
    this.code ??= 'stream_aborted';
    this.#inner.streamAbort();
  }

  batch(writes: () => void): boolean {
    return this.#inner.batch(writes);
  }

  #keep(chunk: Buffer | string): void {
    if (this.kept === null || this.#keptBytes >= MAX_KEPT_BYTES) return;
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk);
    this.#keptBytes += b.length;
    this.kept.push(b);
  }
}
