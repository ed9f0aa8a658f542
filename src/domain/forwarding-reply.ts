import type { GatewayError } from '../errors/gateway-error.js';
import type { ClientReply } from './client-reply.js';

/**
 * A reply that hands every call to the client's own, for wrappers that only watch or amend an
 * answer on its way (the response cache's copy, the trace's status): they override the calls
 * they care about and call these. It has no passThrough, so a translating reply inside one keeps
 * that call. The translating reply itself stays apart: it rewrites every write, on a measured path.
 */
export class ForwardingReply implements ClientReply {
  protected readonly inner: ClientReply;

  constructor(inner: ClientReply) {
    this.inner = inner;
  }

  get aborted(): boolean {
    return this.inner.aborted;
  }

  get requestId(): string {
    return this.inner.requestId;
  }

  onAbort(cb: () => void): void {
    this.inner.onAbort(cb);
  }

  send(status: number, contentType: string, body: Buffer | string, headers?: Record<string, string>): void {
    this.inner.send(status, contentType, body, headers);
  }

  sendError(e: GatewayError): void {
    this.inner.sendError(e);
  }

  streamStart(status: number, contentType: string, headers: Record<string, string>, first: Buffer): boolean {
    return this.inner.streamStart(status, contentType, headers, first);
  }

  streamWrite(chunk: Buffer | string): boolean {
    return this.inner.streamWrite(chunk);
  }

  drained(): Promise<void> {
    return this.inner.drained();
  }

  streamEnd(last?: Buffer | string, failedWith?: string): void {
    this.inner.streamEnd(last, failedWith);
  }

  streamAbort(): void {
    this.inner.streamAbort();
  }

  batch(writes: () => void): boolean {
    return this.inner.batch(writes);
  }
}
