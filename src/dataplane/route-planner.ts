import { UNKNOWN_CONTEXT, type Catalog, type Model, type ModelKind, type Provider, type Route } from '../catalog/catalog.js';
import { chainRoutes } from '../catalog/chain-routes.js';
import { errors } from '../errors/catalog.js';
import { adapterFor } from '../providers/registry.js';
import type { Endpoint } from '../providers/types.js';
import type { ChainStep } from '../domain/chain.js';
import type { Extensions } from '../domain/extensions.js';
import type { ByokKey } from '../domain/byok-key.js';
import { CUSTOM_PREFIX, type OrgEndpoint } from '../domain/org-endpoint.js';
import type { Breakers } from './breakers.js';
import type { RouteStatsBook } from './route-stats.js';

/** One planned upstream attempt. */
export interface Attempt {
  route: Route;
  /** Request headers for the upstream, credential included, built once per plan. */
  headers: Record<string, string>;
  /** Served on the caller's own provider key: not debited for tokens. */
  byok: boolean;
  /** The credential in `headers`, scrubbed from any upstream error text before a client, log or ledger sees it. */
  secret: string | null;
}

const BASE_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A provider's request headers for a key. Built once per key and kept: the upstream client caches request heads by this object. */
function headersFor(kind: string, apiKey: string | null): Record<string, string> {
  const auth = apiKey ? adapterFor(kind).authHeaders(apiKey) : null;
  return auth ? { ...BASE_HEADERS, ...auth } : BASE_HEADERS;
}

function attempt(route: Route, apiKey: string | null, byok: boolean): Attempt {
  return { route, headers: headersFor(route.provider.entry.kind, apiKey), byok, secret: apiKey };
}

/** An org's saved key with its headers, built once when saved. */
interface SavedKey extends ByokKey {
  headers: Record<string, string>;
}

const KIND_OF: Record<Endpoint, ModelKind> = {
  chat: 'chat', embeddings: 'embedding', transcriptions: 'transcription', translations: 'transcription', speech: 'speech',
};
const KIND_NAME: Record<ModelKind, string> = { chat: 'a chat', embedding: 'an embedding', transcription: 'a transcription', speech: 'a speech' };
const PATH_OF: Record<ModelKind, string> = {
  chat: '/v1/chat/completions', embedding: '/v1/embeddings', transcription: '/v1/audio/transcriptions', speech: '/v1/audio/speech',
};

/** The gateway's price for a direct route: the caller pays the provider on their own key. */
const FREE = Object.freeze({ input: 0, output: 0 });

const POLICY: Record<NonNullable<Extensions['dataPolicy']>, (r: Route) => boolean> = {
  india_only: (r) => r.provider.entry.residency === 'in',
  no_training: (r) => !r.provider.entry.trainsOnInputs,
  zero_retention: (r) => r.provider.entry.zeroRetention,
};

/**
 * Chooses and orders the routes a request may use: catalog routes for the model, filtered by
 * credentials, data policy and provider pin, then ordered per `optimize` (else catalog order).
 */
export class RoutePlanner {
  readonly #catalog: Catalog;
  readonly #breakers: Breakers;
  readonly #stats: RouteStatsBook;
  /** Every route callable on the platform's key, as an attempt made once. */
  readonly #platform = new Map<string, Attempt>();
  /** The common case (no extensions) precomputed per model. */
  readonly #defaultPlans = new Map<string, Attempt[]>();
  /** Orgs' saved chains (spec 4.7), expanded once, when saved: every route in order, and the usable ones as attempts. */
  readonly #chains = new Map<string, Map<string, { routes: Route[]; plan: Attempt[] }>>();
  /** Orgs' saved provider keys (spec 4.5), by org and provider. */
  readonly #orgKeys = new Map<string, Map<string, SavedKey>>();
  /** Orgs' registered endpoints (spec 4.9), by org and name, each as a provider and headers made once. */
  readonly #endpoints = new Map<string, Map<string, { provider: Provider; headers: Record<string, string>; compliant: boolean }>>();

  /** The models /v1/audio/translations takes, named when another is asked for. */
  readonly #translators: string[];

  constructor(catalog: Catalog, breakers: Breakers, stats: RouteStatsBook) {
    this.#catalog = catalog;
    this.#breakers = breakers;
    this.#stats = stats;
    for (const r of catalog.routes.values()) if (r.provider.configured) this.#platform.set(r.id, attempt(r, r.provider.apiKey, false));
    for (const m of catalog.models.values()) this.#defaultPlans.set(m.id, m.usableRoutes.map((r) => this.#platform.get(r.id)!));
    this.#translators = [...catalog.models.values()].filter((m) => m.entry.translates === true).map((m) => m.id);
  }

