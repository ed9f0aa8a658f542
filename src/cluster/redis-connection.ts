import { Redis } from './ioredis.js';

export interface RedisConnectionOptions {
  /** A command not answered within this many ms fails (a hung or partitioned server), default 1000. */
  commandTimeoutMs?: number;
  /** Longest wait between reconnection attempts, default 1000 ms. */
  maxReconnectDelayMs?: number;
}

/**
 * A connection for the hot path: while Redis is unreachable a command fails at once instead of
 * queueing (no offline queue, no retries), so the gate can answer by its fault policy within one
 * event-loop turn; a command cut off by a lost connection is never sent again, since a script
 * that counted before the connection dropped must not count twice. It reconnects by itself.
 */
export function connectRedis(url: string, o: RedisConnectionOptions = {}): Redis {
  const maxDelay = o.maxReconnectDelayMs ?? 1000;
  const r = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: o.commandTimeoutMs ?? 1000,
    retryStrategy: (times) => Math.min(50 * times, maxDelay),
    lazyConnect: false,
  });
  // Errors surface on the commands that meet them; the connection's own 'error' events would
  // otherwise be unhandled and end the process.
  r.on('error', () => {});
  return r;
}

/** Resolves once the connection is ready (tests and start-up). */
export function redisReady(r: Redis): Promise<void> {
  if (r.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => r.once('ready', () => resolve()));
}
