import type { Redis } from 'ioredis';
import { decodeAnswer, encodeAnswer, type CachedAnswer, type ResponseCacheStore } from '../domain/stores/response-cache-store.js';

/**
 * The response cache on Redis, shared by every instance: one string a key, expiring with the
 * answer's TTL. Its total size is Redis's own bound (`maxmemory` with an eviction policy such as
 * `volatile-ttl`), as docs/cache.md says.
 */
export function redisResponseCache(redis: Redis, prefix: string): ResponseCacheStore {
  return {
    async get(key: string): Promise<CachedAnswer | null> {
      const text = await redis.get(`${prefix}rc:${key}`);
      return text === null ? null : decodeAnswer(text);
    },
    async put(key: string, _orgId: string, answer: CachedAnswer, _now: number, ttlMs: number): Promise<void> {
      await redis.set(`${prefix}rc:${key}`, encodeAnswer(answer, true), 'PX', ttlMs);
    },
  };
}
