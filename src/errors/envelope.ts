import { isUnreachable } from './unreachable.js';
import { errors } from './catalog.js';
import { GatewayError, isGatewayError } from './gateway-error.js';

/** The one JSON error envelope: {"error":{"message","type","code"}}. */
export function envelopeJson(e: GatewayError): string {
  return JSON.stringify({ error: { message: e.message, type: e.type, code: e.code } });
}

/** Turns anything thrown into a GatewayError; unknown errors become 500 internal_error and are logged by the caller. */
export function toGatewayError(e: unknown): { error: GatewayError; unexpected: boolean } {
  if (isGatewayError(e)) return { error: e, unexpected: false };
  if (isUnreachable(e)) return { error: STORE_UNREACHABLE, unexpected: false };
  return { error: errors.internal(), unexpected: true };
}

const STORE_UNREACHABLE = errors.serviceUnavailable('The database is unreachable; retry shortly');

/** An SSE event carrying an error, for failures after the stream's headers were sent. */
export function sseErrorEvent(e: GatewayError): string {
  return `data: ${envelopeJson(e)}\n\ndata: [DONE]\n\n`;
}
