import { randomBytes } from 'node:crypto';
import { Redis } from './ioredis.js';
import { connectRedis, redisReady } from './redis-connection.js';

/**
 * What one instance tells the others at once: a key revoked or changed (drop it from the key
 * cache), a workspace's budget changed (reload it), a credit or payment (money event) recorded,
 * an org's routing chain, BYOK key or custom endpoint changed.
 */
export type Change =
  | { kind: 'key'; id: string; change: 'revoked' | 'changed' }
  | { kind: 'workspace'; id: string }
  | { kind: 'money'; orgId: string; eventId: number; amountMicros: number }
  | { kind: 'chain'; orgId: string; model: string }
  | { kind: 'byok'; orgId: string; provider: string }
  | { kind: 'endpoint'; orgId: string; name: string };

const KINDS = new Set(['key', 'workspace', 'money', 'chain', 'byok', 'endpoint']);

export interface ChangeBusOptions {
  /** Connection for PUBLISH (connectRedis(): fails at once while Redis is down). */
  publisher: Redis;
  /** A connection of its own, used only for the subscription (Redis puts it in subscriber mode). */
  subscriber: Redis;
  /** Default 'gw:changes'. */
  channel?: string;
  log?: { warn(msg: string, fields?: Record<string, unknown>): void };
}

/**
 * Redis pub/sub on one channel. A message reaches every subscribed instance within a round trip;
 * the publisher skips its own. Pub/sub keeps nothing: an instance that was disconnected when a
 * change was published misses it, so every consumer must also have a slower path that cannot
 * miss (the database change feed and money events polled by id, key cache expiry).
 * After Redis restarts, ioredis subscribes again by itself (autoResubscribe).
 */
export class ChangeBus {
  readonly #o: ChangeBusOptions;
  readonly #channel: string;
  /** Marks this instance's messages, so it does not act on its own changes twice. */
  readonly #from = randomBytes(8).toString('base64url');
  readonly #handlers = new Set<(c: Change) => void>();
  readonly #subscribed: Promise<unknown>;

  constructor(o: ChangeBusOptions) {
    this.#o = o;
    this.#channel = o.channel ?? 'gw:changes';
    o.subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.#channel) this.#deliver(message);
    });
    this.#subscribed = o.subscriber.subscribe(this.#channel);
  }

  /** A bus on two new connections to `url` (one publishes, one listens). */
  static connect(url: string, o: Omit<ChangeBusOptions, 'publisher' | 'subscriber'> = {}): ChangeBus {
    const subscriber = new Redis(url, { retryStrategy: (times) => Math.min(50 * times, 1000) });
    subscriber.on('error', () => {});
    return new ChangeBus({ ...o, publisher: connectRedis(url), subscriber });
  }

  /** Resolves once the channel is subscribed and the publisher connected (start-up and tests). */
  async ready(): Promise<void> {
    await Promise.all([this.#subscribed, redisReady(this.#o.publisher)]);
  }

  /**
   * Tells every instance from a process that serves nothing (the operator CLI): one connection,
   * the messages, closed. Rejects when Redis does not answer within `timeoutMs`; the instances'
   * poll of the change feed still carries the change, within changePollMs.
   */
  static async announce(url: string, changes: readonly Change[], timeoutMs = 2_000, channel = 'gw:changes'): Promise<void> {
    const r = connectRedis(url);
    r.on('error', () => {});
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([redisReady(r), new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`Redis did not answer within ${timeoutMs} ms`)), timeoutMs);
      })]);
      const from = `announce-${randomBytes(6).toString('base64url')}`;
      for (const change of changes) await r.publish(channel, JSON.stringify({ from, change }));
    } finally {
      clearTimeout(timer);
      r.disconnect();
    }
  }

  /** Tells every other instance. Rejects while Redis is unreachable (the caller logs it: the slow path still carries the change). */
  async publish(change: Change): Promise<void> {
    await this.#o.publisher.publish(this.#channel, JSON.stringify({ from: this.#from, change }));
  }

  /** Calls `handler` for each change another instance publishes; returns the call that stops it. */
  subscribe(handler: (c: Change) => void): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  close(): void {
    this.#o.subscriber.disconnect();
    this.#o.publisher.disconnect();
  }

  #deliver(message: string): void {
    let m: { from?: unknown; change?: { kind?: unknown } };
    try {
      m = JSON.parse(message);
    } catch {
      this.#o.log?.warn('change bus: a message that is not JSON was ignored', { message: message.slice(0, 200) });
      return;
    }
    if (m.from === this.#from) return;
    const change = m.change;
    if (!change || typeof change.kind !== 'string' || !KINDS.has(change.kind)) {
      this.#o.log?.warn('change bus: a message of unknown kind was ignored', { message: message.slice(0, 200) });
      return;
    }
    for (const h of this.#handlers) {
      try {
        h(change as Change);
      } catch (e) {
        this.#o.log?.warn('change bus: a handler failed', { kind: change.kind, err: String(e) });
      }
    }
  }
}
