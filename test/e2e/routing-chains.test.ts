// Saved routing chains (spec 4.7): an org's own order of routes per model, fallbacks to other
// models included, applied by the data plane at once and after a restart.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { query, waitForValue } from '../support/ledger.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { signIn, type Browser } from '../support/session.js';
import { bearer, chatBody } from '../support/wait.js';

let gw: GatewayProcess;
let groq: MockProvider;
let together: MockProvider;
let deepinfra: MockProvider;
let owner: Browser;
let key: string;
let seq = 0;

const json = async (r: Response) => (await r.json()) as any;
const chat = (k: string, extra: Record<string, unknown> = {}) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(k), body: chatBody({ model: 'llama-3.3-70b-instruct', ...extra }) });
const served = async (r: Response) => {
  assert.is(r.status, 200, JSON.stringify(await r.clone().json()));
  await r.arrayBuffer();
  return r.headers.get('x-gw-provider');
};
const put = (b: Browser, model: string, steps: unknown) => b.send('PUT', `/me/routing/${model}`, { steps });

async function userWithKey(tag: string): Promise<{ b: Browser; key: string }> {
  const b = await signIn(gw, `${tag}-${++seq}@chains.example`);
  await gw.cli('org', 'credit', (await json(await b.get('/me'))).org.id, '100');
  const k = await json(await b.send('POST', '/me/keys', { name: `k${seq}` }));
  return { b, key: k.key };
}

test.before(async () => {
  [groq, together, deepinfra] = await Promise.all([startMockProvider(), startMockProvider(), startMockProvider()]);
  gw = await startGateway({
    breaker: { volumeThreshold: 100_000 },
    providers: {
      groq: { baseUrl: groq.url, apiKey: 'g' }, together: { baseUrl: together.url, apiKey: 't' }, deepinfra: { baseUrl: deepinfra.url, apiKey: 'd' },
    },
  });
  ({ b: owner, key } = await userWithKey('owner'));
});
test.after(async () => {
  await gw.cleanup();
  await Promise.all([groq.close(), together.close(), deepinfra.close()]);
});
test.before.each(() => {
  groq.reset();
  together.reset();
  deepinfra.reset();
});

test('a saved chain reorders a model\'s routes at once; failover follows the chain; removing it restores the catalog order', async () => {
  assert.is(await served(await chat(key)), 'groq', 'the catalog order first');
  const saved = await json(await put(owner, 'llama-3.3-70b-instruct', [{ provider: 'together' }, { provider: 'groq' }]));
  assert.equal(saved.steps, [{ model: 'llama-3.3-70b-instruct', provider: 'together' }, { model: 'llama-3.3-70b-instruct', provider: 'groq' }]);
  assert.equal(saved.routes.map((r: any) => [r.provider, r.upstream_model, r.configured]),
    [['together', 'meta-llama/Llama-3.3-70B-Instruct-Turbo', true], ['groq', 'llama-3.3-70b-versatile', true]]);
  assert.is(await served(await chat(key)), 'together');
  together.enqueue({ kind: 'status', status: 503 });
  assert.is(await served(await chat(key)), 'groq');

  const list = await json(await owner.get('/me/routing'));
  assert.equal(list.data.map((c: any) => c.model), ['llama-3.3-70b-instruct']);
  assert.is((await json(await owner.get('/me/routing/llama-3.3-70b-instruct'))).routes.length, 2);
  const gone = await owner.send('DELETE', '/me/routing/llama-3.3-70b-instruct');
  assert.equal(await json(gone), { model: 'llama-3.3-70b-instruct', deleted: true });
  assert.is(await served(await chat(key)), 'groq');
  assert.is((await owner.get('/me/routing/llama-3.3-70b-instruct')).status, 404);
});

test('a step may fall back to another model, billed at the route that served; the ledger keeps the model asked for', async () => {
  await put(owner, 'llama-3.3-70b-instruct', [{ provider: 'groq' }, { model: 'llama-3.1-8b-instruct', provider: 'deepinfra' }]);
  groq.enqueue({ kind: 'status', status: 500 });
  const r = await chat(key);
  assert.is(await served(r), 'deepinfra');
  assert.is(deepinfra.requests[0].body.model, 'meta-llama/Meta-Llama-3.1-8B-Instruct');
  const row = await waitForValue(() => query(gw.dbPath, (db) =>
    db.prepare('SELECT * FROM usage WHERE request_id = ? AND billable = 1').get(r.headers.get('x-gw-request-id'))) as any, 5_000, 'the row');
  assert.equal([row.model, row.route, row.attempt], ['llama-3.3-70b-instruct', 'deepinfra:meta-llama/Meta-Llama-3.1-8B-Instruct', 1]);
  // DeepInfra's route of llama-3.1-8b-instruct: ₹2.6 in / ₹4.4 out per 1M tokens; the mock reports 11 and 7.
  assert.is(row.cost_micros, Math.round(11 * 2.6 + 7 * 4.4));
  await owner.send('DELETE', '/me/routing/llama-3.3-70b-instruct');
});

