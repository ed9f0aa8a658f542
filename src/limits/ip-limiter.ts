import { LRUCache } from 'lru-cache';
import { errors } from '../errors/catalog.js';
import type { Clock } from '../lib/clock.js';
import { SlidingWindow } from '../lib/sliding-window.js';

/** Unauthenticated public reads: a rolling minute per client IP (spec 8), bounded in memory. */
export function ipLimiter(limit: number, clock: Clock, maxIps = 100_000): (ip: string) => void {
  const windows = new LRUCache<string, SlidingWindow>({ max: maxIps });
  return (ip) => {
    const now = clock.now();
    let w = windows.get(ip);
    if (!w) windows.set(ip, (w = new SlidingWindow()));
    if (w.count(now) >= limit) {
      throw errors.rateLimitExceeded(w.retryAfterSeconds(now, limit), `${limit} unauthenticated requests per minute per IP`);
    }
    w.add(now);
  };
}
