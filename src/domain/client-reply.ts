import type { GatewayError } from '../errors/gateway-error.js';
import type { NativeBytes } from './native-bytes.js';

/**
 * The data plane's view of the client connection. The HTTP layer implements it over
 * uWebSockets.js (corking, backpressure, abort); nothing here knows the server library.
 */
export interface ClientReply {
  readonly aborted: boolean;
  /** This request's id: sent as x-request-id on the answer and recorded in the ledger. */
  readonly requestId: string;
  /** Called once if the client goes away before the response ends. */
  onAbort(cb: () => void): void;
  /** A whole response in one write. */
  send(status: number, contentType: string, body: Buffer | string, headers?: Record<string, string>): void;
  sendError(e: GatewayError): void;
  /** Status, headers and the first chunk in one write; returns false under backpressure. */
  streamStart(status: number, contentType: string, headers: Record<string, string>, first: Buffer): boolean;
  /** Returns false under backpressure: wait for drained() before writing more. */
  streamWrite(chunk: Buffer | string): boolean;
  drained(): Promise<void>;
  /** `failedWith`: the code of the error event `last` ends a started stream with (the HTTP metrics count the answer under it). */
  streamEnd(last?: Buffer | string, failedWith?: string): void;
  /**
   * Ends a stream that cannot finish by closing the connection without the body's last chunk,
   * so the client sees an incomplete answer, not a short one that looks whole (binary bodies,
   * where no error event can be added).
   */
  streamAbort(): void;
  /**
   * Runs `writes` so that every stream call inside it reaches the socket as one write. The
   * stream calls inside report success; whether the socket took it all (false: wait for
   * drained()) is what batch returns.
   */
  batch(writes: () => void): boolean;
  /**
   * Present on replies in another inbound format: from now on the client is written the
   * provider's own bytes (`native`) in place of the translation of what the data plane writes,
   * because the provider speaks the client's format.
   */
  passThrough?(native: NativeBytes): void;
}
