import { Type, type Static } from '@sinclair/typebox';
import type { Catalog, Model, Route } from '../catalog/catalog.js';
import type { BreakerState } from '../domain/breaker-state.js';

const cachePrices = {
  cached_input: Type.Optional(Type.Number({ description: 'input tokens read from the provider\'s prompt cache; absent: billed as input' })),
  cache_write: Type.Optional(Type.Number({ description: 'input tokens written to the provider\'s prompt cache; absent: billed as input' })),
};
const Price = Type.Object({ input: Type.Number(), output: Type.Number(), ...cachePrices });

export const ModelObject = Type.Object({
  id: Type.String(),
  object: Type.Literal('model'),
  created: Type.Integer(),
  owned_by: Type.String(),
  name: Type.String(),
  kind: Type.String({ description: 'chat, embedding, transcription or speech' }),
  translates: Type.Optional(Type.Boolean({ description: 'transcription models that also take /v1/audio/translations (speech to English)' })),
  context_length: Type.Integer(),
  languages: Type.Array(Type.String()),
  pricing: Type.Object({
    currency: Type.Literal('INR'),
    unit: Type.Union([Type.Literal('per_1m_tokens'), Type.Literal('per_minute'), Type.Literal('per_1m_characters')],
      { description: 'per_minute: of audio heard (transcription, billed by the second); per_1m_characters: of text spoken (speech)' }),
    input: Type.Number(),
    output: Type.Number(),
    ...cachePrices,
  }),
  residency: Type.Array(Type.String(), { description: 'where the routes serving it run (in = India)' }),
  available: Type.Boolean({ description: 'at least one route is configured on this gateway' }),
  routes: Type.Array(Type.Object({
    provider: Type.String(),
    upstream_model: Type.String(),
    residency: Type.String(),
    configured: Type.Boolean(),
    health: Type.String({ description: 'circuit breaker: closed (healthy), open, half_open' }),
    pricing: Price,
  })),
});

const PRICE_UNIT = { chat: 'per_1m_tokens', embedding: 'per_1m_tokens', transcription: 'per_minute', speech: 'per_1m_characters' } as const;

export const ModelList = Type.Object({ object: Type.Literal('list'), data: Type.Array(ModelObject) });
export type ModelListBody = Static<typeof ModelList>;
export type ModelObjectBody = Static<typeof ModelObject>;

/**
 * One model of the list by id (`models.retrieve()`), the same object `/v1/models` shows, its
 * health as fresh. null for an id not in the catalog.
 */
export function modelFinder(list: () => ModelListBody): (id: string) => ModelObjectBody | null {
  let byId: Map<string, ModelObjectBody> | null = null;
  return (id) => {
    const { data } = list(); // refreshes the health strings of the objects kept below
    byId ??= new Map(data.map((m) => [m.id, m]));
    return byId.get(id) ?? null;
  };
}

/**
 * The public catalog in the OpenAI list shape (so `models.list()` works) plus INR pricing,
 * residency, languages, context length and live per-route health. The static part is built once;
 * only the health strings change per call. `now`: when the list was made (every model's `created`).
 */
export function modelLister(catalog: Catalog, health: (routeId: string) => BreakerState, now: number): () => ModelListBody {
  const created = Math.floor(now / 1000);
  const data = [...catalog.models.values()].map((m) => toObject(m, created));
  return () => {
    for (const obj of data) for (const r of obj.routes) r.health = health(`${r.provider}:${r.upstream_model}`);
    return { object: 'list', data };
  };
}

function toObject(m: Model, created: number): Static<typeof ModelObject> {
  return {
    id: m.id,
    object: 'model',
    created,
    owned_by: m.routes[0].provider.id,
    name: m.entry.name,
    kind: m.kind,
    ...(m.kind === 'transcription' ? { translates: m.entry.translates === true } : {}),
    context_length: m.entry.contextLength,
    languages: m.entry.languages,
    pricing: { currency: 'INR', unit: PRICE_UNIT[m.kind], ...priceOf(m.entry.priceInr) },
    residency: [...new Set(m.routes.map((r) => r.provider.entry.residency))],
    available: m.usableRoutes.length > 0,
    routes: m.routes.map((r) => ({
      provider: r.provider.id,
      upstream_model: r.upstreamModel,
      residency: r.provider.entry.residency,
      configured: r.provider.configured,
      health: 'closed',
      pricing: priceOf(r.priceInr),
    })),
  };
}

/** The catalog's price in the API's names, the cache prices only where the catalog has them. */
function priceOf(p: Route['priceInr']): Static<typeof Price> {
  return {
    input: p.input, output: p.output,
    ...(p.cachedInput === undefined ? {} : { cached_input: p.cachedInput }),
    ...(p.cacheWrite === undefined ? {} : { cache_write: p.cacheWrite }),
  };
}