test('request extensions still apply to a chain: a pin filters it, optimize reorders it, a pin outside it is no_route', async () => {
  await put(owner, 'llama-3.3-70b-instruct', [{ provider: 'together' }, { provider: 'groq' }]);
  assert.is(await served(await chat(key, { provider: 'groq' })), 'groq');
  // Catalog prices: groq ₹52 + ₹69.5, together ₹77.4 + ₹77.4 per 1M.
  assert.is(await served(await chat(key, { optimize: 'price' })), 'groq');
  const outside = await json(await chat(key, { provider: 'deepinfra' }));
  assert.is(outside.error.code, 'no_route');
  await owner.send('DELETE', '/me/routing/llama-3.3-70b-instruct');
});

test('a chain is the org\'s own: another org\'s requests keep the catalog order, and members read it but cannot change it', async () => {
  const lead = await signIn(gw, `lead-${++seq}@chains.example`);
  const team = await json(await lead.send('POST', '/me/orgs', { name: 'chain team' }));
  await lead.send('POST', '/me/orgs/switch', { org_id: team.id });
  const memberEmail = `member-${++seq}@chains.example`;
  const inv = await json(await lead.send('POST', '/me/members', { email: memberEmail, role: 'member' }));
  const member = await signIn(gw, memberEmail);
  assert.is((await member.send('POST', `/me/invitations/${inv.id}/accept`)).status, 200);
  assert.is((await member.send('POST', '/me/orgs/switch', { org_id: team.id })).status, 200);

  assert.is((await put(lead, 'llama-3.3-70b-instruct', [{ provider: 'together' }])).status, 200);
  assert.is(await served(await chat(key)), 'groq', 'the first org has no chain');
  assert.equal((await json(await owner.get('/me/routing'))).data, []);
  assert.is((await json(await member.get('/me/routing'))).data.length, 1, 'members may read');
  const refused = await put(member, 'llama-3.3-70b-instruct', [{ provider: 'groq' }]);
  assert.equal([refused.status, (await json(refused)).error.code], [403, 'forbidden']);
  const notDeleted = await member.send('DELETE', '/me/routing/llama-3.3-70b-instruct');
  assert.equal([notDeleted.status, (await json(notDeleted)).error.code], [403, 'forbidden']);
});

test('steps are checked against the catalog (400 bad_steps naming the step), the model too (400 bad_model)', async () => {
  const cases: [string, unknown, number, string, RegExp][] = [
    ['llama-3.3-70b-instruct', [], 400, 'bad_steps', /1 to 10/],
    ['llama-3.3-70b-instruct', Array.from({ length: 11 }, () => ({ provider: 'groq' })), 400, 'bad_steps', /1 to 10/],
    ['llama-3.3-70b-instruct', 'groq', 400, 'bad_steps', /1 to 10/],
    ['llama-3.3-70b-instruct', [{ model: 'gpt-9' }], 400, 'bad_steps', /steps\.0.*gpt-9/],
    ['llama-3.3-70b-instruct', [{ provider: 'groq' }, { model: 'bge-m3' }], 400, 'bad_steps', /steps\.1.*embedding/],
    ['llama-3.3-70b-instruct', [{ provider: 'openai' }], 400, 'bad_steps', /steps\.0.*openai/],
    ['llama-3.3-70b-instruct', [{ provider: 'groq' }, { provider: 'groq' }], 400, 'bad_steps', /steps\.1.*repeats step 0/],
    ['llama-3.3-70b-instruct', [{ provider: 'groq', extra: 1 }], 400, 'bad_steps', /unknown field 'extra'/],
    ['llama-3.3-70b-instruct', [7], 400, 'bad_steps', /steps\.0/],
    ['no-such-model', [{}], 400, 'bad_model', /no-such-model/],
  ];
  for (const [model, steps, status, code, message] of cases) {
    const r = await put(owner, model, steps);
    const body = await json(r);
    assert.equal([r.status, body.error?.code], [status, code], JSON.stringify(steps).slice(0, 60));
    assert.match(body.error.message, message);
  }
  assert.equal((await json(await owner.get('/me/routing'))).data, []);
  const unknown = await owner.get('/me/routing/no-such-model');
  assert.equal([unknown.status, (await json(unknown)).error.code], [400, 'bad_model']);
  const none = await owner.get('/me/routing/gpt-4o');
  assert.equal([none.status, (await json(none)).error.code], [404, 'not_found']);
});

test('ids with a slash work written as is or as %2F, and chains outlive a restart', async () => {
  const r = await put(owner, 'sandbox/echo', [{ provider: 'sandbox' }]);
  assert.is(r.status, 200);
  assert.is((await json(await owner.get('/me/routing/sandbox%2Fecho'))).model, 'sandbox/echo');
  await put(owner, 'llama-3.3-70b-instruct', [{ provider: 'together' }]);
  await gw.stop();
  await gw.restart();
  assert.is(await served(await chat(key)), 'together');
  assert.equal((await json(await owner.get('/me/routing'))).data.map((c: any) => c.model), ['llama-3.3-70b-instruct', 'sandbox/echo']);
  await owner.send('DELETE', '/me/routing/sandbox/echo');
  await owner.send('DELETE', '/me/routing/llama-3.3-70b-instruct');
});

test.run();
