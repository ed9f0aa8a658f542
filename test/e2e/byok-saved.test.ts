// Saved provider keys (spec 4.5): checked live, sealed at rest, and used by the data plane at
// once for provider/model-id and, with always_use, for every call to that provider.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { query, waitForValue } from '../support/ledger.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { signIn, type Browser } from '../support/session.js';
import { bearer, chatBody } from '../support/wait.js';

const ORG_KEY = 'sk-org-own-key-0000wxyz';
let gw: GatewayProcess;
let openai: MockProvider;
let groq: MockProvider;
let owner: Browser;
let key: string;

const json = async (r: Response) => (await r.json()) as any;
const chat = (model: string, extra: Record<string, unknown> = {}) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody({ model, ...extra }) });
const rowOf = (r: Response) => waitForValue(() => query(gw.dbPath, (db) =>
  db.prepare('SELECT * FROM usage WHERE request_id = ? AND billable = 1').get(r.headers.get('x-gw-request-id'))) as any, 5_000, 'the row');
async function errorOf(r: Response): Promise<[number, string]> {
  return [r.status, (await json(r)).error?.code];
}

test.before(async () => {
  [openai, groq] = await Promise.all([startMockProvider(), startMockProvider()]);
  gw = await startGateway({
    // OpenAI has no platform key here: only an org's own key can reach it.
    providers: {
      openai: { baseUrl: openai.url }, groq: { baseUrl: groq.url, apiKey: 'gsk-platform' },
      // Nothing listens on port 9: the live check cannot reach it.
      together: { baseUrl: 'http://127.0.0.1:9/v1' },
    },
  });
  owner = await signIn(gw, 'owner@byok.example');
  await gw.cli('org', 'credit', (await json(await owner.get('/me'))).org.id, '100');
  key = (await json(await owner.send('POST', '/me/keys', { name: 'k' }))).key;
});
test.after(async () => {
  await gw.cleanup();
  await Promise.all([openai.close(), groq.close()]);
});
test.before.each(() => {
  openai.reset();
  groq.reset();
});

test('a key is checked live, saved sealed and masked, and its models are listed as provider/model-id', async () => {
  const r = await owner.send('PUT', '/me/byok/openai', { key: ORG_KEY, label: 'team key' });
  assert.is(r.status, 200);
  const saved = await json(r);
  assert.equal([saved.provider, saved.key, saved.label, saved.always_use, saved.models], ['openai', 'sk-…wxyz', 'team key', false, 1]);
  assert.is(openai.requests[0].path, '/v1/models');
  assert.is(openai.requests[0].headers.authorization, `Bearer ${ORG_KEY}`);

  const list = await json(await owner.get('/me/byok'));
  assert.ok(list.data.some((p: any) => p.provider === 'groq' && p.saved === null));
  assert.is(list.data.find((p: any) => p.provider === 'openai').saved.key, 'sk-…wxyz');
  assert.not.ok(JSON.stringify(list).includes(ORG_KEY), 'never shown again');
  assert.equal((await json(await owner.get('/me/byok/openai/models'))).data, [{ id: 'mock-model', model: 'openai/mock-model' }]);

  // At rest the key is sealed (AES-256-GCM) under a master key file only the gateway's user reads.
  const stored = query(gw.dbPath, (db) => db.prepare('SELECT key_sealed FROM byok_keys').pluck().get()) as string;
  assert.not.ok(stored.includes('org-own-key') || Buffer.from(stored, 'base64').toString('latin1').includes('org-own-key'));
  const masterFile = join(gw.dir, 'master.key');
  assert.match(readFileSync(masterFile, 'utf8'), /^[0-9a-f]{64}\n$/);
  assert.is(statSync(masterFile).mode & 0o777, 0o600);

  const tested = await json(await owner.send('POST', '/me/byok/openai/test'));
  assert.equal([tested.result, tested.models, tested.message], ['ok', 1, null]);
});

test('provider/model-id then needs no upstream_key; the org key is used and nothing is debited', async () => {
  const r = await chat('openai/gpt-4.1-nano');
  assert.is(r.status, 200);
  assert.is(openai.requests[0].headers.authorization, `Bearer ${ORG_KEY}`);
  assert.is(openai.requests[0].body.model, 'gpt-4.1-nano');
  const row = await rowOf(r);
  assert.equal([row.byok, row.cost_micros], [1, 0]);
  // Without always_use, catalog routes keep the platform's keys: OpenAI has none, so gpt-4o-mini has no route.
  assert.equal(await errorOf(await chat('gpt-4o-mini')), [400, 'no_route']);
});

