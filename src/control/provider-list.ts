import { Type, type Static } from '@sinclair/typebox';
import type { Catalog } from '../catalog/catalog.js';
import type { BreakerState } from '../domain/breaker-state.js';

export const ProviderList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(Type.Object({
    id: Type.String(),
    name: Type.String(),
    kind: Type.String({ description: 'openai-compatible, or sandbox (answered inside the gateway)' }),
    residency: Type.String({ description: 'where the provider runs (in = India, local = inside the gateway)' }),
    configured: Type.Boolean({ description: 'usable on this gateway without a key of the caller\'s' }),
    byok: Type.Boolean({ description: 'accepts the caller\'s own provider key (upstream_key)' }),
    platform_key_fallback: Type.Boolean({ description: 'a request that brings no key of its own is served with the gateway\'s key' }),
    stream_usage: Type.Boolean({ description: 'accepts stream_options.include_usage, so streams report their own usage' }),
    trains_on_inputs: Type.Boolean(),
    zero_retention: Type.Boolean(),
    self_hosted: Type.Boolean({ description: 'a server on the operator\'s own machine (off until the operator says where it runs)' }),
    models: Type.Array(Type.String(), { description: 'catalog models it serves' }),
    health: Type.String({ description: 'ok, or degraded while one of its routes has an open circuit' }),
  })),
});

export type ProviderListBody = Static<typeof ProviderList>;

/**
 * GET /v1/providers: the provider registry as this deployment sees it. Base URLs are left out:
 * a self-hoster's may name a private address. The static part is built once; only health is
 * read per call.
 */
export function providerLister(catalog: Catalog, state: (routeId: string) => BreakerState): () => ProviderListBody {
  const routes = [...catalog.routes.values()];
  const entries = [...catalog.providers.values()].map((p) => ({
    routeIds: routes.filter((r) => r.provider === p).map((r) => r.id),
    shown: {
      id: p.id,
      name: p.entry.name,
      kind: p.entry.kind,
      residency: p.entry.residency,
      configured: p.configured,
      byok: p.entry.byok,
      platform_key_fallback: p.apiKey !== null,
      stream_usage: p.entry.streamOptions,
      trains_on_inputs: p.entry.trainsOnInputs,
      zero_retention: p.entry.zeroRetention,
      self_hosted: p.entry.selfHosted === true,
      models: [...catalog.models.values()].filter((m) => m.routes.some((r) => r.provider === p)).map((m) => m.id),
      health: 'ok',
    },
  }));
  const body = { object: 'list' as const, data: entries.map((e) => e.shown) };
  return () => {
    for (const e of entries) e.shown.health = e.routeIds.some((id) => state(id) !== 'closed') ? 'degraded' : 'ok';
    return body;
  };
}
