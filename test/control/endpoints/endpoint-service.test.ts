import { randomBytes } from 'node:crypto';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../../src/config/load.js';
import type { OrgEndpoint } from '../../../src/domain/org-endpoint.js';
import { manualClock } from '../../../src/lib/clock.js';
import { createLogger } from '../../../src/lib/logger.js';
import { endpointRoutes } from '../../../src/control/endpoints/endpoint-routes.js';
import { EndpointService } from '../../../src/control/endpoints/endpoint-service.js';
import { ProxyDispatchers } from '../../../src/control/proxy-dispatchers.js';
import type { CustomEndpointStore } from '../../../src/domain/stores/custom-endpoint-store.js';
import { sqliteCustomEndpointStore } from '../../../src/store/custom-endpoints.js';
import { postgresCustomEndpointStore } from '../../../src/store/postgres/pg-custom-endpoints.js';
import { startMockProvider, type MockProvider } from '../../support/mock-provider.js';
import { eachBackend } from '../../support/store-backends.js';
import { as, injector, type TwoOrgs } from '../in-process.js';

// Registered endpoints through their routes, in process, tested against a real OpenAI-compatible
// server on 127.0.0.1: roles, names, the address guard, the org's cap, another org's reach, and
// the data plane told of every change; over SQLite and over PostgreSQL, where concurrent
// registrations must keep names unique and the cap as SQLite's one writer at a time does.

const clock = manualClock(Date.UTC(2026, 0, 5, 6, 30));
const masterKey = randomBytes(32);

