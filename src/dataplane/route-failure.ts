import { TransportError } from '../upstream/transport-error.js';

/**
 * Why one upstream attempt failed in a way that moves on to the next route (connect error,
 * timeout, 5xx, 429, a cut before the first byte). Never sent to a client as such: after the
 * last route it becomes 502 all_routes_failed carrying this message.
 */
export class RouteFailure extends Error {
  readonly status: number;
  readonly code: string;
  /** How long the attempt waited for a free upstream connection before it failed, in ms. */
  queueMs = 0;

  constructor(code: string, message: string, status = 502) {
    super(message);
    this.name = 'RouteFailure';
    this.code = code;
    this.status = status;
  }
}

/** The route's connections were all busy past the wait's bound (upstream.connectionsPerOrigin, queue). */
export const SATURATED = 'upstream_saturated';

/** Maps the transport's error codes to a failure the client can read in all_routes_failed. */
export function transportFailure(e: unknown): RouteFailure {
  if (e instanceof RouteFailure) return e;
  if (e instanceof TransportError) {
    switch (e.code) {
      case 'aborted': return new RouteFailure('client_aborted', e.message, 499);
      case 'connect_timeout': return new RouteFailure('connect_timeout', e.message);
      case 'connect_error': return new RouteFailure('connect_error', e.message);
      case 'headers_timeout':
      case 'body_timeout': return new RouteFailure('upstream_timeout', e.message, 504);
      case 'connection_reset': return new RouteFailure('connection_reset', e.message);
      case 'protocol_error': return new RouteFailure('upstream_protocol_error', e.message);
      case 'closed': return new RouteFailure('upstream_unreachable', e.message);
      // The gateway's own connection cap, not the provider's fault: another route may have room.
      case 'saturated': return new RouteFailure(SATURATED, e.message, 503);
    }
  }
  return new RouteFailure('upstream_unreachable', `upstream request failed: ${(e as Error)?.message ?? String(e)}`);
}
