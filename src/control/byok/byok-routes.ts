import { Type, type Static } from '@sinclair/typebox';
import { type RouteSpec, route } from '../../domain/route-spec.js';
import type { SavedByokKey } from '../../domain/stores/byok-key-store.js';
import { iso } from '../../lib/iso-time.js';
import type { ByokService } from './byok-service.js';

const SavedKey = Type.Object({
  provider: Type.String(),
  key: Type.String({ description: 'masked: the first 3 and last 4 characters' }),
  label: Type.Union([Type.String(), Type.Null()]),
  always_use: Type.Boolean({ description: 'every call to this provider for the org uses this key, catalog routes included' }),
  models: Type.Integer({ description: 'models the provider listed for the key at its last check' }),
  verified_at: Type.String(),
  updated_at: Type.String(),
});
const Put = Type.Object({
  key: Type.String({ description: 'the provider key; checked live against the provider before it is saved' }),
  label: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  always_use: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

const view = (k: SavedByokKey): Static<typeof SavedKey> => ({
  provider: k.provider, key: k.keyHint, label: k.label, always_use: k.alwaysUse, models: k.models.length,
  verified_at: iso(k.verifiedAt), updated_at: iso(k.updatedAt),
});

/** /me/byok (spec 4.5, owner): HTTP to the BYOK service and back. */
export function byokRoutes(byok: ByokService): RouteSpec[] {
  return [
    route({
      kind: 'json', method: 'get', path: '/me/byok', auth: 'session', role: 'owner',
      response: Type.Object({
        data: Type.Array(Type.Object({
          provider: Type.String(), name: Type.String(), residency: Type.String(),
          saved: Type.Union([SavedKey, Type.Null()]),
        })),
      }),
      summary: 'Providers that take the org\'s own key, each with the saved key if any (masked)',
      handle: async (ctx) => {
        const data = (await byok.providers(ctx.session.orgId)).map(({ provider: p, saved }) =>
          ({ provider: p.id, name: p.entry.name, residency: p.entry.residency, saved: saved ? view(saved) : null }));
        return { body: { data } };
      },
    }),
    route({
      kind: 'json', method: 'put', path: '/me/byok/:provider', auth: 'session', role: 'owner', body: Put, response: SavedKey,
      summary: 'Save the org\'s key for a provider: checked live (400 bad_key when refused), sealed, its models discovered',
      handle: async (ctx) => {
        const b = ctx.body;
        return { body: view(await byok.save(ctx.session.orgId, ctx.params.provider, { key: b.key, label: b.label, alwaysUse: b.always_use })) };
      },
    }),
    route({
      kind: 'json', method: 'post', path: '/me/byok/:provider/test', auth: 'session', role: 'owner',
      response: Type.Object({
        provider: Type.String(), result: Type.Union([Type.Literal('ok'), Type.Literal('rejected'), Type.Literal('unreachable')]),
        message: Type.Union([Type.String(), Type.Null()]), models: Type.Union([Type.Integer(), Type.Null()]), checked_at: Type.String(),
      }),
      summary: 'Check the saved key against the provider now: ok, rejected or unreachable; ok refreshes its model list',
      handle: async (ctx) => {
        const { provider, check, checkedAt } = await byok.check(ctx.session.orgId, ctx.params.provider);
        return {
          body: {
            provider, result: check.result, message: check.result === 'ok' ? null : check.message,
            models: check.result === 'ok' ? check.models.length : null, checked_at: iso(checkedAt),
          },
        };
      },
    }),
    route({
      kind: 'json', method: 'get', path: '/me/byok/:provider/models', auth: 'session', role: 'owner',
      response: Type.Object({
        provider: Type.String(),
        data: Type.Array(Type.Object({ id: Type.String(), model: Type.String({ description: 'the id to send as model: provider/model-id' }) })),
      }),
      summary: 'The models the provider listed for the saved key, each addressable as provider/model-id',
      handle: async (ctx) => {
        const { provider, models } = await byok.models(ctx.session.orgId, ctx.params.provider);
        return { body: { provider, data: models.map((id) => ({ id, model: `${provider}/${id}` })) } };
      },
    }),
    route({
      kind: 'json', method: 'del', path: '/me/byok/:provider', auth: 'session', role: 'owner',
      response: Type.Object({ provider: Type.String(), deleted: Type.Boolean() }),
      summary: 'Remove the saved key: the provider is called with the platform key again, and provider/model-id needs upstream_key',
      handle: async (ctx) => ({ body: { provider: await byok.remove(ctx.session.orgId, ctx.params.provider), deleted: true } }),
    }),
  ];
}