test('with always_use every call to the provider goes on the org key, which makes its catalog models usable, unbilled', async () => {
  await owner.send('PUT', '/me/byok/openai', { key: ORG_KEY, always_use: true });
  const r = await chat('gpt-4o-mini');
  assert.is(r.status, 200);
  assert.is(openai.requests.at(-1)!.headers.authorization, `Bearer ${ORG_KEY}`);
  assert.equal([(await rowOf(r)).byok, (await rowOf(r)).cost_micros], [1, 0]);
  // Groq, with no saved key, still uses the platform key and is billed.
  const g = await chat('llama-3.3-70b-instruct');
  assert.is(groq.requests[0].headers.authorization, 'Bearer gsk-platform');
  assert.ok((await rowOf(g)).cost_micros > 0);
});

test('a refused or malformed key is 400 bad_key and nothing is saved', async () => {
  const before = await json(await owner.get('/me/byok'));
  assert.equal(await errorOf(await owner.send('PUT', '/me/byok/groq', { key: 'gsk-rejected-key-123' })), [400, 'bad_key']);
  assert.equal(await errorOf(await owner.send('PUT', '/me/byok/groq', { key: 'short' })), [400, 'bad_key']);
  assert.equal(await errorOf(await owner.send('PUT', '/me/byok/groq', { key: 'has space in it' })), [400, 'bad_key']);
  assert.equal(await json(await owner.get('/me/byok')), before);
  assert.is((await owner.send('PUT', '/me/byok/groq', { key: 'gsk-own-ok-key-123' })).status, 200);
  assert.is((await json(await owner.send('POST', '/me/byok/groq/test'))).result, 'ok');
  await owner.send('DELETE', '/me/byok/groq');
});

test('unknown providers, providers without BYOK, members, and a provider that cannot be reached are refused in the envelope', async () => {
  assert.equal(await errorOf(await owner.send('PUT', '/me/byok/nope', { key: 'sk-abcdefgh' })), [400, 'unknown_provider']);
  assert.equal(await errorOf(await owner.send('PUT', '/me/byok/sandbox', { key: 'sk-abcdefgh' })), [400, 'unknown_provider']);
  assert.equal(await errorOf(await owner.send('PUT', '/me/byok/together', { key: 'sk-abcdefgh' })), [503, 'unavailable'],
    'nothing answers at together\'s address');
  assert.equal(await errorOf(await owner.get('/me/byok/groq/models')), [404, 'not_found']);
  const lead = await signIn(gw, 'lead@byok.example');
  const team = await json(await lead.send('POST', '/me/orgs', { name: 'byok team' }));
  await lead.send('POST', '/me/orgs/switch', { org_id: team.id });
  const inv = await json(await lead.send('POST', '/me/members', { email: 'admin@byok.example', role: 'admin' }));
  const admin = await signIn(gw, 'admin@byok.example');
  await admin.send('POST', `/me/invitations/${inv.id}/accept`);
  await admin.send('POST', '/me/orgs/switch', { org_id: team.id });
  assert.equal(await errorOf(await admin.get('/me/byok')), [403, 'forbidden'], 'owners only');
});

test('with byok.enabled false every /me/byok route answers 503 byok_disabled', async () => {
  const off = await startGateway({ byok: { enabled: false } });
  try {
    const b = await signIn(off, 'off@byok.example');
    for (const r of [await b.get('/me/byok'), await b.send('PUT', '/me/byok/openai', { key: ORG_KEY }), await b.get('/me/byok/openai/models')]) {
      assert.equal(await errorOf(r), [503, 'byok_disabled']);
    }
  } finally {
    await off.cleanup();
  }
});

test('deleting the key takes it out of the data plane at once; saved keys outlive a restart', async () => {
  await owner.send('PUT', '/me/byok/openai', { key: ORG_KEY, always_use: true });
  await gw.stop();
  await gw.restart();
  assert.is((await chat('gpt-4o-mini')).status, 200, 'the sealed key opens after a restart');
  const gone = await json(await owner.send('DELETE', '/me/byok/openai'));
  assert.equal(gone, { provider: 'openai', deleted: true });
  assert.equal(await errorOf(await chat('gpt-4o-mini')), [400, 'no_route']);
  assert.equal(await errorOf(await chat('openai/gpt-4.1-nano')), [404, 'model_not_found']);
});

test.run();
