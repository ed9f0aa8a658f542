import { Type, type Static } from '@sinclair/typebox';
import type { Catalog } from '../catalog/catalog.js';
import type { ChainStep } from '../domain/chain.js';
import type { RouteSpec } from '../domain/route-spec.js';
import { errors } from '../errors/catalog.js';
import { deleteChain, findChain, listChains, saveChain, type ChainRow } from '../store/routing-chains.js';
import type { ControlDeps } from './control-deps.js';
import { iso } from './team-rules.js';

/** Spec 4.7: a chain has 1 to 10 steps. */
const MAX_STEPS = 10;

const Step = Type.Object({
  model: Type.Optional(Type.String({ minLength: 1, description: 'a catalog model of the same kind; absent: the chain\'s own model' })),
  provider: Type.Optional(Type.String({ minLength: 1, description: 'only this provider\'s route of that model; absent: all its routes in catalog order' })),
}, { additionalProperties: false });

const ChainBody = Type.Object({
  steps: Type.Array(Step, { minItems: 1, maxItems: MAX_STEPS }),
}, { additionalProperties: false });

const ChainItem = Type.Object({
  model: Type.String(),
  steps: Type.Array(Type.Object({ model: Type.String(), provider: Type.Union([Type.String(), Type.Null()]) })),
  routes: Type.Array(Type.Object({
    provider: Type.String(), model: Type.String(), upstream_model: Type.String(),
    configured: Type.Boolean({ description: 'usable on this gateway now; routes that are not are skipped' }),
  }), { description: 'what the steps expand to, in the order requests try them' }),
  updated_at: Type.String(),
});

/**
 * /me/routing (spec 4.7): an org's saved fallback chain per model. A request for that model,
 * with no `optimize` or `provider` of its own, tries the chain's routes in order instead of the
 * catalog's; `data_policy`, `provider` and `optimize` filter and reorder the chain's routes. Saved
 * and removed chains reach the data plane at once.
 */
export function routingRoutes(d: ControlDeps, catalog: Catalog): RouteSpec[] {
  const { db } = d;
  const item = (c: ChainRow): Static<typeof ChainItem> => ({
    model: c.model,
    steps: c.steps.map((s) => ({ model: s.model, provider: s.provider })),
    routes: expand(catalog, c.steps),
    updated_at: iso(c.updated_at)!,
  });
  const one = (orgId: string, model: string) => {
    if (!catalog.models.has(model)) throw errors.modelNotFound(model);
    const c = findChain(db, orgId, model);
    if (!c) throw errors.notFound(`No saved chain for '${model}'; requests for it use the catalog's routes`);
    return { body: item(c) };
  };
  const put = (orgId: string, userId: string, model: string, body: Static<typeof ChainBody>) => {
    const steps = checkSteps(catalog, model, body.steps);
    const c = saveChain(db, orgId, model, steps, userId, d.clock.now());
    d.notify.chainChanged(orgId, model, steps);
    return { body: item(c) };
  };
  const del = (orgId: string, model: string) => {
    if (!catalog.models.has(model)) throw errors.modelNotFound(model);
    if (!deleteChain(db, orgId, model)) throw errors.notFound(`No saved chain for '${model}'`);
    d.notify.chainChanged(orgId, model, null);
    return { body: { model, deleted: true } };
  };
  const Deleted = Type.Object({ model: Type.String(), deleted: Type.Boolean() });
  // Model ids may hold a slash (sandbox/echo): each route also has a two-segment form.
  const slashed = (p: Record<string, string>) => `${p.owner}/${p.name}`;
  return [
    {
      kind: 'json', method: 'get', path: '/me/routing', auth: 'session', response: Type.Object({ data: Type.Array(ChainItem) }),
      summary: 'The active org\'s saved routing chains, with the routes each expands to',
      handle: (ctx) => ({ body: { data: listChains(db, ctx.session!.orgId).map(item) } }),
    },
    {
      kind: 'json', method: 'get', path: '/me/routing/:model', auth: 'session', response: ChainItem,
      summary: 'One saved chain (404 when the model has none)',
      handle: (ctx) => one(ctx.session!.orgId, ctx.params.model),
    },
    {
      kind: 'json', method: 'get', path: '/me/routing/:owner/:name', auth: 'session', response: ChainItem,
      summary: 'The same, for a model id with a slash in it',
      handle: (ctx) => one(ctx.session!.orgId, slashed(ctx.params)),
    },
    {
      kind: 'json', method: 'put', path: '/me/routing/:model', auth: 'session', role: 'admin', body: ChainBody, response: ChainItem,
      summary: 'Save or replace the chain for a model (owner/admin): 1-10 steps, each a catalog model of the same kind and optionally one provider',
      handle: (ctx) => put(ctx.session!.orgId, ctx.session!.userId, ctx.params.model, ctx.body as Static<typeof ChainBody>),
    },
    {
      kind: 'json', method: 'put', path: '/me/routing/:owner/:name', auth: 'session', role: 'admin', body: ChainBody, response: ChainItem,
      summary: 'The same, for a model id with a slash in it',
      handle: (ctx) => put(ctx.session!.orgId, ctx.session!.userId, slashed(ctx.params), ctx.body as Static<typeof ChainBody>),
    },
    {
      kind: 'json', method: 'del', path: '/me/routing/:model', auth: 'session', role: 'admin', response: Deleted,
      summary: 'Remove a chain (owner/admin): requests for the model use the catalog\'s routes again',
      handle: (ctx) => del(ctx.session!.orgId, ctx.params.model),
    },
    {
      kind: 'json', method: 'del', path: '/me/routing/:owner/:name', auth: 'session', role: 'admin', response: Deleted,
      summary: 'The same, for a model id with a slash in it',
      handle: (ctx) => del(ctx.session!.orgId, slashed(ctx.params)),
    },
  ];
}

