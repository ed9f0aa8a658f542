import type { Redis } from 'ioredis';

/**
 * One instance per interval takes a periodic job (a collection's canary round): the first to set
 * the job's key, which lapses just before the next interval. An instance that takes a round and
 * dies loses that one round only. Redis unreachable: every instance runs it (a few extra canaries
 * beat none).
 */
export function roundClaims(redis: Redis, prefix: string, intervalMs: number): (job: string) => Promise<boolean> {
  // Lapses a little early, so a round started late by timers is not skipped the next interval.
  const ttl = Math.max(1, Math.floor(intervalMs * 0.9));
  return async (job) => {
    try {
      return (await redis.set(`${prefix}round:${job}`, '1', 'PX', ttl, 'NX')) === 'OK';
    } catch {
      return true;
    }
  };
}
