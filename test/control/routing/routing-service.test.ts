import * as assert from 'uvu/assert';
import { loadCatalog } from '../../../src/catalog/load.js';
import { loadConfig } from '../../../src/config/load.js';
import type { ChainStep } from '../../../src/domain/chain.js';
import { manualClock } from '../../../src/lib/clock.js';
import { routingRoutes } from '../../../src/control/routing/routing-routes.js';
import { RoutingService } from '../../../src/control/routing/routing-service.js';
import { postgresRoutingChainStore } from '../../../src/store/postgres/pg-routing-chains.js';
import { sqliteRoutingChainStore } from '../../../src/store/routing-chains.js';
import { eachBackend } from '../../support/store-backends.js';
import { as, injector, type TwoOrgs } from '../in-process.js';

// Saved routing chains through their routes, in process: roles, the catalog's rules, one org's
// chains out of another's reach, and the data plane told of every change; over SQLite and over PostgreSQL.

const catalog = loadCatalog(loadConfig({ env: {} }), {});
const clock = manualClock(Date.UTC(2026, 0, 5, 6, 30));
const STEPS = [{}, { model: 'gpt-4o-mini', provider: 'openai' }];

eachBackend('routing chains', (test, be) => {
  const changed: [string, string, readonly ChainStep[] | null][] = [];
  let orgs: Pick<TwoOrgs, 'org'>;
  const service = (published = changed) => new RoutingService({
    chains: be().pick(sqliteRoutingChainStore, postgresRoutingChainStore), catalog, clock,
    chainChanged: (org, model, steps) => published.push([org, model, steps]),
  });
  let call: ReturnType<typeof injector>;

  test.before(async () => {
    orgs = { org: { a: (await be().org('Org A')).orgId, b: (await be().org('Org B')).orgId } };
    call = injector(routingRoutes(service()), orgs);
  });

  test.before.each(() => {
    changed.length = 0;
  });

  test('a member reads chains but cannot save one (403); nothing reaches the data plane', async () => {
    assert.equal((await call({ method: 'GET', url: '/me/routing', headers: as('a', 'member') })).json(), { data: [] });
    const r = await call({ method: 'PUT', url: '/me/routing/sandbox/echo', headers: as('a', 'member'), body: { steps: STEPS } });
    assert.is(r.status, 403);
    assert.equal(changed, []);
  });

  test('an admin saves a chain for a slashed model id: steps as saved, routes expanded, the data plane told', async () => {
    const r = await call({ method: 'PUT', url: '/me/routing/sandbox/echo', headers: as('a', 'admin'), body: { steps: STEPS } });
    assert.is(r.status, 200);
    const steps = [{ model: 'sandbox/echo', provider: null }, { model: 'gpt-4o-mini', provider: 'openai' }];
    assert.equal(r.json().steps, steps);
    assert.equal(r.json().routes.map((x: { provider: string; configured: boolean }) => [x.provider, x.configured]), [['sandbox', true], ['openai', false]]);
    assert.is(r.json().updated_at, new Date(clock.now()).toISOString());
    assert.equal(changed, [[orgs.org.a, 'sandbox/echo', steps]]);
    const one = await call({ method: 'GET', url: '/me/routing/sandbox/echo', headers: as('a', 'member') });
    assert.equal(one.json(), r.json());
  });

  test('the catalog decides: an unknown model is 400 bad_model, a step of another kind or an unserved provider 400 bad_steps', async () => {
    const unknown = await call({ method: 'PUT', url: '/me/routing/no-such-model', headers: as('a', 'admin'), body: { steps: STEPS } });
    assert.equal([unknown.status, unknown.json().error.code], [400, 'bad_model']);
    const kind = await call({ method: 'PUT', url: '/me/routing/sandbox/echo', headers: as('a', 'admin'), body: { steps: [{ model: 'sandbox/embed' }] } });
    assert.equal([kind.status, kind.json().error.code], [400, 'bad_steps']);
    assert.match(kind.json().error.message, /steps\.0/);
    const unserved = await call({ method: 'PUT', url: '/me/routing/sandbox/echo', headers: as('a', 'admin'), body: { steps: [{ provider: 'groq' }] } });
    assert.equal([unserved.status, unserved.json().error.code], [400, 'bad_steps']);
    const repeated = await call({ method: 'PUT', url: '/me/routing/sandbox/echo', headers: as('a', 'admin'), body: { steps: [{}, {}] } });
    assert.match(repeated.json().error.message, /repeats step 0/);
    assert.equal(changed, []);
  });

  test('another org sees none of it: its list is empty, the chain 404, and its delete 404 leaves org a\'s chain', async () => {
    assert.equal((await call({ method: 'GET', url: '/me/routing', headers: as('b', 'owner') })).json(), { data: [] });
    assert.is((await call({ method: 'GET', url: '/me/routing/sandbox/echo', headers: as('b', 'owner') })).status, 404);
    assert.is((await call({ method: 'DELETE', url: '/me/routing/sandbox/echo', headers: as('b', 'owner') })).status, 404);
    assert.is((await call({ method: 'GET', url: '/me/routing', headers: as('a', 'member') })).json().data.length, 1);
    assert.equal(changed, []);
  });

  test('a removed chain is gone for the data plane (null) and a second remove is 404', async () => {
    const r = await call({ method: 'DELETE', url: '/me/routing/sandbox/echo', headers: as('a', 'admin') });
    assert.equal(r.json(), { model: 'sandbox/echo', deleted: true });
    assert.equal(changed, [[orgs.org.a, 'sandbox/echo', null]]);
    assert.is((await call({ method: 'DELETE', url: '/me/routing/sandbox/echo', headers: as('a', 'admin') })).status, 404);
  });

  test('at start every org\'s saved chains are published to the data plane', async () => {
    await service().save(orgs.org.a, 'usr_1', 'sandbox/echo', [{}]);
    await service().save(orgs.org.b, 'usr_2', 'sandbox/embed', [{}]);
    const published: typeof changed = [];
    await service(published).publishAll();
    assert.equal(published.map(([org, model]) => [org, model]).sort(), [[orgs.org.a, 'sandbox/echo'], [orgs.org.b, 'sandbox/embed']].sort());
  });
});
