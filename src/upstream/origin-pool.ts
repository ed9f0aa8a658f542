import type { LookupFunction, Socket } from 'node:net';
import type { PayloadHold } from './payload-hold.js';
import { Connection, Exchange, Phase, type ConnectionOwner } from './connection.js';
import type { Target, TunnelProxy } from './connector.js';
import type { RequestControl, ResponseSink } from './response-sink.js';
import { TransportError } from './transport-error.js';

export interface PoolOptions {
  /** Most sockets open at once; further requests wait in order. */
  connections: number;
  /** Most requests waiting for a socket; one more fails at once (`saturated`). Default: no bound. */
  maxQueued?: number;
  /** Longest wait for a socket; past it the request fails (`saturated`). Default: no bound. */
  queueTimeoutMs?: number;
  connectTimeoutMs: number;
  /** From the request being sent until the response head. */
  headersTimeoutMs: number;
  /** Longest silence between two body reads (not counted while the reader has paused). */
  bodyTimeoutMs: number;
  /** How long an idle socket is kept when the server gives no `Keep-Alive: timeout`. */
  idleTimeoutMs: number;
  /** Certificate authorities for https origins and proxies, replacing the bundled ones (a private upstream). */
  ca?: string | Buffer;
  /** Resolves the origin's name for direct connections; through a proxy, the proxy resolves it. */
  lookup?: LookupFunction;
  /**
   * A forward proxy. Through an HTTP proxy an https origin is reached by a CONNECT tunnel per
   * socket, and for an http origin the sockets go to the proxy itself and the caller writes
   * absolute-form requests. Through SOCKS5 every socket is a tunnel, whatever the origin.
   */
  proxy?: TunnelProxy;
}

/** Idle sockets are retired this long before the server's advertised keep-alive timeout. */
const HINT_MARGIN_MS = 1000;

/**
 * Keep-alive HTTP/1.1 connections to one origin. Idle sockets are reused most-recent first, so
 * surplus ones age out; requests beyond `connections` queue. One coarse sweep timer enforces
 * every timeout, so no timer is armed or cleared per request.
 */
export class OriginPool implements ConnectionOwner {
  readonly #target: Target;
  readonly #o: PoolOptions;
  readonly #all = new Set<Connection>();
  readonly #idle: Connection[] = [];
  #queue: Exchange[] = [];
  #sweep: NodeJS.Timeout | null = null;
  readonly #sweepMs: number;
  readonly #maxQueued: number;
  readonly #queueTimeoutMs: number;
  #closed = false;

