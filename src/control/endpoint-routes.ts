import { Type, type Static } from '@sinclair/typebox';
import { type RouteSpec, route } from '../domain/route-spec.js';
import { errors } from '../errors/catalog.js';
import { blockedReason } from '../lib/address-guard.js';
import { maskSecret, seal, sealContext, unseal } from '../lib/secret-box.js';
import {
  countEndpoints, deleteEndpoint, endpointNameTaken, findEndpoint, insertEndpoint, listEndpoints, updateEndpointTest, type EndpointRow,
} from '../store/custom-endpoints.js';
import type { ControlDeps } from './control-deps.js';
import { testEndpoint, type ComplianceReport } from './endpoint-compliance.js';
import { iso } from './team-rules.js';

const NAME_RE = /^[a-z0-9][a-z0-9-]{0,31}$/;
const KEY_RE = /^[\x21-\x7e]{1,512}$/;

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

export interface EndpointRouteDeps extends ControlDeps {
  masterKey: Buffer;
}

/**
 * /me/endpoints (spec 4.9): an org's own OpenAI-compatible endpoints. Each is guarded against
 * server-side request forgery, compliance-tested (model list, chat, stream) before it is saved and
 * on request, its key sealed like a saved provider key, and called by the data plane as
 * `custom/<name>/<model>` only while compliant, on the org's own account (not debited).
 */
export function endpointRoutes(d: EndpointRouteDeps): RouteSpec[] {
  const { db } = d;
  const cfg = d.config.customEndpoints;
  const dispatchers = d.outbound;
  const view = (r: EndpointRow): Static<typeof Item> => ({
    id: r.id, name: r.name, base_url: r.base_url, key: r.key_hint, compliance: JSON.parse(r.compliance) as ComplianceReport,
    tested_at: iso(r.tested_at)!, created_at: iso(r.created_at)!,
  });
  const inOrg = (id: string, orgId: string): EndpointRow => {
    const r = findEndpoint(db, id);
    if (!r || r.org_id !== orgId) throw errors.notFound('No such endpoint in this organisation');
    return r;
  };
  const publish = (r: EndpointRow, key: string | null): void => {
    d.notify.endpointChanged(r.org_id, r.name, { name: r.name, baseUrl: r.base_url, key, compliant: r.status === 'compliant', publicOnly: !cfg.allowInternalAddresses });
  };
  /** The config checked: a usable name (when asked), a public http(s) URL, a plausible key. */
  const checked = async (b: Static<typeof Config>, orgId: string | null) => {
    if (orgId !== null && !NAME_RE.test(b.name)) {
      throw errors.badRequest(`Invalid 'name': lower-case letters, digits and dashes, 1 to 32, starting with a letter or digit`);
    }
    let url: URL;
    try {
      url = new URL(b.base_url);
    } catch {
      throw errors.badRequest(`Invalid 'base_url': not a URL`);
    }
    const blocked = await blockedReason(url, cfg.allowInternalAddresses);
    if (blocked !== null) throw errors.badRequest(`Invalid 'base_url': ${blocked}`);
    const key = b.api_key ?? null;
    if (key !== null && !KEY_RE.test(key)) throw errors.badRequest(`Invalid 'api_key': 1 to 512 visible ASCII characters`);
    return { baseUrl: url.toString().replace(/\/+$/, ''), key };
  };
  const run = (baseUrl: string, key: string | null) => testEndpoint(baseUrl, key, dispatchers, cfg.testTimeoutMs, !cfg.allowInternalAddresses);

  return [
    route({
      kind: 'json', method: 'get', path: '/me/endpoints', auth: 'session', response: Type.Object({ data: Type.Array(Item) }),
      summary: 'The org\'s registered endpoints, keys masked, with their compliance status',
      handle: (ctx) => ({ body: { data: listEndpoints(db, ctx.session.orgId).map(view) } }),
    }),
    route({
      kind: 'json', method: 'post', path: '/me/endpoints', auth: 'session', role: 'admin', body: Config, response: Item,
      summary: 'Register an OpenAI-compatible endpoint (owner/admin): guarded against internal addresses and compliance-tested inline',
      handle: async (ctx) => {
        const orgId = ctx.session.orgId;
        const b = ctx.body;
        const { baseUrl, key } = await checked(b, orgId);
        if (endpointNameTaken(db, orgId, b.name)) throw errors.badRequest(`An endpoint named '${b.name}' already exists in this organisation`);
        if (countEndpoints(db, orgId) >= cfg.maxPerOrg) throw errors.rule('cap', `An organisation can register at most ${cfg.maxPerOrg} endpoints`);
        const report = await run(baseUrl, key);
        const now = d.clock.now();
        const id = db.transaction(() => {
          // Checked again: the test took time, and another request may have taken the name or the last place.
          if (endpointNameTaken(db, orgId, b.name)) throw errors.badRequest(`An endpoint named '${b.name}' already exists in this organisation`);
          if (countEndpoints(db, orgId) >= cfg.maxPerOrg) throw errors.rule('cap', `An organisation can register at most ${cfg.maxPerOrg} endpoints`);
          return insertEndpoint(db, {
            org_id: orgId, name: b.name, base_url: baseUrl,
            key_sealed: key === null ? null : seal(key, d.masterKey, sealContext.endpointKey(orgId, b.name)),
            key_hint: key === null ? null : maskSecret(key),
            status: report.status, compliance: JSON.stringify(report), tested_at: now,
          }, now);
        }).immediate();
        const row = findEndpoint(db, id)!;
        publish(row, key);
        return { status: 201, body: view(row) };
      },
    }),
    route({
      kind: 'json', method: 'post', path: '/me/endpoints/test', auth: 'session', body: Type.Omit(Config, ['name']), response: Report,
      summary: 'Compliance-test an endpoint config without saving anything',
      handle: async (ctx) => {
        const b = ctx.body;
        const { baseUrl, key } = await checked({ ...b, name: '' }, null);
        return { body: await run(baseUrl, key) };
      },
    }),
    route({
      kind: 'json', method: 'post', path: '/me/endpoints/:id/retest', auth: 'session', role: 'admin', response: Item,
      summary: 'Test a registered endpoint again (owner/admin); it is called only while its last test passed',
      handle: async (ctx) => {
        const r = inOrg(ctx.params.id, ctx.session.orgId);
        const key = r.key_sealed === null ? null : unseal(r.key_sealed, d.masterKey, sealContext.endpointKey(r.org_id, r.name));
        // The address is checked again: a name may since resolve elsewhere.
        const blocked = await blockedReason(new URL(r.base_url), cfg.allowInternalAddresses);
        const report: ComplianceReport = blocked === null ? await run(r.base_url, key)
          : { status: 'unreachable', models: [], checks: [{ name: 'models', ok: false, detail: blocked }] };
        updateEndpointTest(db, r.id, report.status, JSON.stringify(report), d.clock.now());
        const row = findEndpoint(db, r.id)!;
        publish(row, key);
        return { body: view(row) };
      },
    }),
    route({
      kind: 'json', method: 'del', path: '/me/endpoints/:id', auth: 'session', role: 'admin',
      response: Type.Object({ id: Type.String(), deleted: Type.Boolean() }),
      summary: 'Remove a registered endpoint (owner/admin); requests for it stop at once',
      handle: (ctx) => {
        const r = inOrg(ctx.params.id, ctx.session.orgId);
        deleteEndpoint(db, r.id);
        d.notify.endpointChanged(r.org_id, r.name, null);
        return { body: { id: r.id, deleted: true } };
      },
    }),
  ];
}
