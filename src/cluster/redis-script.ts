import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * A Lua script run by EVALSHA: one round trip, the script's text sent only when the server does
 * not have it cached (first use, or after a restart emptied the cache).
 */
export class RedisScript {
  readonly #text: string;
  readonly #sha: string;

  constructor(text: string) {
    this.#text = text;
    this.#sha = createHash('sha1').update(text).digest('hex');
  }

  async run(redis: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await redis.call('EVALSHA', this.#sha, keys.length, ...keys, ...args);
    } catch (e) {
      if (!(e instanceof Error) || !e.message.startsWith('NOSCRIPT')) throw e;
      return redis.call('EVAL', this.#text, keys.length, ...keys, ...args);
    }
  }
}
