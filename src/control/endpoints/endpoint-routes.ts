import { Type, type Static } from '@sinclair/typebox';
import { type RouteSpec, route } from '../../domain/route-spec.js';
import type { CustomEndpoint } from '../../domain/stores/custom-endpoint-store.js';
import { iso } from '../../lib/iso-time.js';
import type { EndpointService } from './endpoint-service.js';

const Report = Type.Object({
  status: Type.String({ description: 'compliant (called), non_compliant or unreachable (not called until a retest passes)' }),
  models: Type.Array(Type.String(), { description: 'the endpoint\'s models; call them as custom/<name>/<model>' }),
  checks: Type.Array(Type.Object({ name: Type.String(), ok: Type.Boolean(), detail: Type.String() })),
});
const Item = Type.Object({
  id: Type.String(),
  name: Type.String(),
  base_url: Type.String(),
  key: Type.Union([Type.String(), Type.Null()], { description: 'masked' }),
  compliance: Report,
  tested_at: Type.String(),
  created_at: Type.String(),
});
const Config = Type.Object({
  name: Type.String({ description: 'lower-case letters, digits and dashes, 1-32, unique in the org' }),
  base_url: Type.String({ description: 'the OpenAI-compatible API root, e.g. https://llm.example.com/v1' }),
  api_key: Type.Optional(Type.Union([Type.String(), Type.Null()])),
}, { additionalProperties: false });

const view = (e: CustomEndpoint): Static<typeof Item> => ({
  id: e.id, name: e.name, base_url: e.baseUrl, key: e.keyHint, compliance: e.compliance, tested_at: iso(e.testedAt), created_at: iso(e.createdAt),
});

/** /me/endpoints (spec 4.9): HTTP to the endpoint service and back. */
export function endpointRoutes(endpoints: EndpointService): RouteSpec[] {
  return [
    route({
      kind: 'json', method: 'get', path: '/me/endpoints', auth: 'session', response: Type.Object({ data: Type.Array(Item) }),
      summary: 'The org\'s registered endpoints, keys masked, with their compliance status',
      handle: async (ctx) => ({ body: { data: (await endpoints.list(ctx.session.orgId)).map(view) } }),
    }),
    route({
      kind: 'json', method: 'post', path: '/me/endpoints', auth: 'session', role: 'admin', body: Config, response: Item,
      summary: 'Register an OpenAI-compatible endpoint (owner/admin): guarded against internal addresses and compliance-tested inline',
      handle: async (ctx) => {
        const b = ctx.body;
        const e = await endpoints.register(ctx.session.orgId, b.name, { baseUrl: b.base_url, apiKey: b.api_key ?? null });
        return { status: 201, body: view(e) };
      },
    }),
    route({
      kind: 'json', method: 'post', path: '/me/endpoints/test', auth: 'session', body: Type.Omit(Config, ['name']), response: Report,
      summary: 'Compliance-test an endpoint config without saving anything',
      handle: async (ctx) => ({ body: await endpoints.test({ baseUrl: ctx.body.base_url, apiKey: ctx.body.api_key ?? null }) }),
    }),
    route({
      kind: 'json', method: 'post', path: '/me/endpoints/:id/retest', auth: 'session', role: 'admin', response: Item,
      summary: 'Test a registered endpoint again (owner/admin); it is called only while its last test passed',
      handle: async (ctx) => ({ body: view(await endpoints.retest(ctx.session.orgId, ctx.params.id)) }),
    }),
    route({
      kind: 'json', method: 'del', path: '/me/endpoints/:id', auth: 'session', role: 'admin',
      response: Type.Object({ id: Type.String(), deleted: Type.Boolean() }),
      summary: 'Remove a registered endpoint (owner/admin); requests for it stop at once',
      handle: async (ctx) => {
        await endpoints.remove(ctx.session.orgId, ctx.params.id);
        return { body: { id: ctx.params.id, deleted: true } };
      },
    }),
  ];
}
