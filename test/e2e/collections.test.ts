// Collections (spec 4.8) and the public registry (spec 4.2): versioned chains an org keeps,
// publishes, stars, forks and imports as its routing, driven through the real gateway.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { signIn, type Browser } from '../support/session.js';
import { bearer, chatBody } from '../support/wait.js';

let gw: GatewayProcess;
let groq: MockProvider;
let together: MockProvider;
let seq = 0;

const json = async (r: Response) => (await r.json()) as any;
const user = (tag: string) => signIn(gw, `${tag}-${++seq}@collections.example`);
const STEPS = [{ provider: 'together' }, { provider: 'groq' }];
const create = (b: Browser, extra: Record<string, unknown> = {}) =>
  b.send('POST', '/me/collections', { name: 'Llama, Together first', model: 'llama-3.3-70b-instruct', steps: STEPS, ...extra });
async function errorOf(r: Response): Promise<[number, string]> {
  const body = await json(r);
  return [r.status, body.error?.code];
}

test.before(async () => {
  [groq, together] = await Promise.all([startMockProvider(), startMockProvider()]);
  gw = await startGateway({
    limits: { publicRpmPerIp: 100_000 },
    orgs: { maxCollectionsPerOrg: 3 },
    providers: { groq: { baseUrl: groq.url, apiKey: 'g' }, together: { baseUrl: together.url, apiKey: 't' } },
  });
});
test.after(async () => {
  await gw.cleanup();
  await Promise.all([groq.close(), together.close()]);
});

test('a collection is created private at version 1 with a permanent slug; edits add versions; publishing lists it', async () => {
  const a = await user('author');
  const r = await create(a, { readme_md: '# Fast first\n\nTogether, then Groq.' });
  assert.is(r.status, 201);
  const c = await json(r);
  assert.match(c.slug, /^llama-together-first-[0-9a-z]{6}$/);
  assert.equal([c.version, c.public, c.stars, c.starred, c.forked_from, c.monitored], [1, false, 0, false, null, false]);
  assert.equal(c.routes.map((x: any) => x.provider), ['together', 'groq']);
  assert.is((await fetch(`${gw.url}/v1/collections/${c.slug}`)).status, 404, 'private: not in the registry');

  const edited = await json(await a.send('PATCH', `/me/collections/${c.id}`, { name: 'Renamed', public: true }));
  assert.equal([edited.version, edited.name, edited.slug, edited.public], [2, 'Renamed', c.slug, true]);
  const again = await json(await a.send('PATCH', `/me/collections/${c.id}`, { steps: [{ provider: 'groq' }] }));
  assert.is(again.version, 3);

  const registry = await json(await fetch(`${gw.url}/v1/collections`));
  assert.ok(registry.data.some((x: any) => x.slug === c.slug));
  const one = await json(await fetch(`${gw.url}/v1/collections/${c.slug}`));
  assert.equal(one.versions.map((v: any) => [v.version, v.name, v.steps.length]), [[3, 'Renamed', 1], [2, 'Renamed', 2], [1, 'Llama, Together first', 2]]);
  assert.not.ok('id' in one, 'the registry shows no org-side ids');
  assert.equal((await json(await fetch(`${gw.url}/v1/collections?model=gpt-4o`))).data, []);
});

