import { envelopeJson, sseErrorEvent } from './envelope.js';
import type { GatewayError } from './gateway-error.js';

/**
 * How a route family writes its errors. The spec's envelope is the default; a route declares
 * another (`RouteSpec.errorFormat`) when its clients parse a different shape (Anthropic's SDKs
 * on /v1/messages). The router and the reply use it for every error of the route, those raised
 * before the handler runs (401, 413, framing refusals, shutdown) included. The code, status
 * and ledger entry stay the spec's whatever the shape.
 */
export interface ErrorFormat {
  /** The error's JSON body. */
  body(e: GatewayError, requestId: string): string;
  /** The error as the last bytes of an SSE stream that has already started. */
  event(e: GatewayError, requestId: string): string;
  /** The body's JSON Schema, for /openapi.json (components.schemas.<name>). */
  readonly schema: { name: string; json: Record<string, unknown> };
}

/** The spec's own envelope `{"error":{"message","type","code"}}`. */
export const SPEC_ERRORS: ErrorFormat = {
  body: envelopeJson,
  event: sseErrorEvent,
  schema: {
    name: 'Error',
    json: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['message', 'type', 'code'],
          properties: { message: { type: 'string' }, type: { type: 'string' }, code: { type: 'string', description: 'stable machine code; branch on this' } },
        },
      },
    },
  },
};
