import type { ClientReply } from '../domain/client-reply.js';
import { envelopeJson } from '../errors/envelope.js';
import type { GatewayError } from '../errors/gateway-error.js';
import { nextRequestId } from '../lib/request-id.js';

/**
 * A ClientReply that keeps the answer in memory, for an MCP tool that runs an inference request
 * through the same service as the HTTP API (auth, limits, routing, billing, ledger) and then
 * wraps the result in its own message. Only whole answers are asked for, so no stream is written.
 */
export class MemoryReply implements ClientReply {
  readonly aborted = false;
  /** The tool's inference request has its own id (and ledger rows), apart from the MCP call's. */
  readonly requestId = nextRequestId();
  status = 0;
  contentType = '';
  body = '';
  headers: Record<string, string> = {};

  /** `via`: the id of the /mcp request whose tool call this is (with traces on, its span is the parent's). */
  constructor(readonly via: string) {}

  onAbort(): void {
    // An MCP call is answered as a whole; the HTTP request around it is not aborted mid-tool.
  }

  send(status: number, contentType: string, body: Buffer | string, headers?: Record<string, string>): void {
    this.status = status;
    this.contentType = contentType;
    this.body = typeof body === 'string' ? body : body.toString('utf8');
    this.headers = headers ?? {};
  }

  sendError(e: GatewayError): void {
    this.send(e.status, 'application/json', envelopeJson(e), e.headers ?? undefined);
  }

  streamStart(status: number, contentType: string, headers: Record<string, string>, first: Buffer): boolean {
    this.send(status, contentType, first, headers);
    return true;
  }

  streamWrite(chunk: Buffer | string): boolean {
    this.body += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    return true;
  }

  drained(): Promise<void> {
    return Promise.resolve();
  }

  streamEnd(last?: Buffer | string): void {
    if (last !== undefined) this.streamWrite(last);
  }

  streamAbort(): void {
    // Nothing to close: the tool reports what arrived.
  }

  batch(writes: () => void): boolean {
    writes();
    return true;
  }
}
