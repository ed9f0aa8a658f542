import type { ErrorFormat } from '../../errors/error-format.js';
import type { GatewayError } from '../../errors/gateway-error.js';

/**
 * Anthropic's error shape, `{"type":"error","error":{"type","message"},"request_id"}`, for the
 * /v1/messages routes: Anthropic's SDKs and Claude Code read `error.type` and `error.message`.
 * The HTTP status stays the spec's (503 is not turned into Anthropic's 529), and the spec's
 * code stays visible twice: at the end of the message, where a person reading a client's error
 * sees it, and as `error.details.error_code`, which the SDK exposes as `APIError.errorCode`.
 */
export function anthropicErrorBody(e: GatewayError, requestId: string | null): string {
  return JSON.stringify({
    type: 'error',
    error: { type: anthropicErrorType(e), message: `${e.message} (${e.code})`, details: { error_code: e.code } },
    request_id: requestId,
  });
}

/** Anthropic's `event: error` SSE event: a stream that broke after it started (no message_stop follows). */
export function anthropicErrorEvent(e: GatewayError, requestId: string | null): string {
  return `event: error\ndata: ${anthropicErrorBody(e, requestId)}\n\n`;
}

/** Anthropic's error types by the spec's status (and, for 503, by code: overloaded is Anthropic's overloaded_error). */
export function anthropicErrorType(e: GatewayError): string {
  switch (e.status) {
    case 400: case 405: case 409: case 422: return 'invalid_request_error';
    case 401: return 'authentication_error';
    case 402: return 'billing_error';
    case 403: return 'permission_error';
    case 404: return 'not_found_error';
    case 413: return 'request_too_large';
    case 429: return 'rate_limit_error';
    case 504: return 'timeout_error';
    case 503: return e.code === 'overloaded' || e.code === 'unavailable' ? 'overloaded_error' : 'api_error';
    default: return e.status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

export const ANTHROPIC_ERRORS: ErrorFormat = {
  body: anthropicErrorBody,
  event: anthropicErrorEvent,
  schema: {
    name: 'AnthropicError',
    json: {
      type: 'object',
      required: ['type', 'error'],
      description: "Anthropic's error shape (the /v1/messages routes); the status is the spec's, its code at the end of the message and in details.error_code",
      properties: {
        type: { const: 'error' },
        error: {
          type: 'object',
          required: ['type', 'message'],
          properties: {
            type: {
              type: 'string',
              enum: ['invalid_request_error', 'authentication_error', 'billing_error', 'permission_error', 'not_found_error',
                'request_too_large', 'rate_limit_error', 'timeout_error', 'api_error', 'overloaded_error'],
            },
            message: { type: 'string', description: 'ends with the spec code in parentheses' },
            details: { type: 'object', properties: { error_code: { type: 'string', description: "the spec's stable code; branch on this" } } },
          },
        },
        request_id: { type: ['string', 'null'] },
      },
    },
  },
};