/** The steps as saved: each names a catalog model of the chain's kind and, if any, a provider that serves it; no step twice. */
function checkSteps(catalog: Catalog, modelId: string, given: Static<typeof ChainBody>['steps']): ChainStep[] {
  const model = catalog.models.get(modelId);
  if (!model) throw errors.modelNotFound(modelId);
  const seen = new Map<string, number>();
  return given.map((s, i) => {
    const stepModel = catalog.models.get(s.model ?? modelId);
    if (!stepModel) throw errors.badRequest(`Invalid 'steps.${i}.model': no model '${s.model}' in the catalog`);
    if (stepModel.kind !== model.kind) {
      throw errors.badRequest(`Invalid 'steps.${i}.model': '${stepModel.id}' is a ${stepModel.kind} model and '${modelId}' a ${model.kind} model`);
    }
    const provider = s.provider ?? null;
    if (provider !== null && !stepModel.routes.some((r) => r.provider.id === provider)) {
      throw errors.badRequest(`Invalid 'steps.${i}.provider': '${provider}' does not serve '${stepModel.id}'`);
    }
    const key = `${stepModel.id}\u0000${provider}`;
    if (seen.has(key)) throw errors.badRequest(`Invalid 'steps.${i}': it repeats step ${seen.get(key)}`);
    seen.set(key, i);
    return { model: stepModel.id, provider };
  });
}

/** The routes a chain tries, in order, as the data plane expands it (configured or not, for the dashboard). */
function expand(catalog: Catalog, steps: readonly ChainStep[]): Static<typeof ChainItem>['routes'] {
  const seen = new Set<string>();
  const out: Static<typeof ChainItem>['routes'] = [];
  for (const s of steps) {
    for (const r of catalog.models.get(s.model)?.routes ?? []) {
      if ((s.provider === null || r.provider.id === s.provider) && !seen.has(r.id)) {
        seen.add(r.id);
        out.push({ provider: r.provider.id, model: s.model, upstream_model: r.upstreamModel, configured: r.provider.configured });
      }
    }
  }
  return out;
}
