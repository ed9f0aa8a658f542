import { Pool } from 'undici';
import type { Config } from '../config/schema.js';
import type { Route } from '../catalog/catalog.js';
import { sandboxRespond } from '../providers/sandbox/sandbox-upstream.js';
import type { Endpoint, UpstreamCall, UpstreamResponse } from '../providers/types.js';
import { RouteFailure } from './route-failure.js';
import { UpstreamExchange } from './upstream-exchange.js';

/** Whatever can tell the upstream call that its client went away (the ClientReply). */
export interface AbortSource {
  readonly aborted: boolean;
  onAbort(cb: () => void): void;
}

/**
 * Sends adapter-built calls upstream: one keep-alive undici Pool per origin, shared by every
 * route on it; sandbox routes are answered in-process. Transport failures become RouteFailures.
 */
export class UpstreamClient {
  readonly #pools = new Map<string, Pool>();
  readonly #cfg: Config['upstream'];
  readonly #basePath = new Map<string, { origin: string; path: string }>();

  constructor(cfg: Config['upstream']) {
    this.#cfg = cfg;
  }

  #pool(origin: string): Pool {
    let p = this.#pools.get(origin);
    if (!p) {
      p = new Pool(origin, {
        connections: this.#cfg.connectionsPerOrigin,
        connect: { timeout: this.#cfg.connectTimeoutMs },
        keepAliveTimeout: 30_000,
      });
      this.#pools.set(origin, p);
    }
    return p;
  }

  #split(baseUrl: string): { origin: string; path: string } {
    let s = this.#basePath.get(baseUrl);
    if (!s) {
      const u = new URL(baseUrl);
      s = { origin: u.origin, path: u.pathname.replace(/\/+$/, '') };
      this.#basePath.set(baseUrl, s);
    }
    return s;
  }

  /** Resolves once the upstream's status and headers are in; the body is then pulled from the response. */
  async send(endpoint: Endpoint, route: Route, call: UpstreamCall, payload: Record<string, unknown>,
    headers: Record<string, string>, abort: AbortSource): Promise<UpstreamResponse> {
    if (route.provider.entry.kind === 'sandbox') return sandboxRespond(endpoint, route.upstreamModel, payload);
    const { origin, path } = this.#split(route.provider.baseUrl);
    const exchange = new UpstreamExchange();
    abort.onAbort(() => exchange.cancel());
    this.#pool(origin).dispatch({
      origin,
      method: 'POST',
      path: path + call.path,
      headers,
      body: call.body,
      headersTimeout: this.#cfg.headersTimeoutMs,
      bodyTimeout: this.#cfg.bodyTimeoutMs,
    }, exchange);
    try {
      return await exchange.started;
    } catch (e) {
      throw transportFailure(e);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.#pools.values()].map((p) => p.close().catch(() => p.destroy())));
  }
}

/** Maps undici's error codes to a failure the client can read in all_routes_failed. */
export function transportFailure(e: unknown): RouteFailure {
  if (e instanceof RouteFailure) return e;
  const code = (e as { code?: string })?.code ?? '';
  const name = (e as { name?: string })?.name ?? '';
  if (name === 'AbortError' || code === 'UND_ERR_ABORTED') return new RouteFailure('client_aborted', 'request aborted by the client', 499);
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return new RouteFailure('connect_timeout', 'upstream connect timeout');
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return new RouteFailure('upstream_timeout', 'upstream did not answer in time (headers timeout)', 504);
  if (code === 'UND_ERR_BODY_TIMEOUT') return new RouteFailure('upstream_timeout', 'upstream went silent mid-body (body timeout)', 504);
  if (code === 'ECONNREFUSED') return new RouteFailure('connect_error', 'upstream refused the connection');
  if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE') return new RouteFailure('connection_reset', 'upstream closed the connection');
  return new RouteFailure('upstream_unreachable', `upstream request failed: ${(e as Error)?.message ?? String(e)}`);
}
