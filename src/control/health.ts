import { Type, type Static } from '@sinclair/typebox';
import type { Catalog } from '../catalog/catalog.js';
import type { BreakerState } from '../domain/breaker-state.js';

export const HealthBody = Type.Object({
  status: Type.String({ description: 'ok, or degraded when some configured route has an open circuit' }),
  uptime_s: Type.Integer(),
  providers: Type.Array(Type.Object({
    id: Type.String(),
    name: Type.String(),
    kind: Type.String(),
    configured: Type.Boolean(),
    residency: Type.String(),
  })),
  routes: Type.Array(Type.Object({
    id: Type.String(),
    provider: Type.String(),
    upstream_model: Type.String(),
    configured: Type.Boolean(),
    breaker: Type.String({ description: 'closed, open or half_open' }),
  })),
  upstream: Type.Object({
    connections_per_origin: Type.Integer({ description: 'upstream.connectionsPerOrigin in effect (derived at start when 0 in the config)' }),
    open: Type.Integer({ description: 'sockets open to catalog providers' }),
    busy: Type.Integer({ description: 'of those, carrying a request now' }),
    queued: Type.Integer({ description: 'requests waiting for a socket (all connections to their provider busy)' }),
    h2_sessions: Type.Integer({ description: 'HTTP/2 connections open to catalog providers (upstream.http2)' }),
    h2_streams: Type.Integer({ description: 'requests in flight over them' }),
  }),
});

/** The upstream connection pools' load, summed over catalog providers' origins. */
export type UpstreamLoad = Static<typeof HealthBody>['upstream'];

/** GET /health: which providers are configured and the circuit state of every route. */
export function healthReporter(catalog: Catalog, state: (routeId: string) => BreakerState, startedAt: number,
  upstream: () => UpstreamLoad): () => Static<typeof HealthBody> {
  const providers = [...catalog.providers.values()].map((p) => ({
    id: p.id, name: p.entry.name, kind: p.entry.kind, configured: p.configured, residency: p.entry.residency,
  }));
  const routes = [...catalog.routes.values()];
  return () => {
    let degraded = false;
    const list = routes.map((r) => {
      const breaker = state(r.id);
      if (breaker !== 'closed' && r.provider.configured) degraded = true;
      return { id: r.id, provider: r.provider.id, upstream_model: r.upstreamModel, configured: r.provider.configured, breaker };
    });
    return { status: degraded ? 'degraded' : 'ok', uptime_s: Math.floor((Date.now() - startedAt) / 1000), providers, routes: list,
      upstream: upstream() };
  };
}
