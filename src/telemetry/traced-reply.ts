import type { ClientReply } from '../domain/client-reply.js';
import { ForwardingReply } from '../domain/forwarding-reply.js';
import type { GatewayError } from '../errors/gateway-error.js';

/** The most of an answer kept for gen_ai.output.messages (content capture only). */
const MAX_KEPT_BYTES = 256 * 1024;

/**
 * The client's reply with traces on: passes every write through and notes the status and error
 * code the client was given, for the request span; with content capture, keeps the answer's
 * bytes too (up to 256 KiB). Like the cache's CapturingReply, it sits between the route and the
 * service, so the service never knows it is traced.
 */
export class TracedReply extends ForwardingReply {
  status = 0;
  code: string | null = null;
  contentType = '';
  /** The answer's bytes, kept only when content is captured. */
  readonly kept: Buffer[] | null;
  #keptBytes = 0;

  constructor(inner: ClientReply, keep: boolean) {
    super(inner);
    this.kept = keep ? [] : null;
  }

  override send(status: number, contentType: string, body: Buffer | string, headers?: Record<string, string>): void {
    this.status = status;
    this.contentType = contentType;
    this.#keep(body);
    super.send(status, contentType, body, headers);
  }

  override sendError(e: GatewayError): void {
    this.status = e.status;
    this.code = e.code;
    super.sendError(e);
  }

  override streamStart(status: number, contentType: string, headers: Record<string, string>, first: Buffer): boolean {
    this.status = status;
    this.contentType = contentType;
    this.#keep(first);
    return super.streamStart(status, contentType, headers, first);
  }

  override streamWrite(chunk: Buffer | string): boolean {
    this.#keep(chunk);
    return super.streamWrite(chunk);
  }

  override streamEnd(last?: Buffer | string, failedWith?: string): void {
    if (last !== undefined) this.#keep(last);
    if (failedWith !== undefined) this.code = failedWith;
    super.streamEnd(last, failedWith);
  }

  override streamAbort(): void {
    this.code ??= 'stream_aborted';
    super.streamAbort();
  }

  #keep(chunk: Buffer | string): void {
    if (this.kept === null || this.#keptBytes >= MAX_KEPT_BYTES) return;
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk);
    this.#keptBytes += b.length;
    this.kept.push(b);
  }
}
