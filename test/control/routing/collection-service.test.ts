import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadCatalog } from '../../../src/catalog/load.js';
import { loadConfig } from '../../../src/config/load.js';
import { manualClock } from '../../../src/lib/clock.js';
import { collectionRoutes } from '../../../src/control/routing/collection-routes.js';
import { CollectionService } from '../../../src/control/routing/collection-service.js';
import { RoutingService } from '../../../src/control/routing/routing-service.js';
import { sqliteCollectionStore } from '../../../src/store/collections.js';
import { sqliteRoutingChainStore } from '../../../src/store/routing-chains.js';
import { as, injector, twoOrgs } from '../in-process.js';

// Collections through their routes, in process: the org's cap, fields checked, versions,
// stars, forks and imports, and private collections out of another org's reach.

const catalog = loadCatalog(loadConfig({ env: {} }), {});
const orgs = twoOrgs();
const clock = manualClock(Date.UTC(2026, 0, 5, 6, 30));
const chains: [string, string][] = [];
const routing = new RoutingService({
  chains: sqliteRoutingChainStore(orgs.db), catalog, clock, chainChanged: (org, model) => chains.push([org, model]),
});
const CAP = 3;
const call = injector(collectionRoutes(new CollectionService({
  collections: sqliteCollectionStore(orgs.db), routing, catalog, clock, maxPerOrg: CAP,
})), orgs);
const make = (org: 'a' | 'b', body: Record<string, unknown>) => call({ method: 'POST', url: '/me/collections', headers: as(org, 'admin'), body });
const ECHO = { name: 'Fast echo', model: 'sandbox/echo', steps: [{}] };

test('an admin creates a collection at version 1 under a slug made from its name; a member may not (403)', async () => {
  assert.is((await call({ method: 'POST', url: '/me/collections', headers: as('a', 'member'), body: ECHO })).status, 403);
  const r = await make('a', { ...ECHO, readme_md: '# Echo\n\tindented' });
  assert.is(r.status, 201);
  const c = r.json();
  assert.match(c.slug, /^fast-echo-[0-9a-z]{6}$/);
  assert.equal([c.version, c.public, c.starred, c.stars, c.forked_from, c.monitored], [1, false, false, 0, null, false]);
  assert.equal(c.steps, [{ model: 'sandbox/echo', provider: null }]);
  assert.is(c.routes[0].provider, 'sandbox');
});

test('every field is checked: bad_name, bad_model, bad_steps, bad_readme', async () => {
  const code = async (body: Record<string, unknown>) => (await make('a', { ...ECHO, ...body })).json().error.code;
  assert.is(await code({ name: '  ' }), 'bad_name');
  assert.is(await code({ name: 'a<b' }), 'bad_name');
  assert.is(await code({ model: 42 }), 'bad_model');
  assert.is(await code({ steps: [] }), 'bad_steps');
  assert.is(await code({ readme_md: 'bell \u0007' }), 'bad_readme');
  assert.is(await code({ readme_md: 'x'.repeat(20_001) }), 'bad_readme');
});

test('a private collection is out of another org\'s reach: 404 by slug, and by id for edit and delete', async () => {
  const [c] = (await call({ method: 'GET', url: '/me/collections', headers: as('a', 'member') })).json().data;
  assert.is((await call({ method: 'GET', url: `/v1/collections/${c.slug}` })).status, 404);
  assert.is((await call({ method: 'GET', url: `/me/collections/${c.slug}`, headers: as('b', 'member') })).status, 404);
  assert.is((await call({ method: 'PATCH', url: `/me/collections/${c.id}`, headers: as('b', 'owner'), body: { name: 'mine' } })).status, 404);
  assert.is((await call({ method: 'DELETE', url: `/me/collections/${c.id}`, headers: as('b', 'owner') })).status, 404);
  assert.is((await call({ method: 'POST', url: `/me/collections/fork/${c.slug}`, headers: as('b', 'owner') })).status, 404);
  const own = (await call({ method: 'GET', url: `/me/collections/${c.slug}`, headers: as('a', 'member') })).json();
  assert.equal([own.id, own.name, own.versions.length], [c.id, 'Fast echo', 1]);
});

