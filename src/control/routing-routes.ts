import { Type, type Static } from '@sinclair/typebox';
import type { Catalog } from '../catalog/catalog.js';
import { type RouteSpec, route } from '../domain/route-spec.js';
import { errors } from '../errors/catalog.js';
import { deleteChain, findChain, listChains, saveChain, type ChainRow } from '../store/routing-chains.js';
import { catalogModel, checkSteps, expandSteps, StepsField, StepView, ExpandedRoutes } from './chain-steps.js';
import type { ControlDeps } from './control-deps.js';
import { iso } from './team-rules.js';

const ChainBody = Type.Object({ steps: StepsField }, { additionalProperties: false });

const ChainItem = Type.Object({
  model: Type.String(),
  steps: Type.Array(StepView),
  routes: ExpandedRoutes,
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
    routes: expandSteps(catalog, c.steps),
    updated_at: iso(c.updated_at)!,
  });
  const one = (orgId: string, model: string) => {
    catalogModel(catalog, model);
    const c = findChain(db, orgId, model);
    if (!c) throw errors.notFound(`No saved chain for '${model}'; requests for it use the catalog's routes`);
    return { body: item(c) };
  };
  const put = (orgId: string, userId: string, model: string, body: Static<typeof ChainBody>) => {
    const steps = checkSteps(catalog, catalogModel(catalog, model), body.steps);
    const c = saveChain(db, orgId, model, steps, userId, d.clock.now());
    d.notify.chainChanged(orgId, model, steps);
    return { body: item(c) };
  };
  const del = (orgId: string, model: string) => {
    catalogModel(catalog, model);
    if (!deleteChain(db, orgId, model)) throw errors.notFound(`No saved chain for '${model}'`);
    d.notify.chainChanged(orgId, model, null);
    return { body: { model, deleted: true } };
  };
  const Deleted = Type.Object({ model: Type.String(), deleted: Type.Boolean() });
  // Model ids may hold a slash (sandbox/echo): each route also has a two-segment form.
  const slashed = (p: Record<string, string>) => `${p.owner}/${p.name}`;
  return [
    route({
      kind: 'json', method: 'get', path: '/me/routing', auth: 'session', response: Type.Object({ data: Type.Array(ChainItem) }),
      summary: 'The active org\'s saved routing chains, with the routes each expands to',
      handle: (ctx) => ({ body: { data: listChains(db, ctx.session.orgId).map(item) } }),
    }),
    route({
      kind: 'json', method: 'get', path: '/me/routing/:model', auth: 'session', response: ChainItem,
      summary: 'One saved chain (404 when the model has none)',
      handle: (ctx) => one(ctx.session.orgId, ctx.params.model),
    }),
    route({
      kind: 'json', method: 'get', path: '/me/routing/:owner/:name', auth: 'session', response: ChainItem,
      summary: 'The same, for a model id with a slash in it',
      handle: (ctx) => one(ctx.session.orgId, slashed(ctx.params)),
    }),
    route({
      kind: 'json', method: 'put', path: '/me/routing/:model', auth: 'session', role: 'admin', body: ChainBody, response: ChainItem,
      summary: 'Save or replace the chain for a model (owner/admin): 1-10 steps, each a catalog model of the same kind and optionally one provider (400 bad_steps, bad_model)',
      handle: (ctx) => put(ctx.session.orgId, ctx.session.userId, ctx.params.model, ctx.body),
    }),
    route({
      kind: 'json', method: 'put', path: '/me/routing/:owner/:name', auth: 'session', role: 'admin', body: ChainBody, response: ChainItem,
      summary: 'The same, for a model id with a slash in it',
      handle: (ctx) => put(ctx.session.orgId, ctx.session.userId, slashed(ctx.params), ctx.body),
    }),
    route({
      kind: 'json', method: 'del', path: '/me/routing/:model', auth: 'session', role: 'admin', response: Deleted,
      summary: 'Remove a chain (owner/admin): requests for the model use the catalog\'s routes again',
      handle: (ctx) => del(ctx.session.orgId, ctx.params.model),
    }),
    route({
      kind: 'json', method: 'del', path: '/me/routing/:owner/:name', auth: 'session', role: 'admin', response: Deleted,
      summary: 'The same, for a model id with a slash in it',
      handle: (ctx) => del(ctx.session.orgId, slashed(ctx.params)),
    }),
  ];
}
