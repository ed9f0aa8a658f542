import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { createInjector } from '../../src/http/inject.js';
import { route, type RouteSpec } from '../../src/domain/route-spec.js';
import type { KeyRecord } from '../../src/domain/key-record.js';
import type { Role, Session } from '../../src/domain/session.js';
import { errors } from '../../src/errors/catalog.js';
import { ANTHROPIC_ERRORS } from '../../src/formats/messages/error.js';
import { createLogger } from '../../src/lib/logger.js';
import { keyRoutes } from '../../src/control/keys/key-routes.js';
import { KeyService } from '../../src/control/keys/key-service.js';
import { openDatabase } from '../../src/store/database.js';
import { insertOrg, sqliteOrgStore } from '../../src/store/orgs.js';
import { insertKey, sqliteKeyStore } from '../../src/store/keys.js';

// The router in process: what a route declares is what the router enforces, before the handler runs.

const key = (scope: 'full' | 'inference'): KeyRecord => ({
  id: `key_${scope}`, orgId: 'org_a', workspaceId: 'ws_a', name: scope, prefix: 'gw-xxxx', tier: 'standard', scope,
  rpmLimit: null, dailyLimit: null, monthlyBudgetMicros: null, expiresAt: null, revokedAt: null,
});
const KEYS: Record<string, KeyRecord> = { 'Bearer gw-full': key('full'), 'Bearer gw-inference': key('inference') };
const session = (role: Role): Session => ({ hash: role, userId: `usr_${role}`, email: `${role}@example.com`, orgId: 'org_a', role, expiresAt: Infinity });