  /**
   * Saves (or with null removes) an org's chain for a model: its steps expand, in order, to the
   * usable routes of each step's model, restricted to the step's provider when it names one.
   * Steps naming a model or provider the catalog no longer has are skipped.
   */
  setChain(orgId: string, modelId: string, steps: readonly ChainStep[] | null): void {
    let byModel = this.#chains.get(orgId);
    if (steps === null) {
      byModel?.delete(modelId);
      if (byModel?.size === 0) this.#chains.delete(orgId);
      return;
    }
    const routes = chainRoutes(this.#catalog, steps).map((r) => r.route);
    const plan = routes.filter((r) => r.provider.configured).map((r) => this.#platform.get(r.id)!);
    if (byModel === undefined) this.#chains.set(orgId, (byModel = new Map()));
    byModel.set(modelId, { routes, plan });
  }

  /** Saves (or with null removes) an org's own key for a provider. */
  setOrgKey(orgId: string, provider: string, saved: ByokKey | null): void {
    let byProvider = this.#orgKeys.get(orgId);
    if (saved === null) {
      byProvider?.delete(provider);
      if (byProvider?.size === 0) this.#orgKeys.delete(orgId);
      return;
    }
    if (byProvider === undefined) this.#orgKeys.set(orgId, (byProvider = new Map()));
    const kind = this.#catalog.providers.get(provider)?.entry.kind ?? 'openai-compatible';
    byProvider.set(provider, { ...saved, headers: headersFor(kind, saved.key) });
  }

  /** Saves (or with null removes) an org's registered endpoint. */
  setEndpoint(orgId: string, name: string, ep: OrgEndpoint | null): void {
    let byName = this.#endpoints.get(orgId);
    if (ep === null) {
      byName?.delete(name);
      if (byName?.size === 0) this.#endpoints.delete(orgId);
      return;
    }
    const id = `${CUSTOM_PREFIX}:${name}`;
    const provider: Provider = {
      id, baseUrl: ep.baseUrl, apiKey: ep.key, configured: true, enabled: true, publicOnly: ep.publicOnly, inProcess: null,
      // What the org's own server does with data is unknown here: it meets no data policy.
      entry: {
        id, name: `custom endpoint ${name}`, kind: 'openai-compatible', baseUrl: ep.baseUrl, keyEnv: null, residency: 'unknown', byok: true,
        streamOptions: true, trainsOnInputs: true, zeroRetention: false,
      },
    };
    if (byName === undefined) this.#endpoints.set(orgId, (byName = new Map()));
    byName.set(name, { provider, headers: headersFor(provider.entry.kind, ep.key), compliant: ep.compliant });
  }

  /**
   * Whether a request for `modelId` could be served by a provider of one of `kinds` (its catalog
   * routes, or the org's saved chain for it): a hint for work a route of that kind would need,
   * true when the model is not a catalog one (`provider/model-id`, custom endpoints).
   */
  mayUseKind(modelId: string, kinds: ReadonlySet<string>, orgId: string | null): boolean {
    const model = this.#catalog.models.get(modelId);
    if (!model) return true;
    for (const r of model.routes) if (kinds.has(r.provider.entry.kind)) return true;
    const chain = orgId === null ? undefined : this.#chains.get(orgId)?.get(modelId);
    if (chain !== undefined) for (const r of chain.routes) if (kinds.has(r.provider.entry.kind)) return true;
    return false;
  }

  plan(modelId: string, endpoint: Endpoint, ext: Extensions, orgId: string | null = null): Attempt[] {
    const model = this.#catalog.models.get(modelId);
    // A caller's own key in the request outranks the org's saved ones, and goes to the route it pins.
    const keys = orgId === null || ext.upstreamKey !== null ? undefined : this.#orgKeys.get(orgId);
    if (!model) {
      return modelId.startsWith(`${CUSTOM_PREFIX}/`) ? this.#custom(modelId, endpoint, ext, orgId) : this.#direct(modelId, endpoint, ext, keys);
    }
    if (model.kind !== KIND_OF[endpoint]) {
      throw errors.badRequest(`Model '${modelId}' is ${KIND_NAME[model.kind]} model; use ${PATH_OF[model.kind]}`);
    }
    if (endpoint === 'translations' && model.entry.translates !== true) {
      throw errors.badRequest(`Model '${modelId}' does not translate speech; these do: ${this.#translators.join(', ') || 'none in this catalog'}`);
    }
    // A saved chain may fall back to models that only transcribe, so translations keep to the model's own routes.
    const chain = orgId === null || ext.upstreamKey !== null || endpoint === 'translations' ? undefined : this.#chains.get(orgId)?.get(modelId);
    const own = keys === undefined ? undefined : this.#alwaysUse(chain?.routes ?? model.routes, keys);
    if (ext.optimize === null && ext.provider === null && ext.dataPolicy === null && ext.upstreamKey === null) {
      const plan = own ?? chain?.plan ?? this.#defaultPlans.get(modelId)!;
      if (plan.length === 0) {
        throw errors.noRoute(modelId, chain ? 'no route of the organisation\'s saved chain is configured on this gateway'
          : 'no provider serving it is configured on this gateway');
      }
      return plan;
    }
    return this.#planWith(model, ext, own ?? chain?.plan);
  }

  /**
   * The routes with the org's always-use keys in place of the platform's (a provider the gateway
   * has no key for becomes usable too); undefined when the org has no such key for any of them.
   */
  #alwaysUse(routes: readonly Route[], keys: ReadonlyMap<string, SavedKey>): Attempt[] | undefined {
    if (!routes.some((r) => keys.get(r.provider.id)?.alwaysUse)) return undefined;
    const out: Attempt[] = [];
    for (const r of routes) {
      const own = keys.get(r.provider.id);
      if (own?.alwaysUse && r.provider.enabled) out.push({ route: r, headers: own.headers, byok: true, secret: own.key });
      else if (r.provider.configured) out.push(this.#platform.get(r.id)!);
    }
    return out;
  }

  /** Candidates (a saved chain's, else the model's usable routes), filtered and ordered by the extensions. */
  #planWith(model: Model, ext: Extensions, chain: readonly Attempt[] | undefined): Attempt[] {
    let candidates: Attempt[];
    if (ext.upstreamKey !== null) {
      if (ext.provider === null || ext.provider.length !== 1) {
        throw errors.badRequest("'upstream_key' needs the request to resolve to one provider: pin it with 'provider'");
      }
      const pin = ext.provider[0];
      candidates = model.routes.filter((r) => r.provider.id === pin && r.provider.enabled && adapterFor(r.provider.entry.kind).keyless !== true)
        .map((route) => attempt(route, ext.upstreamKey, true));
    } else {
      candidates = [...(chain ?? this.#defaultPlans.get(model.id)!)];
    }
    if (ext.dataPolicy !== null) {
      const keep = POLICY[ext.dataPolicy];
      candidates = candidates.filter((a) => keep(a.route));
      if (candidates.length === 0) throw errors.noRoute(model.id, `no configured route meets data_policy ${ext.dataPolicy}`);
    }
    if (ext.provider !== null) {
      const pins = ext.provider;
      candidates = candidates.filter((a) => pins.includes(a.route.provider.id));
      if (candidates.length === 0) throw errors.noRoute(model.id, `provider ${pins.join(', ')} does not serve it or is not configured`);
      if (candidates.every((a) => this.#breakers.isOpen(a.route.id))) {
        throw errors.noRoute(model.id, `pinned provider ${pins.join(', ')} is down (circuit open)`);
      }
      if (pins.length > 1) candidates.sort((a, b) => pins.indexOf(a.route.provider.id) - pins.indexOf(b.route.provider.id));
    }
    if (candidates.length === 0) throw errors.noRoute(model.id, 'no provider serving it is configured on this gateway');
    if (ext.optimize !== null) this.#order(candidates, ext.optimize);
    return candidates;
  }

  /**
   * `provider/model-id` (spec 4.1): a model of a BYOK provider that the catalog does not list,
   * called on the caller's own key (`upstream_key`) under the provider's own id. Catalog ids win:
   * `sandbox/echo` is a catalog model, not the sandbox's `echo`.
   */
  #direct(modelId: string, endpoint: Endpoint, ext: Extensions, keys: ReadonlyMap<string, SavedKey> | undefined): Attempt[] {
    const slash = modelId.indexOf('/');
    const provider = slash > 0 ? this.#catalog.providers.get(modelId.slice(0, slash)) : undefined;
    if (provider === undefined) throw errors.modelNotFound(modelId);
    const upstreamModel = modelId.slice(slash + 1);
    if (upstreamModel.trim() === '') throw errors.badRequest(`Invalid 'model': '${modelId}' names no model after the provider`);
    if (!provider.enabled) throw errors.noRoute(modelId, `provider ${provider.id} is turned off on this gateway`);
    if (!provider.entry.byok) {
      throw errors.badRequest(`Provider '${provider.id}' does not take callers' keys, so '${modelId}' cannot be addressed directly; use a catalog model id`);
    }
    if (!adapterFor(provider.entry.kind).endpoints.has(endpoint)) {
      throw errors.badRequest(`Provider '${provider.id}' does not serve ${endpoint}; '${modelId}' cannot be called here`);
    }
    const saved = ext.upstreamKey === null ? keys?.get(provider.id) : undefined;
    if (ext.upstreamKey === null && saved === undefined) {
      // Spec 7: an id that is neither in the catalog nor reachable on a key of the org's is not found.
      throw errors.modelNotFound(modelId, `is not a catalog model: addressed as provider/model-id it is served on your own ${provider.id} key, ` +
        `sent in 'upstream_key' or saved under /me/byok/${provider.id}`);
    }
    if (ext.provider !== null && !ext.provider.includes(provider.id)) {
      throw errors.noRoute(modelId, `it is served by ${provider.id} only, and provider pins ${ext.provider.join(', ')}`);
    }
    const route: Route = {
      id: `${provider.id}:${upstreamModel}`, provider, upstreamModel, priceInr: FREE, inputMicrosPerUnit: 0, outputMicrosPerUnit: 0, direct: true,
      cachedInputMicrosPerUnit: 0, cacheWriteMicrosPerUnit: 0, contextLength: UNKNOWN_CONTEXT,
    };
    if (ext.dataPolicy !== null && !POLICY[ext.dataPolicy](route)) {
      throw errors.noRoute(modelId, `${provider.id} does not meet data_policy ${ext.dataPolicy}`);
    }
    // A saved key's headers were built when it was saved; a key in the request is new each time.
    return [saved ? { route, headers: saved.headers, byok: true, secret: saved.key } : attempt(route, ext.upstreamKey, true)];
  }

  /**
   * `custom/<endpoint>/<model>`: a model on one of the org's registered endpoints (spec 4.9),
   * called with the endpoint's own key while its last compliance test passed, not debited.
   */
  #custom(modelId: string, endpoint: Endpoint, ext: Extensions, orgId: string | null): Attempt[] {
    const rest = modelId.slice(CUSTOM_PREFIX.length + 1);
    const slash = rest.indexOf('/');
    const name = slash > 0 ? rest.slice(0, slash) : '';
    const upstreamModel = slash > 0 ? rest.slice(slash + 1) : '';
    const ep = orgId === null ? undefined : this.#endpoints.get(orgId)?.get(name);
    if (ep === undefined) throw errors.modelNotFound(modelId);
    if (upstreamModel.trim() === '') throw errors.badRequest(`Invalid 'model': '${modelId}' names no model after the endpoint`);
    if (!ep.compliant) throw errors.noRoute(modelId, `endpoint '${name}' did not pass its last compliance test; retest it`);
    if (endpoint !== 'chat' && endpoint !== 'embeddings') throw errors.badRequest(`Registered endpoints serve chat and embeddings, not ${endpoint}`);
    if (ext.provider !== null && !ext.provider.includes(ep.provider.id)) throw errors.noRoute(modelId, `it is served by ${ep.provider.id} only`);
    if (ext.dataPolicy !== null) throw errors.noRoute(modelId, `a registered endpoint's data handling is unknown, so it meets no data_policy`);
    const route: Route = {
      id: `${ep.provider.id}:${upstreamModel}`, provider: ep.provider, upstreamModel, priceInr: FREE, inputMicrosPerUnit: 0,
      outputMicrosPerUnit: 0, cachedInputMicrosPerUnit: 0, cacheWriteMicrosPerUnit: 0, direct: true, contextLength: UNKNOWN_CONTEXT,
    };
    return [{ route, headers: ep.headers, byok: true, secret: ep.provider.apiKey }];
  }

  #order(list: Attempt[], by: NonNullable<Extensions['optimize']>): void {
    if (by === 'price') {
      list.sort((a, b) => (a.route.inputMicrosPerUnit + a.route.outputMicrosPerUnit) - (b.route.inputMicrosPerUnit + b.route.outputMicrosPerUnit));
      return;
    }
    // Routes without samples keep their catalog order after the measured ones.
    const score = (a: Attempt): number => {
      const s = this.#stats.for(a.route.id);
      if (by === 'latency') return s.p95() ?? Number.POSITIVE_INFINITY;
      const tps = s.tokensPerSecond();
      return tps === null ? Number.POSITIVE_INFINITY : -tps;
    };
    const scores = new Map(list.map((a) => [a, score(a)]));
    list.sort((a, b) => scores.get(a)! - scores.get(b)!);
  }
}
