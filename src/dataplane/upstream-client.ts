import type { Config } from '../config/schema.js';
import { payloadLease, type Lease } from '../lib/request-slabs.js';
import { publicOnlyLookup } from '../lib/address-guard.js';
import { proxyFor, type ProxyServer } from '../lib/proxy-settings.js';
import type { Route } from '../catalog/catalog.js';
import type { Endpoint, TokenEndpoint, UpstreamCall, UpstreamResponse } from '../providers/types.js';
import type { OutgoingHttpHeaders } from 'node:http2';
import { H2Origin } from '../upstream/h2-origin.js';
import { OriginPool } from '../upstream/origin-pool.js';
import type { RequestControl } from '../upstream/response-sink.js';
import { ByteBudget } from './byte-budget.js';
import { RouteFailure } from './route-failure.js';
import { UpstreamExchange } from './upstream-exchange.js';

/**
 * The request as an object, for a provider that answers in process from it (the sandbox). A
 * getter on a scanned body, so no other route decodes a body it forwards as bytes.
 */
export interface RequestPayload {
  readonly payload: Record<string, unknown>;
  /** A streamed request: over HTTP/2 where the provider offers it (upstream.http2 `streams`). */
  readonly stream?: boolean;
}

/** Whatever can tell the upstream call that its client went away (the ClientReply). */
export interface AbortSource {
  readonly aborted: boolean;
  onAbort(cb: () => void): void;
}

/** Connection-specific fields HTTP/2 refuses (RFC 9113 8.2.2), and the host, which is :authority there. */
const H2_FORBIDDEN = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host', 'te']);

// Anything outside visible ASCII and tab/space in a header would let a value end the header early.
const UNSAFE_HEADER = /[^\t\x20-\x7e]/;

/** A request head up to the length (or, for uploads, up to their own content headers), as text and as bytes. */
interface RequestHead {
  text: string;
  bytes: Buffer;
}

interface BaseUrl {
  origin: string;
  host: string;
  path: string;
  /** The origin through an HTTP proxy: a plain-http request names it in absolute form. */
  proxy: ProxyServer | null;
  /** An https origin while upstream.http2 is on: requests may go over HTTP/2 (h2-origin.ts). */
  h2: boolean;
}

/**
 * Sends adapter-built calls upstream over the gateway's own keep-alive HTTP/1.1 pools (one per
 * origin, shared by every route on it); an in-process provider's routes (the sandbox) are
 * answered here. The request head up to the length is built once per route, path and credential
 * set. Origins are reached through the configured forward proxy unless `noProxy` names them.
 */
export class UpstreamClient {
  readonly #pools = new Map<string, OriginPool>();
  /** HTTP/2 sessions by the same key as the pools, for https origins only. */
  readonly #h2 = new Map<string, H2Origin>();
  readonly #cfg: Config['upstream'];
  /** Every request goes over HTTP/2 where it can (upstream.http2 `all`), not only streams. */
  readonly #h2All: boolean;
  readonly #bases = new Map<string, BaseUrl>();
  /** Request heads by the route's header set, base URL and path: objects and constant strings, so no key is built per request. */
  readonly #heads = new WeakMap<Record<string, string>, Map<BaseUrl, Map<string, RequestHead>>>();
  readonly #formHeads = new WeakMap<Record<string, string>, Map<BaseUrl, Map<string, RequestHead>>>();
  readonly #h2Heads = new WeakMap<Record<string, string>, Map<BaseUrl, Map<string, OutgoingHttpHeaders>>>();
  /** Shared by every buffered answer (upstream.maxBufferedBytes). */
  readonly buffered: ByteBudget;
  /** The last byte-body request's route, headers and path, with the head and pool they led to. */
  #last: { baseUrl: string; headers: Record<string, string>; path: string; publicOnly: boolean; head: Buffer; pool: OriginPool; h2: boolean } | null = null;

  constructor(cfg: Config['upstream']) {
    this.#cfg = cfg;
    this.#h2All = cfg.http2 === 'all';
    this.buffered = new ByteBudget(cfg.maxBufferedBytes);
  }