test('an edit bumps the version and keeps the history newest first; an empty edit is 400', async () => {
  const [c] = (await call({ method: 'GET', url: '/me/collections', headers: as('a', 'member') })).json().data;
  assert.is((await call({ method: 'PATCH', url: `/me/collections/${c.id}`, headers: as('a', 'admin'), body: {} })).status, 400);
  clock.advance(60_000);
  const r = await call({ method: 'PATCH', url: `/me/collections/${c.id}`, headers: as('a', 'admin'), body: { name: 'Echo, shared', public: true } });
  assert.equal([r.json().version, r.json().name, r.json().public, r.json().slug], [2, 'Echo, shared', true, c.slug]);
  const seen = (await call({ method: 'GET', url: `/v1/collections/${c.slug}` })).json();
  assert.equal(seen.versions.map((v: { version: number; name: string }) => [v.version, v.name]), [[2, 'Echo, shared'], [1, 'Fast echo']]);
  assert.is(seen.updated_at, new Date(clock.now()).toISOString());
});

test('one star per org: a second star takes it back; the public list is most starred first and its limit checked', async () => {
  const [c] = (await call({ method: 'GET', url: '/v1/collections' })).json().data;
  const star = () => call({ method: 'POST', url: `/me/collections/star/${c.slug}`, headers: as('b', 'member') });
  assert.equal((await star()).json(), { slug: c.slug, starred: true, stars: 1 });
  assert.is((await call({ method: 'GET', url: `/me/collections/${c.slug}`, headers: as('b', 'member') })).json().starred, true);
  assert.equal((await star()).json(), { slug: c.slug, starred: false, stars: 0 });
  const limit = await call({ method: 'GET', url: '/v1/collections?limit=0' });
  assert.equal([limit.status, limit.json().error.code], [400, 'bad_request']);
  assert.is((await call({ method: 'GET', url: '/v1/collections?model=sandbox/embed' })).json().data.length, 0);
});

test('importing another org\'s collection forks it (private, version 1, naming its source) and saves the chain', async () => {
  const [c] = (await call({ method: 'GET', url: '/v1/collections' })).json().data;
  chains.length = 0;
  const member = await call({ method: 'POST', url: `/me/collections/import/${c.slug}`, headers: as('b', 'member') });
  assert.is(member.status, 403);
  const r = await call({ method: 'POST', url: `/me/collections/import/${c.slug}`, headers: as('b', 'admin') });
  assert.is(r.status, 200);
  const { collection, chain } = r.json();
  assert.equal([collection.forked_from, collection.version, collection.public, collection.name], [c.slug, 1, false, 'Echo, shared']);
  assert.not.equal(collection.slug, c.slug);
  assert.equal(chain.steps, [{ model: 'sandbox/echo', provider: null }]);
  assert.equal(chains, [[orgs.org.b, 'sandbox/echo']]);
  // The fork is org b's own: listed there, editable and deletable there.
  const mine = (await call({ method: 'GET', url: '/me/collections', headers: as('b', 'member') })).json().data;
  assert.equal(mine.map((x: { id: string }) => x.id), [collection.id]);
});

test(`an org keeps at most ${CAP} collections: creating and forking past the cap is 400 cap; deleting makes room`, async () => {
  await make('b', { ...ECHO, name: 'two' });
  await make('b', { ...ECHO, name: 'three' });
  const over = await make('b', { ...ECHO, name: 'four' });
  assert.equal([over.status, over.json().error.code], [400, 'cap']);
  const [c] = (await call({ method: 'GET', url: '/v1/collections' })).json().data;
  const fork = await call({ method: 'POST', url: `/me/collections/fork/${c.slug}`, headers: as('b', 'member') });
  assert.equal([fork.status, fork.json().error.code], [400, 'cap']);
  const [first] = (await call({ method: 'GET', url: '/me/collections', headers: as('b', 'member') })).json().data;
  assert.equal((await call({ method: 'DELETE', url: `/me/collections/${first.id}`, headers: as('b', 'admin') })).json(), { id: first.id, deleted: true });
  assert.is((await call({ method: 'POST', url: `/me/collections/fork/${c.slug}`, headers: as('b', 'member') })).status, 201);
});

test.after(() => {
  orgs.db.close();
});
test.run();
