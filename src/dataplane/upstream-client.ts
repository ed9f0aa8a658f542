import { Pool } from 'undici';
import type { Config } from '../config/schema.js';
import type { Route } from '../catalog/catalog.js';
import { sandboxRespond } from '../providers/sandbox/sandbox-upstream.js';
import type { Endpoint, UpstreamCall, UpstreamResponse } from '../providers/types.js';
import { RouteFailure } from './route-failure.js';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

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

  async send(endpoint: Endpoint, route: Route, call: UpstreamCall, payload: Record<string, unknown>,
    authHeaders: Record<string, string> | null, signal: AbortSignal): Promise<UpstreamResponse> {
    if (route.provider.entry.kind === 'sandbox') return sandboxRespond(endpoint, route.upstreamModel, payload);
    const { origin, path } = this.#split(route.provider.baseUrl);
    let res;
    try {
      res = await this.#pool(origin).request({
        method: 'POST',
        path: path + call.path,
        headers: authHeaders ? { ...JSON_HEADERS, ...authHeaders } : JSON_HEADERS,
        body: call.body,
        signal,
        headersTimeout: this.#cfg.headersTimeoutMs,
        bodyTimeout: this.#cfg.bodyTimeoutMs,
      });
    } catch (e) {
      throw transportFailure(e);
    }
    const body = res.body;
    const ct = res.headers['content-type'];
    return {
      status: res.statusCode,
      contentType: (Array.isArray(ct) ? ct[0] : ct) ?? 'application/json',
      body,
      cancel: () => body.destroy(),
    };
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
