import type { Clock } from '../lib/clock.js';
import { ipLimiter, perMinuteLimiter } from './ip-limiter.js';

/** The key id a valid `Authorization: Bearer gw-…` header names, or null (absent, malformed, unknown, revoked). */
export type KeyIdOf = (authorization: string) => string | null;

/**
 * The rolling-minute limit of public routes (spec 8). A request that carries a valid key is
 * counted against that key, so clients behind one NAT or proxy do not share a budget and one
 * caller cannot spend another's; anything else is counted per client IP. Both get `limit` a
 * minute, in windows of their own. An invalid key is not refused here (public reads need none):
 * it only falls back to the IP's window.
 */
export function publicGate(limit: number, clock: Clock, keyIdOf: KeyIdOf, maxKeys = 100_000): (ip: string, authorization: string) => void {
  const perIp = ipLimiter(limit, clock, maxKeys);
  const perKey = perMinuteLimiter(limit, clock, `${limit} public requests per minute per API key`, maxKeys);
  return (ip, authorization) => {
    const keyId = authorization === '' ? null : keyIdOf(authorization);
    if (keyId === null) perIp(ip);
    else perKey(keyId);
  };
}
