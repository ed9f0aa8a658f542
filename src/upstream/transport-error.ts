/** Stable codes for every way an upstream exchange can fail below HTTP semantics. */
export type TransportErrorCode =
  | 'connect_error'
  | 'connect_timeout'
  | 'connection_reset'
  | 'headers_timeout'
  | 'body_timeout'
  | 'protocol_error'
  | 'aborted'
  | 'closed'
  /** Every connection to the origin is busy and the wait for one passed its bound (queue length or time). */
  | 'saturated';

/** The one error the HTTP/1.1 client raises; the data plane maps its code to a route failure. */
export class TransportError extends Error {
  readonly code: TransportErrorCode;

  constructor(code: TransportErrorCode, message: string) {
    super(message);
    this.name = 'TransportError';
    this.code = code;
  }
}