test('stars are one per org and toggle; forks are private copies that name their source', async () => {
  const a = await user('star-author');
  const c = await json(await create(a, { public: true }));
  const fan = await user('fan');
  const starred = await json(await fan.send('POST', `/me/collections/star/${c.slug}`));
  assert.equal([starred.starred, starred.stars], [true, 1]);
  assert.equal((await json(await a.send('POST', `/me/collections/star/${c.slug}`))).stars, 2);
  const unstarred = await json(await fan.send('POST', `/me/collections/star/${c.slug}`));
  assert.equal([unstarred.starred, unstarred.stars], [false, 1]);

  const fork = await fan.send('POST', `/me/collections/fork/${c.slug}`);
  assert.is(fork.status, 201);
  const copy = await json(fork);
  assert.equal([copy.forked_from, copy.public, copy.version, copy.model], [c.slug, false, 1, 'llama-3.3-70b-instruct']);
  assert.is.not(copy.slug, c.slug);
  const mine = await json(await fan.get('/me/collections'));
  assert.equal(mine.data.map((x: any) => x.id), [copy.id]);

  // A private collection of another org cannot be seen, starred or forked.
  const secret = await json(await create(a));
  for (const path of [`/me/collections/star/${secret.slug}`, `/me/collections/fork/${secret.slug}`, `/me/collections/import/${secret.slug}`]) {
    assert.equal(await errorOf(await fan.send('POST', path)), [404, 'not_found'], path);
  }
  assert.equal(await errorOf(await fan.send('PATCH', `/me/collections/${c.id}`, { name: 'mine now' })), [404, 'not_found']);
  assert.equal(await errorOf(await fan.send('DELETE', `/me/collections/${c.id}`)), [404, 'not_found']);
});

test('GET /me/collections/:slug shows the org its own collection (private too) and public ones, each with the star and the version history', async () => {
  const a = await user('viewer-author');
  const c = await json(await create(a, { readme_md: '# v1' }));
  await a.send('PATCH', `/me/collections/${c.id}`, { readme_md: '# v2' });
  const own = await json(await a.get(`/me/collections/${c.slug}`));
  assert.equal([own.id, own.public, own.starred, own.monitored, own.version, own.readme_md], [c.id, false, false, false, 2, '# v2']);
  assert.equal(own.versions.map((v: any) => [v.version, v.readme_md]), [[2, '# v2'], [1, '# v1']], 'a private collection\'s history, newest first');
  assert.equal(own.routes.map((x: any) => x.provider), ['together', 'groq']);

  const other = await user('viewer');
  assert.equal(await errorOf(await other.get(`/me/collections/${c.slug}`)), [404, 'not_found'], 'another org\'s private collection');
  assert.equal(await errorOf(await other.get('/me/collections/no-such-slug')), [404, 'not_found']);
  assert.is((await fetch(`${gw.url}/me/collections/${c.slug}`)).status, 401, 'no session');
  await a.send('PATCH', `/me/collections/${c.id}`, { public: true });
  const seen = await json(await other.get(`/me/collections/${c.slug}`));
  assert.equal([seen.id, seen.public, seen.starred, seen.monitored, seen.version, seen.versions.length], [null, true, false, null, 3, 3],
    'another org\'s public collection: no org-side id, no monitoring state');
  await other.send('POST', `/me/collections/star/${c.slug}`);
  const starred = await json(await other.get(`/me/collections/${c.slug}`));
  assert.equal([starred.starred, starred.stars], [true, 1]);
  assert.is((await json(await a.get(`/me/collections/${c.slug}`))).starred, false, 'a star is the starring org\'s own');
});

test('importing applies the steps as the org\'s routing chain at once, forking a foreign collection first', async () => {
  const a = await user('import-author');
  const c = await json(await create(a, { public: true }));
  const b = await user('importer');
  await gw.cli('org', 'credit', (await json(await b.get('/me'))).org.id, '100');
  const key = (await json(await b.send('POST', '/me/keys', { name: 'k' }))).key;
  const chat = async () => {
    const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody({ model: 'llama-3.3-70b-instruct' }) });
    await r.arrayBuffer();
    return r.headers.get('x-gw-provider');
  };
  assert.is(await chat(), 'groq', 'catalog order before');
  const imported = await json(await b.send('POST', `/me/collections/import/${c.slug}`));
  assert.is(imported.collection.forked_from, c.slug, 'a foreign collection is forked into the org');
  assert.equal(imported.chain.routes.map((x: any) => x.provider), ['together', 'groq']);
  assert.is(await chat(), 'together');
  assert.equal((await json(await b.get('/me/routing/llama-3.3-70b-instruct'))).steps.map((s: any) => s.provider), ['together', 'groq']);
  // Importing its own collection applies it without another copy.
  const again = await json(await b.send('POST', `/me/collections/import/${imported.collection.slug}`));
  assert.is(again.collection.id, imported.collection.id);
  assert.is((await json(await b.get('/me/collections'))).data.length, 1);
});

