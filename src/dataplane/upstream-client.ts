import type { Config } from '../config/schema.js';
import { publicOnlyLookup } from '../lib/address-guard.js';
import { proxyFor, type ProxyServer } from '../lib/proxy-settings.js';
import type { Route } from '../catalog/catalog.js';
import type { Endpoint, TokenEndpoint, UpstreamCall, UpstreamResponse } from '../providers/types.js';
import { OriginPool } from '../upstream/origin-pool.js';
import { ByteBudget } from './byte-budget.js';
import { RouteFailure } from './route-failure.js';
import { UpstreamExchange } from './upstream-exchange.js';

/**
 * The request as an object, for a provider that answers in process from it (the sandbox). A
 * getter on a scanned body, so no other route decodes a body it forwards as bytes.
 */
export interface RequestPayload {
  readonly payload: Record<string, unknown>;
}

/** Whatever can tell the upstream call that its client went away (the ClientReply). */
export interface AbortSource {
  readonly aborted: boolean;
  onAbort(cb: () => void): void;
}

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
}

/**
 * Sends adapter-built calls upstream over the gateway's own keep-alive HTTP/1.1 pools (one per
 * origin, shared by every route on it); an in-process provider's routes (the sandbox) are
 * answered here. The request head up to the length is built once per route, path and credential
 * set. Origins are reached through the configured forward proxy unless `noProxy` names them.
 */
export class UpstreamClient {
  readonly #pools = new Map<string, OriginPool>();
  readonly #cfg: Config['upstream'];
  readonly #bases = new Map<string, BaseUrl>();
  /** Request heads by the route's header set, base URL and path: objects and constant strings, so no key is built per request. */
  readonly #heads = new WeakMap<Record<string, string>, Map<BaseUrl, Map<string, RequestHead>>>();
  readonly #formHeads = new WeakMap<Record<string, string>, Map<BaseUrl, Map<string, RequestHead>>>();
  /** Shared by every buffered answer (upstream.maxBufferedBytes). */
  readonly buffered: ByteBudget;
  /** The last byte-body request's route, headers and path, with the head and pool they led to. */
  #last: { baseUrl: string; headers: Record<string, string>; path: string; publicOnly: boolean; head: Buffer; pool: OriginPool } | null = null;

  constructor(cfg: Config['upstream']) {
    this.#cfg = cfg;
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
    // Requests to the same route and path as the last one reuse its head and pool as they are:
    // three identity comparisons, where finding them again was five map reads (~1k
    // instructions a request, bench:instructions).
    const last = this.#last;
    if (Buffer.isBuffer(body) && last !== null && last.baseUrl === route.provider.baseUrl && last.headers === headers
      && last.path === call.path && last.publicOnly === publicOnly) {
      exchange.control = last.pool.request(jsonRequest(last.head, body), exchange);
      abort.onAbort(() => exchange.cancel());
      return exchange.started;
    }
    const base = this.#base(route.provider.baseUrl);
    let request: string | Buffer | readonly Buffer[];
    if (typeof body === 'string') {
      const head = this.#head(base, call.path, headers, false).text;
      request = call.headers === undefined ? `${head}${Buffer.byteLength(body)}\r\n\r\n${body}`
        : `${withCallHeaders(head, call.headers)}${Buffer.byteLength(body)}\r\n\r\n${body}`;
    }
    else if (Buffer.isBuffer(body)) {
      const head = this.#head(base, call.path, headers, false).bytes;
      const pool = this.#pool(base, publicOnly);
      this.#last = { baseUrl: route.provider.baseUrl, headers, path: call.path, publicOnly, head, pool };
      exchange.control = pool.request(jsonRequest(head, body), exchange);
      abort.onAbort(() => exchange.cancel());
      return exchange.started;
    } else if (call.contentType === undefined) {
      // The client's JSON in pieces around the gateway's edits (dataplane/forward-body.ts).
      let length = 0;
      for (const piece of body) length += piece.length;
      request = [framed(this.#head(base, call.path, headers, false).bytes, length, null), ...body];
    } else {
      let length = 0;
      for (const piece of body) length += piece.length;
      const head = `${this.#head(base, call.path, headers, true).text}content-type: ${call.contentType}\r\ncontent-length: ${length}\r\n\r\n`;
      request = [Buffer.from(head, 'latin1'), ...body];
    }
    exchange.control = this.#pool(base, publicOnly).request(request, exchange);
    abort.onAbort(() => exchange.cancel());
    return exchange.started;
  }

  /** For GET /health: catalog providers' pools only (an org's registered endpoint is its own business). */
  load(): { connections_per_origin: number; open: number; busy: number; queued: number } {
    const out = { connections_per_origin: this.#cfg.connectionsPerOrigin, open: 0, busy: 0, queued: 0 };
    for (const [key, pool] of this.#pools) {
      if (key.startsWith('\0')) continue;
      const l = pool.load();
      out.open += l.open;
      out.busy += l.busy;
      out.queued += l.queued;
    }
    return out;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#pools.values()].map((p) => p.close()));
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
      b = { origin: u.origin, host: u.host, path: u.pathname.replace(/\/+$/, ''), proxy: proxyFor(u, this.#cfg) };
      this.#bases.set(baseUrl, b);
    }
    return b;
  }

  /**
   * `POST … HTTP/1.1`, host, the route's headers, `accept-encoding` and `content-length: `, awaiting
   * the number; with `ownType`, without the route's content-type and the length, for a call that sets both.
   */
  #head(base: BaseUrl, path: string, headers: Record<string, string>, ownType: boolean): RequestHead {
    const all = ownType ? this.#formHeads : this.#heads;
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
      const absolute = base.proxy !== null && base.proxy.socks === null && base.origin.startsWith('http:');
      let head = `POST ${absolute ? base.origin : ''}${base.path}${path} HTTP/1.1\r\nhost: ${base.host}\r\n`;
      if (absolute && base.proxy!.authorization !== null) head += `proxy-authorization: ${base.proxy!.authorization}\r\n`;
      for (const [name, value] of Object.entries(headers)) {
        if (ownType && name === 'content-type') continue;
        if (UNSAFE_HEADER.test(value) || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
          throw new RouteFailure('invalid_upstream_header', `the ${name} header for this provider contains characters HTTP does not allow`);
        }
        head += `${name}: ${value}\r\n`;
      }
      // Without it any content coding is acceptable (RFC 9110 12.5.3), and the gateway relays
      // and scans bytes: a gzip answer would reach the client undecodable.
      head += ownType ? 'accept-encoding: identity\r\n' : 'accept-encoding: identity\r\ncontent-length: ';
      cached = { text: head, bytes: Buffer.from(head, 'latin1') };
      byPath.set(path, cached);
    }
    return cached;
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