  constructor(origin: URL, options: PoolOptions) {
    const tls = origin.protocol === 'https:';
    if (!tls && origin.protocol !== 'http:') throw new Error(`unsupported upstream protocol ${origin.protocol}`);
    const host = origin.hostname.replace(/^\[|\]$/g, '');
    const port = origin.port ? Number(origin.port) : tls ? 443 : 80;
    const proxy = options.proxy;
    this.#target = proxy === undefined ? { host, port, tls, ca: options.ca, lookup: options.lookup }
      : tls || proxy.socks != null ? { host, port, tls, ca: options.ca, tunnel: proxy }
      : { host: proxy.host, port: proxy.port, tls: proxy.tls, ca: options.ca };
    this.#o = options;
    this.#maxQueued = options.maxQueued ?? Number.POSITIVE_INFINITY;
    this.#queueTimeoutMs = options.queueTimeoutMs ?? Number.POSITIVE_INFINITY;
    const shortest = Math.min(options.connectTimeoutMs, options.headersTimeoutMs, options.bodyTimeoutMs, this.#queueTimeoutMs);
    this.#sweepMs = Math.max(10, Math.min(1000, Math.floor(shortest / 8)));
  }

  /** Where the pool's sockets go (and through what), for HTTP/2 sessions to the same origin. */
  get target(): Target {
    return this.#target;
  }

  /** Sends `payload` (request head and body, already framed) and reports the answer to `sink`; `lease`: the hold on its memory, when lent. */
  request(payload: string | Buffer | readonly Buffer[], sink: ResponseSink, lease: PayloadHold | null = null): RequestControl {
    const x = new Exchange(payload, sink, this, lease);
    if (this.#closed) {
      x.fail(new TransportError('closed', 'gateway is shutting down'));
      return x;
    }
    this.#ensureSweep();
    const idle = this.#idle.pop();
    if (idle !== undefined) idle.start(x);
    else if (this.#all.size < this.#o.connections) this.#open().start(x);
    else this.#enqueue(x);
    return x;
  }

  /** Sockets open, those carrying a request, and requests waiting for one, now. */
  load(): { open: number; busy: number; queued: number } {
    return { open: this.#all.size, busy: this.#all.size - this.#idle.length, queued: this.#queue.length };
  }

  /**
   * A request waits for a socket only within bounds: a full queue refuses it at once, and the
   * sweep fails one that waited past queueTimeoutMs, so no request waits unseen and unbounded.
   */
  #enqueue(x: Exchange): void {
    if (this.#queue.length >= this.#maxQueued) {
      x.fail(new TransportError('saturated', `all ${this.#o.connections} connections to the provider are busy and ${this.#queue.length} requests already wait for one`));
      return;
    }
    x.queuedAt = performance.now();
    this.#queue.push(x);
  }

  /** Takes the next waiting request, noting how long it waited. */
  #dequeue(): Exchange | undefined {
    const x = this.#queue.shift();
    if (x !== undefined && x.queuedAt !== 0) x.queueMs = performance.now() - x.queuedAt;
    return x;
  }

  /**
   * Takes over a connected socket to this origin (see Connection's constructor) as an idle
   * connection, or gives it to the next waiting request; past the cap it is closed.
   */
  adopt(socket: Socket): void {
    if (this.#closed || this.#all.size >= this.#o.connections) {
      socket.destroy();
      return;
    }
    this.#ensureSweep();
    const c = new Connection(this.#target, this, socket);
    c.since = performance.now();
    this.#all.add(c);
    this.released(c);
  }

  resend(x: Exchange): void {
    if (this.#closed) {
      x.fail(new TransportError('closed', 'gateway is shutting down'));
      return;
    }
    // A new socket where the cap allows (idle ones are as old as the one just dropped), else the
    // next one released, which has just proved itself alive.
    if (this.#all.size < this.#o.connections) this.#open().start(x);
    else this.#queue.unshift(x);
  }

  /** Called by a queued exchange's abort(). */
  abort(x: Exchange): void {
    const i = this.#queue.indexOf(x);
    if (i >= 0) this.#queue.splice(i, 1);
    x.fail(new TransportError('aborted', 'request aborted by the client'));
  }

  released(c: Connection): void {
    const next = this.#dequeue();
    if (next !== undefined) c.start(next);
    else if (this.#closed) c.destroy();
    else this.#idle.push(c);
  }

  closed(c: Connection): void {
    this.#all.delete(c);
    const i = this.#idle.indexOf(c);
    if (i >= 0) this.#idle.splice(i, 1);
    if (this.#queue.length > 0 && !this.#closed) this.#open().start(this.#dequeue()!);
    if (this.#all.size === 0 && this.#sweep !== null) {
      clearInterval(this.#sweep);
      this.#sweep = null;
    }
  }

  /** Stops taking requests, lets those in flight finish, then closes every socket. */
  async close(graceMs = 10_000): Promise<void> {
    this.#closed = true;
    for (const x of this.#queue.splice(0)) x.fail(new TransportError('closed', 'gateway is shutting down'));
    for (const c of this.#idle.splice(0)) c.destroy();
    const deadline = Date.now() + graceMs;
    while (this.#all.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    for (const c of this.#all) c.fail(new TransportError('closed', 'gateway is shutting down'));
  }

  /** Fails the requests that waited past queueTimeoutMs (a resent one, at the front, never waited). */
  #expireQueued(now: number): void {
    const limit = this.#queueTimeoutMs;
    const keep: Exchange[] = [];
    const expired: Exchange[] = [];
    for (const x of this.#queue) (x.queuedAt !== 0 && now - x.queuedAt >= limit ? expired : keep).push(x);
    if (expired.length === 0) return;
    this.#queue = keep;
    for (const x of expired) {
      x.queueMs = now - x.queuedAt;
      x.fail(new TransportError('saturated', `all ${this.#o.connections} connections to the provider stayed busy for ${limit} ms`));
    }
  }

  #open(): Connection {
    const c = new Connection(this.#target, this);
    c.since = performance.now();
    this.#all.add(c);
    return c;
  }

  #ensureSweep(): void {
    if (this.#sweep !== null) return;
    this.#sweep = setInterval(() => this.#check(), this.#sweepMs);
    this.#sweep.unref();
  }

  #check(): void {
    const now = performance.now();
    if (this.#queue.length > 0 && this.#queueTimeoutMs !== Number.POSITIVE_INFINITY) this.#expireQueued(now);
    for (const c of this.#all) {
      if (c.activity || c.paused) {
        c.activity = false;
        c.since = now;
        continue;
      }
      const quiet = now - c.since;
      switch (c.phase) {
        case Phase.Connecting:
          if (quiet >= this.#o.connectTimeoutMs) c.fail(new TransportError('connect_timeout', 'upstream connect timeout'));
          break;
        case Phase.Headers:
          if (quiet >= this.#o.headersTimeoutMs) c.fail(new TransportError('headers_timeout', 'upstream did not answer in time (headers timeout)'));
          break;
        case Phase.Body:
          if (quiet >= this.#o.bodyTimeoutMs) c.fail(new TransportError('body_timeout', 'upstream went silent mid-body (body timeout)'));
          break;
        case Phase.Idle: {
          const keep = c.keepAliveMs === null ? this.#o.idleTimeoutMs : Math.max(0, c.keepAliveMs - HINT_MARGIN_MS);
          if (quiet >= keep) c.destroy();
          break;
        }
      }
    }
  }
}