eachBackend('registered endpoints', (test, be) => {
  let orgs: Pick<TwoOrgs, 'org'>;
  let store: CustomEndpointStore;
  const published: [string, string, OrgEndpoint | null][] = [];
  const warnings: string[] = [];
  const service = (o: { allowInternal?: boolean; master?: Buffer } = {}) => {
    const config = loadConfig({ env: {}, overrides: { customEndpoints: { allowInternalAddresses: o.allowInternal ?? true, maxPerOrg: 2, testTimeoutMs: 5_000 } } });
    return new EndpointService({
      endpoints: store, clock, masterKey: o.master ?? masterKey, outbound: new ProxyDispatchers(config.upstream),
      settings: config.customEndpoints, endpointChanged: (org, name, e) => published.push([org, name, e]),
      log: createLogger('warn', (line) => warnings.push(line)),
    });
  };
  let call: ReturnType<typeof injector>;
  let guarded: ReturnType<typeof injector>;
  let lab: MockProvider;
  const register = (body: Record<string, unknown>, who = as('a', 'admin')) => call({ method: 'POST', url: '/me/endpoints', headers: who, body });

  test.before(async () => {
    orgs = { org: { a: (await be().org('Org A')).orgId, b: (await be().org('Org B')).orgId } };
    store = be().pick(sqliteCustomEndpointStore, postgresCustomEndpointStore);
    call = injector(endpointRoutes(service()), orgs);
    guarded = injector(endpointRoutes(service({ allowInternal: false })), orgs);
    lab = await startMockProvider();
  });
  test.after(async () => {
    await lab.close();
  });
  test.before.each(() => {
    lab.reset();
    published.length = 0;
  });

  test('an admin registers a compliant endpoint: key sealed and masked, the data plane given it; a member may not (403)', async () => {
    assert.is((await register({ name: 'lab', base_url: lab.url }, as('a', 'member'))).status, 403);
    const r = await register({ name: 'lab', base_url: `${lab.url}/`, api_key: 'lab-secret-key-9876' });
    assert.is(r.status, 201);
    const ep = r.json();
    assert.equal([ep.name, ep.base_url, ep.key, ep.compliance.status], ['lab', lab.url, 'lab…9876', 'compliant']);
    assert.is(lab.requests.length, 3);
    assert.equal(published, [[orgs.org.a, 'lab', { name: 'lab', baseUrl: lab.url, key: 'lab-secret-key-9876', compliant: true, publicOnly: false }]]);
    const stored = await store.find(ep.id);
    assert.ok(stored?.keySealed && !stored.keySealed.includes('lab-secret'));
    assert.equal((await call({ method: 'GET', url: '/me/endpoints', headers: as('a', 'member') })).json().data.map((e: { key: string }) => e.key), ['lab…9876']);
  });

  test('a bad name, URL or key, or a name taken, is 400 before the endpoint is called', async () => {
    const refused = async (body: Record<string, unknown>) => {
      const r = await register({ name: 'ok', base_url: lab.url, ...body });
      return [r.status, r.json().error.message];
    };
    assert.match((await refused({ name: 'Not-Lower' }))[1], /Invalid 'name'/);
    assert.match((await refused({ base_url: 'not a url' }))[1], /Invalid 'base_url'/);
    assert.match((await refused({ api_key: 'has a space' }))[1], /Invalid 'api_key'/);
    assert.equal(await refused({ name: 'lab' }), [400, 'An endpoint named \'lab\' already exists in this organisation']);
    assert.is(lab.requests.length, 0);
    assert.equal(published, []);
  });

  test('loopback is refused unless the operator allows internal addresses, for registering and for a test alike', async () => {
    const r = await guarded({ method: 'POST', url: '/me/endpoints', headers: as('a', 'admin'), body: { name: 'inside', base_url: lab.url } });
    assert.equal([r.status, r.json().error.code], [400, 'bad_request']);
    assert.match(r.json().error.message, /Invalid 'base_url'/);
    const t = await guarded({ method: 'POST', url: '/me/endpoints/test', headers: as('a', 'member'), body: { base_url: lab.url } });
    assert.is(t.status, 400);
    assert.is(lab.requests.length, 0);
  });

  test('a test saves nothing; at the org\'s cap a new endpoint is 400 cap without a test', async () => {
    const t = await call({ method: 'POST', url: '/me/endpoints/test', headers: as('a', 'member'), body: { base_url: lab.url } });
    assert.equal([t.json().status, t.json().models], ['compliant', ['mock-model']]);
    assert.is((await register({ name: 'second', base_url: lab.url })).status, 201);
    lab.reset();
    const over = await register({ name: 'third', base_url: lab.url });
    assert.equal([over.status, over.json().error.code], [400, 'cap']);
    assert.is(lab.requests.length, 0);
    // Another org has its own cap.
    assert.is((await register({ name: 'third', base_url: lab.url }, as('b', 'admin'))).status, 201);
  });

  test('a failing retest marks it non-compliant for the data plane; another org cannot retest or remove it (404)', async () => {
    // Registered in the same millisecond as 'second': found by name, not by list order.
    const lab1 = (await call({ method: 'GET', url: '/me/endpoints', headers: as('a', 'member') })).json().data.find((e: { name: string }) => e.name === 'lab');
    assert.is((await call({ method: 'POST', url: `/me/endpoints/${lab1.id}/retest`, headers: as('b', 'owner') })).status, 404);
    assert.is((await call({ method: 'DELETE', url: `/me/endpoints/${lab1.id}`, headers: as('b', 'owner') })).status, 404);
    lab.setDefault({ kind: 'status', status: 500 });
    clock.advance(60_000);
    const r = await call({ method: 'POST', url: `/me/endpoints/${lab1.id}/retest`, headers: as('a', 'admin') });
    lab.setDefault({ kind: 'ok' });
    assert.equal([r.json().compliance.status, r.json().tested_at], ['non_compliant', new Date(clock.now()).toISOString()]);
    assert.equal(published.map(([org, name, e]) => [org, name, e?.compliant, e?.key]), [[orgs.org.a, 'lab', false, 'lab-secret-key-9876']]);
  });

  test('a removed endpoint leaves the data plane at once (null)', async () => {
    // Registered in the same millisecond as 'second': found by name, not by list order.
    const lab1 = (await call({ method: 'GET', url: '/me/endpoints', headers: as('a', 'member') })).json().data.find((e: { name: string }) => e.name === 'lab');
    assert.equal((await call({ method: 'DELETE', url: `/me/endpoints/${lab1.id}`, headers: as('a', 'admin') })).json(), { id: lab1.id, deleted: true });
    assert.equal(published, [[orgs.org.a, 'lab', null]]);
    assert.is((await call({ method: 'DELETE', url: `/me/endpoints/${lab1.id}`, headers: as('a', 'admin') })).status, 404);
  });

  test('at start every endpoint is published; one whose key does not open with this master key is skipped with a warning', async () => {
    await register({ name: 'keyed', base_url: lab.url, api_key: 'another-key-1234' }, as('b', 'admin'));
    published.length = 0;
    await service().publishAll();
    assert.equal(published.map(([org, name, e]) => [org === orgs.org.a ? 'a' : 'b', name, e?.key ?? null]).sort(),
      [['a', 'second', null], ['b', 'keyed', 'another-key-1234'], ['b', 'third', null]]);
    published.length = 0;
    warnings.length = 0;
    await service({ master: randomBytes(32) }).publishAll();
    assert.equal(published.map(([, name]) => name).sort(), ['second', 'third']);
    assert.is(warnings.length, 1);
    assert.match(warnings[0], /does not open/);
  });

  test('concurrent registrations of one name keep one; past the cap they keep the cap; the rest are refused as one at a time would be', async () => {
    const { orgId: c } = await be().org('Org C');
    const svc = service();
    const same = await Promise.allSettled(Array.from({ length: 4 }, () => svc.register(c, 'race', { baseUrl: lab.url, apiKey: null })));
    assert.is(same.filter((r) => r.status === 'fulfilled').length, 1);
    for (const r of same) if (r.status === 'rejected') assert.match((r.reason as Error).message, /An endpoint named 'race' already exists/);
    const { orgId: d } = await be().org('Org D');
    const many = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => svc.register(d, `ep-${i}`, { baseUrl: lab.url, apiKey: null })));
    assert.is(many.filter((r) => r.status === 'fulfilled').length, 2);
    for (const r of many) if (r.status === 'rejected') assert.is((r.reason as { code: string }).code, 'cap');
    assert.equal([(await store.list(c)).length, (await store.list(d)).length], [1, 2]);
  });
});
