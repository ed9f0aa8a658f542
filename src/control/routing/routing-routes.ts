import { Type, type Static } from '@sinclair/typebox';
import { type RouteSpec, route } from '../../domain/route-spec.js';
import { iso } from '../../lib/iso-time.js';
import { ExpandedRoutes, routesView, StepsField, StepView } from './chain-schemas.js';
import type { ChainView, RoutingService } from './routing-service.js';

const ChainBody = Type.Object({ steps: StepsField }, { additionalProperties: false });

const ChainItem = Type.Object({
  model: Type.String(),
  steps: Type.Array(StepView),
  routes: ExpandedRoutes,
  updated_at: Type.String(),
});

const item = (c: ChainView): Static<typeof ChainItem> => ({
  model: c.model,
  steps: c.steps.map((s) => ({ model: s.model, provider: s.provider })),
  routes: routesView(c.routes),
  updated_at: iso(c.updatedAt),
});

/**
 * /me/routing (spec 4.7): HTTP to the routing service and back. `data_policy`, `provider` and
 * `optimize` on a request filter and reorder the chain's routes.
 */
export function routingRoutes(chains: RoutingService): RouteSpec[] {
  const Deleted = Type.Object({ model: Type.String(), deleted: Type.Boolean() });
  const deleted = async (orgId: string, model: string) => {
    await chains.remove(orgId, model);
    return { body: { model, deleted: true } };
  };
  // Model ids may hold a slash (sandbox/echo): each route also has a two-segment form.
  const slashed = (p: Record<string, string>) => `${p.owner}/${p.name}`;
  return [
    route({
      kind: 'json', method: 'get', path: '/me/routing', auth: 'session', response: Type.Object({ data: Type.Array(ChainItem) }),
      summary: 'The active org\'s saved routing chains, with the routes each expands to',
      handle: async (ctx) => ({ body: { data: (await chains.list(ctx.session.orgId)).map(item) } }),
    }),
    route({
      kind: 'json', method: 'get', path: '/me/routing/:model', auth: 'session', response: ChainItem,
      summary: 'One saved chain (404 when the model has none)',
      handle: async (ctx) => ({ body: item(await chains.find(ctx.session.orgId, ctx.params.model)) }),
    }),
    route({
      kind: 'json', method: 'get', path: '/me/routing/:owner/:name', auth: 'session', response: ChainItem,
      summary: 'The same, for a model id with a slash in it',
      handle: async (ctx) => ({ body: item(await chains.find(ctx.session.orgId, slashed(ctx.params))) }),
    }),
    route({
      kind: 'json', method: 'put', path: '/me/routing/:model', auth: 'session', role: 'admin', body: ChainBody, response: ChainItem,
      summary: 'Save or replace the chain for a model (owner/admin): 1-10 steps, each a catalog model of the same kind and optionally one provider (400 bad_steps, bad_model)',
      handle: async (ctx) => ({ body: item(await chains.save(ctx.session.orgId, ctx.session.userId, ctx.params.model, ctx.body.steps)) }),
    }),
    route({
      kind: 'json', method: 'put', path: '/me/routing/:owner/:name', auth: 'session', role: 'admin', body: ChainBody, response: ChainItem,
      summary: 'The same, for a model id with a slash in it',
      handle: async (ctx) => ({ body: item(await chains.save(ctx.session.orgId, ctx.session.userId, slashed(ctx.params), ctx.body.steps)) }),
    }),
    route({
      kind: 'json', method: 'del', path: '/me/routing/:model', auth: 'session', role: 'admin', response: Deleted,
      summary: 'Remove a chain (owner/admin): requests for the model use the catalog\'s routes again',
      handle: (ctx) => deleted(ctx.session.orgId, ctx.params.model),
    }),
    route({
      kind: 'json', method: 'del', path: '/me/routing/:owner/:name', auth: 'session', role: 'admin', response: Deleted,
      summary: 'The same, for a model id with a slash in it',
      handle: (ctx) => deleted(ctx.session.orgId, slashed(ctx.params)),
    }),
  ];
}