test('fields are checked with the spec\'s codes, the per-org cap holds, and deletes take versions and stars along', async () => {
  const a = await user('checker');
  const cases: [Record<string, unknown>, number, string][] = [
    [{ name: '' }, 400, 'bad_name'],
    [{ name: 'x'.repeat(65) }, 400, 'bad_name'],
    [{ name: 'a <b>' }, 400, 'bad_name'],
    [{ model: 'gpt-9' }, 400, 'bad_model'],
    [{ model: 7 }, 400, 'bad_model'],
    [{ steps: [] }, 400, 'bad_steps'],
    [{ steps: [{ provider: 'openai' }] }, 400, 'bad_steps'],
    [{ steps: [{ model: 'bge-m3' }] }, 400, 'bad_steps'],
    [{ readme_md: 'x'.repeat(20_001) }, 400, 'bad_readme'],
    [{ readme_md: 'bell\u0007' }, 400, 'bad_readme'],
    [{ public: 'yes' }, 400, 'bad_request'],
    [{ unknown: 1 }, 400, 'bad_request'],
  ];
  for (const [extra, status, code] of cases) assert.equal(await errorOf(await create(a, extra)), [status, code], JSON.stringify(extra).slice(0, 60));
  const made = [];
  for (let i = 0; i < 3; i++) made.push(await json(await create(a, { name: `c${i}` })));
  assert.equal(await errorOf(await create(a, { name: 'one too many' })), [400, 'cap']);
  const c = made[0];
  assert.equal(await errorOf(await a.send('PATCH', `/me/collections/${c.id}`, {})), [400, 'bad_request']);
  assert.equal(await errorOf(await a.send('PATCH', `/me/collections/${c.id}`, { model: 'bge-m3' })), [400, 'bad_steps'],
    'a new model is checked against the steps it keeps');
  await a.send('PATCH', `/me/collections/${c.id}`, { public: true });
  const gone = await json(await a.send('DELETE', `/me/collections/${c.id}`));
  assert.equal(gone, { id: c.id, deleted: true });
  assert.is((await fetch(`${gw.url}/v1/collections/${c.slug}`)).status, 404);
  assert.is((await create(a, { name: 'room again' })).status, 201, 'a delete frees a place under the cap');
});

test('members may read, star and fork; only owners and admins create, edit, delete and import', async () => {
  const lead = await user('lead');
  const team = await json(await lead.send('POST', '/me/orgs', { name: 'collections team' }));
  await lead.send('POST', '/me/orgs/switch', { org_id: team.id });
  const memberEmail = `member-${++seq}@collections.example`;
  const inv = await json(await lead.send('POST', '/me/members', { email: memberEmail, role: 'member' }));
  const member = await signIn(gw, memberEmail);
  await member.send('POST', `/me/invitations/${inv.id}/accept`);
  await member.send('POST', '/me/orgs/switch', { org_id: team.id });
  const c = await json(await create(lead, { public: true }));
  assert.is((await json(await member.get('/me/collections'))).data.length, 1);
  assert.is((await member.send('POST', `/me/collections/star/${c.slug}`)).status, 200);
  assert.equal(await errorOf(await create(member)), [403, 'forbidden']);
  assert.equal(await errorOf(await member.send('PATCH', `/me/collections/${c.id}`, { name: 'x' })), [403, 'forbidden']);
  assert.equal(await errorOf(await member.send('DELETE', `/me/collections/${c.id}`)), [403, 'forbidden']);
  assert.equal(await errorOf(await member.send('POST', `/me/collections/import/${c.slug}`)), [403, 'forbidden']);
});

test.run();
