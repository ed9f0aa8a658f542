import type { TransportError } from './transport-error.js';

/**
 * The receiving end of one exchange, called in order: head, zero or more data, then end or
 * error (error may also come first). Exactly one of end and error is called.
 */
export interface ResponseSink {
  /** `contentLength` is -1 when the body is not framed by a length. */
  onResponseHead(status: number, contentType: string | null, contentLength: number): void;
  /** A piece of the body, valid only during the call (copy it to keep it). False asks for a pause. */
  onResponseData(view: Buffer): boolean;
  onResponseEnd(): void;
  onResponseError(err: TransportError): void;
}

/** What the sink's owner can do to its exchange once it is under way. */
export interface RequestControl {
  pause(): void;
  resume(): void;
  /** Ends the exchange now; the sink gets an `aborted` error unless it already ended. */
  abort(): void;
  /** How long the request waited for a free connection, in ms (0 when one was free). */
  readonly queueMs: number;
}
