import { Type, type Static } from '@sinclair/typebox';
import type { Catalog, Provider } from '../catalog/catalog.js';
import { type RouteSpec, route } from '../domain/route-spec.js';
import { errors } from '../errors/catalog.js';
import { maskSecret, seal, sealContext, unseal } from '../lib/secret-box.js';
import { deleteByokKey, findByokKey, listByokKeys, markByokVerified, saveByokKey, type ByokKeyRow } from '../store/byok-keys.js';
import type { ControlDeps } from './control-deps.js';
import { checkProviderKey } from './provider-key-check.js';
import { iso } from './team-rules.js';

const LABEL_MAX = 64;
// Visible ASCII only: the key becomes a header on the way to the provider.
const KEY_RE = /^[\x21-\x7e]{8,512}$/;

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

/** The live check reads an OpenAI-style model list, so only such BYOK providers take saved keys. */
function takesSavedKeys(p: Provider): boolean {
  return p.entry.byok && p.entry.kind === 'openai-compatible';
}

export interface ByokRouteDeps extends ControlDeps {
  catalog: Catalog;
  masterKey: Buffer;
}

/**
 * /me/byok (spec 4.5, owner): an org's own provider keys. A key is checked live against the
 * provider's model list, sealed with the master key (AES-256-GCM) and reaches the data plane at
 * once: `provider/model-id` requests use it without `upstream_key`, and with `always_use` every
 * call to that provider does. Requests served on it are not debited.
 */
export function byokRoutes(d: ByokRouteDeps): RouteSpec[] {
  const { db, catalog } = d;
  const dispatchers = d.outbound;
  const timeoutMs = d.config.byok.verifyTimeoutMs;
  const enabled = (): void => {
    if (!d.config.byok.enabled) throw errors.byokDisabled();
  };
  const providerOf = (id: string): Provider => {
    enabled();
    const p = catalog.providers.get(id);
    if (!p || !takesSavedKeys(p)) throw errors.unknownProvider(id);
    return p;
  };
  const saved = (orgId: string, provider: Provider): ByokKeyRow => {
    const row = findByokKey(db, orgId, provider.id);
    if (!row) throw errors.notFound(`No saved key for '${provider.id}'`);
    return row;
  };
  const view = (r: ByokKeyRow): Static<typeof SavedKey> => ({
    provider: r.provider, key: r.key_hint, label: r.label, always_use: r.always_use, models: r.models.length,
    verified_at: iso(r.verified_at)!, updated_at: iso(r.updated_at)!,
  });

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
      handle: (ctx) => {
        enabled();
        const mine = new Map(listByokKeys(db, ctx.session.orgId).map((r) => [r.provider, r]));
        const data = [...catalog.providers.values()].filter(takesSavedKeys).map((p) => {
          const r = mine.get(p.id);
          return { provider: p.id, name: p.entry.name, residency: p.entry.residency, saved: r ? view(r) : null };
        });
        return { body: { data } };
      },
    }),
    route({
      kind: 'json', method: 'put', path: '/me/byok/:provider', auth: 'session', role: 'owner', body: Put, response: SavedKey,
      summary: 'Save the org\'s key for a provider: checked live (400 bad_key when refused), sealed, its models discovered',
      handle: async (ctx) => {
        const provider = providerOf(ctx.params.provider);
        const b = ctx.body;
        if (!KEY_RE.test(b.key)) throw errors.badKey(`That does not look like a ${provider.entry.name} key: 8 to 512 visible ASCII characters`);
        const label = b.label === undefined || b.label === null ? null : b.label.trim();
        if (label !== null && (label.length === 0 || label.length > LABEL_MAX || /[\u0000-\u001f\u007f]/.test(label))) {
          throw errors.badRequest(`Invalid 'label': 1 to ${LABEL_MAX} characters without control characters`);
        }
        const check = await checkProviderKey(provider, b.key, dispatchers, timeoutMs);
        if (check.result !== 'ok') {
          throw check.result === 'rejected' ? errors.badKey(`${check.message}; nothing was saved`)
            : errors.serviceUnavailable(`Could not check the key: ${check.message}; nothing was saved`);
        }
        const orgId = ctx.session.orgId;
        const now = d.clock.now();
        const alwaysUse = b.always_use ?? false;
        saveByokKey(db, {
          org_id: orgId, provider: provider.id, key_sealed: seal(b.key, d.masterKey, sealContext.providerKey(orgId, provider.id)), key_hint: maskSecret(b.key),
          label, always_use: alwaysUse, models: check.models, verified_at: now, updated_at: now,
        }, now);
        d.notify.orgKeyChanged(orgId, provider.id, { key: b.key, alwaysUse });
        return { body: view(findByokKey(db, orgId, provider.id)!) };
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
        const provider = providerOf(ctx.params.provider);
        const orgId = ctx.session.orgId;
        const row = saved(orgId, provider);
        const check = await checkProviderKey(provider, unseal(row.key_sealed, d.masterKey, sealContext.providerKey(orgId, provider.id)), dispatchers, timeoutMs);
        const now = d.clock.now();
        if (check.result === 'ok') markByokVerified(db, orgId, provider.id, check.models, now);
        return {
          body: {
            provider: provider.id, result: check.result, message: check.result === 'ok' ? null : check.message,
            models: check.result === 'ok' ? check.models.length : null, checked_at: iso(now)!,
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
      handle: (ctx) => {
        const provider = providerOf(ctx.params.provider);
        const row = saved(ctx.session.orgId, provider);
        return { body: { provider: provider.id, data: row.models.map((id) => ({ id, model: `${provider.id}/${id}` })) } };
      },
    }),
    route({
      kind: 'json', method: 'del', path: '/me/byok/:provider', auth: 'session', role: 'owner',
      response: Type.Object({ provider: Type.String(), deleted: Type.Boolean() }),
      summary: 'Remove the saved key: the provider is called with the platform key again, and provider/model-id needs upstream_key',
      handle: (ctx) => {
        const provider = providerOf(ctx.params.provider);
        const orgId = ctx.session.orgId;
        if (!deleteByokKey(db, orgId, provider.id)) throw errors.notFound(`No saved key for '${provider.id}'`);
        d.notify.orgKeyChanged(orgId, provider.id, null);
        return { body: { provider: provider.id, deleted: true } };
      },
    }),
  ];
}
