import { isOpenBreakerError } from './breakers.js';
import { RouteFailure } from './route-failure.js';
import { transportFailure } from './upstream-client.js';

/** Why a failed attempt failed, as the ledger and all_routes_failed name it; an open circuit included. */
export function attemptFailure(e: unknown): RouteFailure {
  return isOpenBreakerError(e) ? new RouteFailure('circuit_open', 'circuit open (route failing; retried in about 30 s)', 503)
    : transportFailure(e);
}
