import { LRUCache } from 'lru-cache';
import { errors } from '../errors/catalog.js';
import type { Clock } from '../lib/clock.js';
import { SlidingWindow } from '../lib/sliding-window.js';

/**
 * A rolling-minute cap per key (a client IP, an org), bounded in memory: the least recently seen
 * keys are forgotten first. Throws 429 rate_limit_exceeded with retry-after; `what` names the cap.
 */
export function perMinuteLimiter(limit: number, clock: Clock, what: string, maxKeys: number): (key: string) => void {
  const windows = new LRUCache<string, SlidingWindow>({ max: maxKeys });
  return (key) => {
    const now = clock.now();
    let w = windows.get(key);
    if (!w) windows.set(key, (w = new SlidingWindow()));
    if (w.count(now) >= limit) throw errors.rateLimitExceeded(w.retryAfterSeconds(now, limit), what);
    w.add(now);
  };
}

/** Unauthenticated public reads: a rolling minute per client IP (spec 8). */
export function ipLimiter(limit: number, clock: Clock, maxIps = 100_000): (ip: string) => void {
  return perMinuteLimiter(limit, clock, `${limit} unauthenticated requests per minute per IP`, maxIps);
}