  /**
   * Resolves once the upstream's status and headers are in; the body is then pulled from the
   * response. Rejects with a RouteFailure. Not an async function: the exchange's own promise is
   * returned, one allocation and one hop fewer on every request.
   */
  send(endpoint: Endpoint, route: Route, call: UpstreamCall, client: RequestPayload,
    headers: Record<string, string>, abort: AbortSource, secret: string | null = null): Promise<UpstreamResponse> {
    try {
      return this.#send(endpoint, route, call, client, headers, abort, secret);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  #send(endpoint: Endpoint, route: Route, call: UpstreamCall, client: RequestPayload,
    headers: Record<string, string>, abort: AbortSource, secret: string | null): Promise<UpstreamResponse> {
    // In-process adapters serve chat and embeddings only: the catalog loader keeps audio models off them.
    const inProcess = route.provider.inProcess;
    if (inProcess !== null) return Promise.resolve(inProcess(endpoint as TokenEndpoint, route.upstreamModel, client.payload));
    if (abort.aborted) throw new RouteFailure('client_aborted', 'request aborted by the client', 499);
    const body = call.body;
    const publicOnly = route.provider.publicOnly === true;
    const exchange = new UpstreamExchange(this.#cfg.maxResponseBytes, this.buffered, secret);
    // A large request the gateway wrote is in a lent slab: the upstream layer holds it while writing it.
    const lease = typeof body === 'string' ? null : payloadLease(body);
    // Requests to the same route and path as the last one reuse its head and pool as they are:
    // three identity comparisons, where finding them again was five map reads (~1k
    // instructions a request, bench:instructions).
    const last = this.#last;
    if (Buffer.isBuffer(body) && call.headers === undefined && last !== null && last.baseUrl === route.provider.baseUrl && last.headers === headers
      && last.path === call.path && last.publicOnly === publicOnly && !(last.h2 && (client.stream === true || this.#h2All))) {
      exchange.control = last.pool.request(jsonRequest(last.head, body), exchange, lease);
      abort.onAbort(() => exchange.cancel());
      return exchange.started;
    }
    const base = this.#base(route.provider.baseUrl);
    if (base.h2 && (client.stream === true || this.#h2All)) {
      exchange.control = this.#sendH2(base, call, headers, publicOnly, exchange, lease);
      abort.onAbort(() => exchange.cancel());
      return exchange.started;
    }
    if (Buffer.isBuffer(body) && call.headers === undefined) {
      const head = this.#head(base, call.path, headers, false).bytes;
      const pool = this.#pool(base, publicOnly);
      this.#last = { baseUrl: route.provider.baseUrl, headers, path: call.path, publicOnly, head, pool, h2: base.h2 };
      exchange.control = pool.request(jsonRequest(head, body), exchange, lease);
      abort.onAbort(() => exchange.cancel());
      return exchange.started;
    }
    exchange.control = this.#pool(base, publicOnly).request(this.#h1Request(base, call, headers), exchange, lease);
    abort.onAbort(() => exchange.cancel());
    return exchange.started;
  }

  /** The call framed as an HTTP/1.1 request (head and body) for the origin's pool. */
  #h1Request(base: BaseUrl, call: UpstreamCall, headers: Record<string, string>): string | Buffer | readonly Buffer[] {
    const body = call.body;
    if (typeof body === 'string') {
      const head = this.#head(base, call.path, headers, false).text;
      return call.headers === undefined ? `${head}${Buffer.byteLength(body)}\r\n\r\n${body}`
        : `${withCallHeaders(head, call.headers)}${Buffer.byteLength(body)}\r\n\r\n${body}`;
    }
    if (Buffer.isBuffer(body)) return jsonRequest(this.#jsonHead(base, call, headers), body);
    let length = 0;
    for (const piece of body) length += piece.length;
    // The client's JSON in pieces around the gateway's edits (dataplane/forward-body.ts).
    if (call.contentType === undefined) return [framed(this.#jsonHead(base, call, headers), length, null), ...body];
    const head = `${this.#head(base, call.path, headers, true).text}content-type: ${call.contentType}\r\ncontent-length: ${length}\r\n\r\n`;
    return [Buffer.from(head, 'latin1'), ...body];
  }

  /** A JSON request's head up to the length, the call's own headers (if any) before it. */
  #jsonHead(base: BaseUrl, call: UpstreamCall, headers: Record<string, string>): Buffer {
    const head = this.#head(base, call.path, headers, false);
    return call.headers === undefined ? head.bytes : Buffer.from(withCallHeaders(head.text, call.headers), 'latin1');
  }

  /**
   * The call as an HTTP/2 stream to the origin; should the origin speak only HTTP/1.1, it goes to
   * the pool framed as usual.
   */
  #sendH2(base: BaseUrl, call: UpstreamCall, headers: Record<string, string>, publicOnly: boolean, exchange: UpstreamExchange,
    lease: Lease | null): RequestControl {
    const pool = this.#pool(base, publicOnly);
    const fallback = { send: () => pool.request(this.#h1Request(base, call, headers), exchange, lease) };
    const origin = this.#h2Origin(base, publicOnly, pool);
    if (origin.support === 'http/1.1') return fallback.send();
    const body = call.body;
    let length = 0;
    if (typeof body === 'string') length = Buffer.byteLength(body);
    else if (Buffer.isBuffer(body)) length = body.length;
    else for (const piece of body) length += piece.length;
    const h: OutgoingHttpHeaders = { ...this.#h2Head(base, call.path, headers), ...call.headers, 'content-length': length };
    if (call.contentType !== undefined) h['content-type'] = call.contentType;
    return origin.request(h, body, exchange, fallback, lease);
  }

  /** For GET /health: catalog providers' pools only (an org's registered endpoint is its own business). */
  load(): { connections_per_origin: number; open: number; busy: number; queued: number; h2_sessions: number; h2_streams: number } {
    const out = { connections_per_origin: this.#cfg.connectionsPerOrigin, open: 0, busy: 0, queued: 0, h2_sessions: 0, h2_streams: 0 };
    for (const [key, pool] of this.#pools) {
      if (key.startsWith('\0')) continue;
      const l = pool.load();
      out.open += l.open;
      out.busy += l.busy;
      out.queued += l.queued;
    }
    for (const [key, origin] of this.#h2) {
      if (key.startsWith('\0')) continue;
      const l = origin.load();
      out.h2_sessions += l.sessions;
      out.h2_streams += l.streams;
    }
    return out;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#pools.values(), ...this.#h2.values()].map((p) => p.close()));
  }

  /** The origin's HTTP/2 sessions, beside its pool (whose socket limit they share as a bound). */
  #h2Origin(base: BaseUrl, publicOnly: boolean, pool: OriginPool): H2Origin {
    const key = publicOnly ? `\0${base.origin}` : base.origin;
    let o = this.#h2.get(key);
    if (o === undefined) {
      o = new H2Origin(pool.target, {
        sessions: this.#cfg.connectionsPerOrigin,
        connectTimeoutMs: this.#cfg.connectTimeoutMs,
        headersTimeoutMs: this.#cfg.headersTimeoutMs,
        bodyTimeoutMs: this.#cfg.bodyTimeoutMs,
        idleTimeoutMs: this.#cfg.idleTimeoutMs,
      }, (socket) => pool.adopt(socket));
      this.#h2.set(key, o);
    }
    return o;
  }

  /** One pool per origin; guarded origins (publicOnly) get pools of their own, never shared with catalog providers. */
  #pool(base: BaseUrl, publicOnly: boolean): OriginPool {
    const key = publicOnly ? `\0${base.origin}` : base.origin;
    let p = this.#pools.get(key);
    if (!p) {
      p = new OriginPool(new URL(base.origin), {
        connections: this.#cfg.connectionsPerOrigin,
        maxQueued: this.#cfg.maxQueuedPerOrigin,
        queueTimeoutMs: this.#cfg.queueTimeoutMs,
        connectTimeoutMs: this.#cfg.connectTimeoutMs,
        headersTimeoutMs: this.#cfg.headersTimeoutMs,
        bodyTimeoutMs: this.#cfg.bodyTimeoutMs,
        idleTimeoutMs: this.#cfg.idleTimeoutMs,
        proxy: base.proxy ?? undefined,
        lookup: publicOnly ? publicOnlyLookup : undefined,
      });
      this.#pools.set(key, p);
    }
    return p;
  }

  #base(baseUrl: string): BaseUrl {
    let b = this.#bases.get(baseUrl);
    if (!b) {
      const u = new URL(baseUrl);
      const proxy = proxyFor(u, this.#cfg);
      b = { origin: u.origin, host: u.host, path: u.pathname.replace(/\/+$/, ''), proxy, h2: u.protocol === 'https:' && this.#cfg.http2 !== 'off' };
      this.#bases.set(baseUrl, b);
    }
    return b;
  }

  /**
   * `POST … HTTP/1.1`, host, the route's headers, `accept-encoding` and `content-length: `, awaiting
   * the number; with `ownType`, without the route's content-type and the length, for a call that sets both.
   */
  #head(base: BaseUrl, path: string, headers: Record<string, string>, ownType: boolean): RequestHead {
    return memoised(ownType ? this.#formHeads : this.#heads, headers, base, path, () => {
      const absolute = base.proxy !== null && base.proxy.socks === null && base.origin.startsWith('http:');
      let head = `POST ${absolute ? base.origin : ''}${base.path}${path} HTTP/1.1\r\nhost: ${base.host}\r\n`;
      if (absolute && base.proxy!.authorization !== null) head += `proxy-authorization: ${base.proxy!.authorization}\r\n`;
      for (const [name, value] of Object.entries(headers)) {
        if (ownType && name === 'content-type') continue;
        checkHeader(name, value);
        head += `${name}: ${value}\r\n`;
      }
      // Without it any content coding is acceptable (RFC 9110 12.5.3), and the gateway relays
      // and scans bytes: a gzip answer would reach the client undecodable.
      head += ownType ? 'accept-encoding: identity\r\n' : 'accept-encoding: identity\r\ncontent-length: ';
      return { text: head, bytes: Buffer.from(head, 'latin1') };
    });
  }

  /** The HTTP/2 form of #head: pseudo-headers, the route's headers and `accept-encoding`, made once. */
  #h2Head(base: BaseUrl, path: string, headers: Record<string, string>): OutgoingHttpHeaders {
    return memoised(this.#h2Heads, headers, base, path, () => {
      const head: OutgoingHttpHeaders = { ':method': 'POST', ':path': `${base.path}${path}`, ':authority': base.host };
      for (const [name, value] of Object.entries(headers)) {
        checkHeader(name, value);
        // HTTP/2 names are lower-case, and connection-specific fields are not allowed (RFC 9113 8.2).
        const lower = name.toLowerCase();
        if (!H2_FORBIDDEN.has(lower)) head[lower] = value;
      }
      head['accept-encoding'] = 'identity';
      return head;
    });
  }
}

/** A request head by the route's header set, base URL and path: objects and constant strings, so no key is built per request. */
function memoised<T>(all: WeakMap<Record<string, string>, Map<BaseUrl, Map<string, T>>>, headers: Record<string, string>, base: BaseUrl,
  path: string, make: () => T): T {
  let byBase = all.get(headers);
  if (byBase === undefined) {
    byBase = new Map();
    all.set(headers, byBase);
  }
  let byPath = byBase.get(base);
  if (byPath === undefined) {
    byPath = new Map();
    byBase.set(base, byPath);
  }
  let cached = byPath.get(path);
  if (cached === undefined) {
    cached = make();
    byPath.set(path, cached);
  }
  return cached;
}

/** A route's header, refused when a value could end the header early or the name is not a token. */
function checkHeader(name: string, value: string): void {
  if (UNSAFE_HEADER.test(value) || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
    throw new RouteFailure('invalid_upstream_header', `the ${name} header for this provider contains characters HTTP does not allow`);
  }
}

/**
 * Bodies up to this size are copied behind the head and leave in one write; larger ones are
 * written after it from the client's own buffer (one writev), not copied: a 200 KB copy is a
 * fresh allocation whose pages fault in on this VM.
 */
const JOIN_BYTES = 16 * 1024;

/** A JSON body behind its head: joined into one buffer when small, else written after it from its own buffer. */
function jsonRequest(head: Buffer, body: Buffer): Buffer | Buffer[] {
  return body.length <= JOIN_BYTES ? framed(head, body.length, body) : [framed(head, body.length, null), body];
}

/**
 * The head, the length and (when given) the body in one buffer: one socket write, where a string
 * request would be measured and encoded as UTF-8 again (the body is bytes already).
 */
function framed(head: Buffer, length: number, body: Buffer | null): Buffer {
  let digits = 1;
  for (let n = length; n >= 10; n = Math.floor(n / 10)) digits++;
  const out = Buffer.allocUnsafe(head.length + digits + 4 + (body === null ? 0 : length));
  out.set(head, 0);
  let at = head.length + digits;
  for (let i = at - 1, n = length; i >= head.length; i--, n = Math.floor(n / 10)) out[i] = 48 + (n % 10);
  out[at++] = 13;
  out[at++] = 10;
  out[at++] = 13;
  out[at++] = 10;
  if (body !== null) out.set(body, at);
  return out;
}

const LENGTH_FIELD = 'content-length: ';

/**
 * A cached request head (ending `content-length: `) with one call's own headers before the
 * length. They are never cached: their values vary per request.
 */
function withCallHeaders(head: string, extra: Record<string, string>): string {
  let lines = '';
  for (const name in extra) lines += `${name}: ${extra[name]}\r\n`;
  return `${head.slice(0, head.length - LENGTH_FIELD.length)}${lines}${LENGTH_FIELD}`;
}
