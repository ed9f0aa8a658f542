import * as assert from 'uvu/assert';
import { loadCatalog } from '../../../src/catalog/load.js';
import { loadConfig } from '../../../src/config/load.js';
import { manualClock } from '../../../src/lib/clock.js';
import { collectionRoutes } from '../../../src/control/routing/collection-routes.js';
import { CollectionService } from '../../../src/control/routing/collection-service.js';
import { RoutingService } from '../../../src/control/routing/routing-service.js';
import type { CollectionStore } from '../../../src/domain/stores/collection-store.js';
import { sqliteCollectionStore } from '../../../src/store/collections.js';
import { postgresCollectionStore } from '../../../src/store/postgres/pg-collections.js';
import { postgresRoutingChainStore } from '../../../src/store/postgres/pg-routing-chains.js';
import { sqliteRoutingChainStore } from '../../../src/store/routing-chains.js';
import { eachBackend } from '../../support/store-backends.js';
import { as, injector, type TwoOrgs } from '../in-process.js';

// Collections through their routes, in process: the org's cap, fields checked, versions,
// stars, forks and imports, and private collections out of another org's reach; over SQLite and
// over PostgreSQL, where concurrent writes must keep the cap, the versions and the stars as SQLite's
// one-writer-at-a-time does.

const catalog = loadCatalog(loadConfig({ env: {} }), {});
const clock = manualClock(Date.UTC(2026, 0, 5, 6, 30));
const CAP = 3;
const ECHO = { name: 'Fast echo', model: 'sandbox/echo', steps: [{}] };

eachBackend('collections', (test, be) => {
  const chains: [string, string][] = [];
  let orgs: Pick<TwoOrgs, 'org'>;
  let store: CollectionStore;
  let service: CollectionService;
  let call: ReturnType<typeof injector>;
  const make = (org: 'a' | 'b', body: Record<string, unknown>) => call({ method: 'POST', url: '/me/collections', headers: as(org, 'admin'), body });

  test.before(async () => {
    orgs = { org: { a: (await be().org('Org A')).orgId, b: (await be().org('Org B')).orgId } };
    const routing = new RoutingService({
      chains: be().pick(sqliteRoutingChainStore, postgresRoutingChainStore), catalog, clock, chainChanged: (org, model) => chains.push([org, model]),
    });
    store = be().pick(sqliteCollectionStore, postgresCollectionStore);
    service = new CollectionService({ collections: store, routing, catalog, clock, maxPerOrg: CAP });
    call = injector(collectionRoutes(service), orgs);
  });

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

  test('concurrent creates in one org stop at the cap: exactly the cap is kept, the rest are 400 cap', async () => {
    const { orgId } = await be().org('Org C');
    const made = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => service.create(orgId, { ...ECHO, name: `race ${i}`, readmeMd: '', public: false })));
    assert.is(made.filter((r) => r.status === 'fulfilled').length, CAP);
    for (const r of made) if (r.status === 'rejected') assert.is((r.reason as { code: string }).code, 'cap');
    assert.is((await store.listByOrg(orgId)).length, CAP);
  });

  test('concurrent edits of one collection each add the next version, none lost', async () => {
    const { orgId } = await be().org('Org D');
    const c = await service.create(orgId, { ...ECHO, readmeMd: '', public: false });
    await Promise.all(Array.from({ length: 6 }, (_, i) => service.edit(orgId, c.id, { name: `edit ${i}` })));
    assert.is((await store.find(c.id))!.version, 7);
    assert.equal((await store.versions(c.id)).map((v) => v.version), [7, 6, 5, 4, 3, 2, 1]);
  });

  test('two star toggles at once by one org star and unstar: one star at most, none left', async () => {
    const { orgId } = await be().org('Org E');
    const c = await service.create(orgId, { ...ECHO, readmeMd: '', public: false });
    const both = await Promise.all([store.toggleStar(c.id, orgId, clock.now()), store.toggleStar(c.id, orgId, clock.now())]);
    assert.equal(both.map((x) => x.starred).sort(), [false, true]);
    assert.is((await store.find(c.id))!.stars, 0);
    assert.equal(await store.starredBy(orgId), new Set());
  });

  test('slugs are global: a slug another collection has is passed over for the next candidate', async () => {
    const { orgId } = await be().org('Org F');
    const [taken] = await store.listByOrg(orgs.org.a);
    const tried: string[] = [];
    const candidates = [taken!.slug, `fresh-${Date.now().toString(36)}`];
    const c = await store.create({ orgId, fields: { ...ECHO, steps: [{ model: 'sandbox/echo', provider: null }], readmeMd: '', public: false }, forkedFrom: null, slug: () => {
      tried.push(candidates[tried.length]!);
      return tried.at(-1)!;
    } }, clock.now());
    assert.equal(tried, candidates);
    assert.is(c.slug, candidates[1]);
    assert.is((await store.findBySlug(taken!.slug))!.orgId, orgs.org.a);
  });
});
