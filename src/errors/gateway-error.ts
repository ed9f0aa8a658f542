/** The one error class of the gateway: every failure a client can see is one of these. */
export class GatewayError extends Error {
  readonly status: number;
  readonly type: string;
  readonly code: string;
  /** Extra response headers (retry-after on 429). */
  readonly headers: Readonly<Record<string, string>> | null;

  constructor(status: number, type: string, code: string, message: string, headers: Record<string, string> | null = null) {
    super(message);
    this.name = 'GatewayError';
    this.status = status;
    this.type = type;
    this.code = code;
    this.headers = headers;
  }
}

export function isGatewayError(e: unknown): e is GatewayError {
  return e instanceof GatewayError;
}