const handled: string[] = [];
const routes: RouteSpec[] = [
  route({
    kind: 'json', method: 'post', path: '/things/:id', auth: 'session', role: 'admin', summary: 'admin write',
    body: Type.Object({ n: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
    // The context is typed: body.n is a number and session is there, without casts.
    handle: (ctx) => ({ body: { id: ctx.params.id, n: ctx.body.n * 2, by: ctx.session.userId } }),
  }),
  route({
    kind: 'json', method: 'get', path: '/things/:id', auth: 'session', summary: 'member read',
    handle: (ctx) => ({ body: { id: ctx.params.id, role: ctx.session.role, q: ctx.query } }),
  }),
  route({
    kind: 'json', method: 'get', path: '/keyed', auth: 'api_key', summary: 'any key',
    handle: (ctx) => ({ body: { key: ctx.key.id } }),
  }),
  route({
    kind: 'json', method: 'get', path: '/managed', auth: 'api_key', scope: 'full', summary: 'full keys only',
    handle: (ctx) => ({ body: { key: ctx.key.id } }),
  }),
  route({
    kind: 'raw', method: 'post', path: '/anthropic', auth: 'api_key', apiKeyHeader: 'x-api-key', errorFormat: ANTHROPIC_ERRORS, summary: 'x-api-key',
    handle: async (ctx, reply) => {
      handled.push(ctx.body.toString());
      reply.send(200, 'text/plain', ctx.key.id);
    },
  }),
  route({
    kind: 'json', method: 'get', path: '/open', auth: 'public', summary: 'public',
    handle: (ctx) => ({ body: { ip: ctx.ip } }),
  }),
  route({
    kind: 'json', method: 'get', path: '/boom', auth: 'public', summary: 'fails',
    handle: () => { throw errors.rule('bad_name', 'refused by the rule'); },
  }),
];
const inject = createInjector(routes, {
  log: createLogger('error'),
  keys: {
    authenticate: (a) => {
      const k = KEYS[a];
      if (!k) throw errors.invalidApiKey(a ? 'Invalid API key' : 'Missing API key');
      return k;
    },
  },
  sessions: (token) => (['owner', 'admin', 'member'].includes(token) ? session(token as Role) : null),
  allowedOrigins: new Set(['http://gw.example']),
  bodyLimitBytes: 64,
});
const cookie = (role: string) => ({ cookie: `gw_session=${role}`, origin: 'http://gw.example' });

test('session routes: no cookie is 401 no_session, a member on an admin route 403, an admin gets a typed context', async () => {
  const none = await inject({ method: 'POST', url: '/things/t1', body: { n: 2 } });
  assert.is(none.status, 401);
  assert.is(none.json().error.code, 'no_session');
  const member = await inject({ method: 'POST', url: '/things/t1', headers: cookie('member'), body: { n: 2 } });
  assert.is(member.status, 403);
  assert.is(member.json().error.code, 'forbidden');
  const admin = await inject({ method: 'POST', url: '/things/t%201', headers: cookie('admin'), body: { n: 2 } });
  assert.is(admin.status, 200);
  assert.equal(admin.json(), { id: 't 1', n: 4, by: 'usr_admin' });
  assert.ok(admin.headers['x-request-id']);
});

test('session writes from another origin are refused; reads are not checked for origin', async () => {
  const write = await inject({ method: 'POST', url: '/things/t1', headers: { cookie: 'gw_session=owner', origin: 'http://evil.example' }, body: { n: 1 } });
  assert.is(write.status, 403);
  assert.match(write.json().error.message, /Cross-site/);
  const read = await inject({ method: 'GET', url: '/things/t1?x=1', headers: { cookie: 'gw_session=member', origin: 'http://evil.example' } });
  assert.equal(read.json(), { id: 't1', role: 'member', q: 'x=1' });
});

test("the body is checked against the route's schema: 400 with the schema's complaint, and required", async () => {
  const bad = await inject({ method: 'POST', url: '/things/t1', headers: cookie('owner'), body: { n: 0 } });
  assert.is(bad.status, 400);
  assert.is(bad.json().error.code, 'bad_request');
  const extra = await inject({ method: 'POST', url: '/things/t1', headers: cookie('owner'), body: { n: 1, x: 1 } });
  assert.is(extra.status, 400);
  const empty = await inject({ method: 'POST', url: '/things/t1', headers: cookie('owner') });
  assert.is(empty.status, 400);
  assert.match(empty.json().error.message, /required/);
  const big = await inject({ method: 'POST', url: '/things/t1', headers: cookie('owner'), body: { n: 1, pad: 'x'.repeat(100) } });
  assert.is(big.status, 413);
});

test('api_key routes: the router authenticates, with a Bearer challenge on 401; scope full refuses an inference key', async () => {
  const missing = await inject({ method: 'GET', url: '/keyed' });
  assert.is(missing.status, 401);
  assert.is(missing.headers['www-authenticate'], 'Bearer realm="gw"');
  assert.equal((await inject({ method: 'GET', url: '/keyed', headers: { authorization: 'Bearer gw-inference' } })).json(), { key: 'key_inference' });
  const managed = await inject({ method: 'GET', url: '/managed', headers: { authorization: 'Bearer gw-inference' } });
  assert.is(managed.status, 403);
  assert.equal((await inject({ method: 'GET', url: '/managed', headers: { authorization: 'Bearer gw-full' } })).json(), { key: 'key_full' });
});

test('x-api-key on the routes that accept it, errors in the route format, and no body read for a stranger', async () => {
  handled.length = 0;
  const ok = await inject({ method: 'POST', url: '/anthropic', headers: { 'x-api-key': ' gw-full ' }, body: 'hello' });
  assert.is(ok.body, 'key_full');
  const missing = await inject({ method: 'POST', url: '/anthropic', body: 'secret' });
  assert.is(missing.status, 401);
  assert.is(missing.json().type, 'error'); // Anthropic's shape
  assert.match(missing.json().error.message, /x-api-key/);
  assert.equal(handled, ['hello']);
});

test('public routes see the client address; a thrown rule is its status and code; 404 and 405', async () => {
  assert.equal((await inject({ method: 'GET', url: '/open', ip: '10.0.0.9' })).json(), { ip: '10.0.0.9' });
  const boom = await inject({ method: 'GET', url: '/boom' });
  assert.is(boom.status, 400);
  assert.is(boom.json().error.code, 'bad_name');
  assert.is((await inject({ method: 'GET', url: '/nothing' })).status, 404);
  const wrong = await inject({ method: 'DELETE', url: '/open' });
  assert.is(wrong.status, 405);
  assert.is((await inject({ method: 'GET', url: '/things/%E0%A4' , headers: cookie('member') })).status, 400);
});

test('a real control-plane module in process: /me/keys over SQLite, roles as the route declares them', async () => {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'gw-inject-')), 'gw.db'));
  const { orgId, workspaceId } = insertOrg(db, 'Acme', { now: Date.now() });
  const minted = insertKey(db, { orgId, workspaceId, name: 'first', tier: 'trial', monthlyBudgetMicros: null, expiresAt: null }, Date.now());
  const changed: string[] = [];
  const keys = keyRoutes(new KeyService({
    keys: sqliteKeyStore(db), orgs: sqliteOrgStore(db), clock: { now: () => Date.now() }, maxActiveKeys: 5,
    keyChanged: (id) => changed.push(id),
  }));
  const at = (role: Role): Session => ({ ...session(role), orgId });
  const call = createInjector(keys, {
    log: createLogger('error'), allowedOrigins: new Set(['http://gw.example']),
    sessions: (t) => (t === 'member' || t === 'admin' ? at(t) : null),
  });
  const list = await call({ method: 'GET', url: '/me/keys', headers: cookie('member') });
  assert.is(list.status, 200);
  assert.equal(list.json().data.map((k: { name: string }) => k.name), ['first']);
  const refused = await call({ method: 'DELETE', url: `/me/keys/${minted.id}`, headers: cookie('member') });
  assert.is(refused.status, 403);
  assert.equal(changed, []);
  const revoked = await call({ method: 'DELETE', url: `/me/keys/${minted.id}`, headers: cookie('admin') });
  assert.equal(revoked.json(), { id: minted.id, revoked: true });
  assert.equal(changed, [minted.id]);
  const made = await call({ method: 'POST', url: '/me/keys', headers: cookie('member'), body: { name: 'second' } });
  assert.is(made.status, 201);
  assert.match(made.json().key, /^gw-/);
  db.close();
});

test.run();
