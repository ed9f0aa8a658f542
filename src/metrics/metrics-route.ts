import { createHash, timingSafeEqual } from 'node:crypto';
import { route, type RouteSpec } from '../domain/route-spec.js';
import { errors } from '../errors/catalog.js';
import { EXPOSITION_CONTENT_TYPE } from './registry.js';

export interface MetricsRouteOptions {
  /** The exposition text, rendered per scrape. */
  render(): string;
  /** metrics.token; undefined: loopback clients only. */
  token: string | undefined;
  /** Counts a refused scrape in its IP's public window (throws the 429 past it), so a token cannot be guessed at speed. */
  limitRefused(ip: string): void;
}

const NOT_LOOPBACK = errors.forbidden('GET /metrics answers loopback clients only while metrics.token (GW_METRICS_TOKEN) is unset');

/** Whether an address as uWS writes it is the host's own (127.0.0.0/8, ::1, IPv4-mapped 127.x). */
export function isLoopback(ip: string): boolean {
  if (ip.startsWith('127.') || ip === '::1' || ip.startsWith('::ffff:127.')) return true;
  // uWS writes IPv6 in full: 0000:0000:0000:0000:0000:0000:0000:0001, and mapped IPv4 as 0000:…:ffff:7f00:0001.
  const full = ip.toLowerCase();
  return full === '0000:0000:0000:0000:0000:0000:0000:0001' || full.startsWith('0000:0000:0000:0000:0000:ffff:7f');
}

/**
 * GET /metrics: scraped by Prometheus on the main port. A configured token is required as Bearer
 * (compared in constant time, by digest so lengths do not show); without one, only loopback
 * clients are answered. Public otherwise: outside the per-IP limit, except for refused scrapes.
 */
export function metricsRoute(o: MetricsRouteOptions): RouteSpec {
  const want = o.token === undefined ? null : digest(o.token);
  return route({
    kind: 'raw', method: 'get', path: '/metrics', auth: 'public', limitedByHandler: true,
    headers: ['authorization'],
    summary: 'Prometheus metrics (text format 0.0.4): requests, latencies, tokens, cost in INR, breakers, ledger, limits, process. ' +
      'Bearer metrics.token when set, else loopback clients only',
    handle: async (ctx, reply) => {
      const refusal = want === null ? (isLoopback(ctx.ip) ? null : NOT_LOOPBACK) : granted(ctx.headers.authorization, want) ? null : errors.invalidMetricsToken();
      if (refusal !== null) {
        o.limitRefused(ctx.ip);
        throw refusal;
      }
      reply.send(200, EXPOSITION_CONTENT_TYPE, o.render(), { 'cache-control': 'no-store' });
    },
  });
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

function granted(authorization: string | undefined, want: Buffer): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return m !== null && timingSafeEqual(digest(m[1]), want);
}
