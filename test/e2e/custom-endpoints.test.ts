// Registered endpoints (spec 4.9): an org's own OpenAI-compatible server, guarded against
// server-side request forgery, compliance-tested, and called as custom/<name>/<model>.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { query, waitForValue } from '../support/ledger.js';
import { startMockProvider, streamText, type MockProvider } from '../support/mock-provider.js';
import { signIn, type Browser } from '../support/session.js';
import { bearer, chatBody, readSse } from '../support/wait.js';

let gw: GatewayProcess;
let lab: MockProvider;
let owner: Browser;
let key: string;

const json = async (r: Response) => (await r.json()) as any;
const chat = (k: string, model: string, extra: Record<string, unknown> = {}) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(k), body: chatBody({ model, ...extra }) });
async function errorOf(r: Response): Promise<[number, string, string]> {
  const e = (await json(r)).error;
  return [r.status, e?.code, e?.message];
}

test.before(async () => {
  lab = await startMockProvider();
  // The tests' endpoints are on 127.0.0.1, which a default gateway refuses (below).
  gw = await startGateway({ customEndpoints: { allowInternalAddresses: true, maxPerOrg: 3 } });
  owner = await signIn(gw, 'owner@endpoints.example');
  await gw.cli('org', 'credit', (await json(await owner.get('/me'))).org.id, '100');
  key = (await json(await owner.send('POST', '/me/keys', { name: 'k' }))).key;
});
test.after(async () => {
  await gw.cleanup();
  await lab.close();
});
test.before.each(() => lab.reset());

test('a compliant endpoint is registered with its models, and its models are served on its own key, unbilled', async () => {
  const r = await owner.send('POST', '/me/endpoints', { name: 'mylab', base_url: lab.url, api_key: 'lab-secret-key-9876' });
  assert.is(r.status, 201);
  const ep = await json(r);
  assert.equal([ep.name, ep.key, ep.compliance.status, ep.compliance.models], ['mylab', 'lab…9876', 'compliant', ['mock-model']]);
  assert.equal(ep.compliance.checks.map((c: any) => [c.name, c.ok]), [['models', true], ['chat', true], ['stream', true]]);
  assert.equal(lab.requests.map((q) => q.headers.authorization), Array(3).fill('Bearer lab-secret-key-9876'));
  lab.reset();

  const res = await chat(key, 'custom/mylab/mock-model');
  assert.is(res.status, 200);
  assert.is(res.headers.get('x-gw-provider'), 'custom:mylab');
  assert.is(lab.requests[0].body.model, 'mock-model');
  assert.is(lab.requests[0].headers.authorization, 'Bearer lab-secret-key-9876');
  const row = await waitForValue(() => query(gw.dbPath, (db) =>
    db.prepare('SELECT * FROM usage WHERE request_id = ? AND billable = 1').get(res.headers.get('x-gw-request-id'))) as any, 5_000, 'the row');
  assert.equal([row.model, row.provider, row.byok, row.cost_micros], ['custom/mylab/mock-model', 'custom:mylab', 1, 0]);
  const streamed = await readSse(await chat(key, 'custom/mylab/mock-model', { stream: true }));
  assert.is(streamed.at(-1), '[DONE]');
  assert.is(streamed.slice(0, -1).map((e) => JSON.parse(e).choices[0]?.delta?.content ?? '').join(''), streamText(3));

  const list = await json(await owner.get('/me/endpoints'));
  assert.equal(list.data.map((e: any) => [e.name, e.key]), [['mylab', 'lab…9876']]);
  assert.not.ok(JSON.stringify(list).includes('lab-secret-key-9876'));
});

test('an endpoint that fails a check is saved as non_compliant and not called until a retest passes', async () => {
  lab.enqueue({ kind: 'status', status: 500 });
  const ep = await json(await owner.send('POST', '/me/endpoints', { name: 'flaky', base_url: lab.url }));
  assert.is(ep.compliance.status, 'non_compliant');
  assert.equal(ep.compliance.checks.map((c: any) => c.ok), [true, false, true]);
  const [status, code, message] = await errorOf(await chat(key, 'custom/flaky/mock-model'));
  assert.equal([status, code], [400, 'no_route']);
  assert.match(message, /compliance test/);
  const retested = await json(await owner.send('POST', `/me/endpoints/${ep.id}/retest`));
  assert.is(retested.compliance.status, 'compliant');
  assert.is((await chat(key, 'custom/flaky/mock-model')).status, 200);

  const down = await json(await owner.send('POST', '/me/endpoints/test', { base_url: 'http://127.0.0.1:9/v1' }));
  assert.equal([down.status, down.checks.length], ['unreachable', 1]);
  assert.is((await json(await owner.get('/me/endpoints'))).data.length, 2, 'a test writes nothing');
  await owner.send('DELETE', `/me/endpoints/${ep.id}`);
});

test('bad configs, unknown endpoints, data policies and other orgs are refused in the envelope', async () => {
  const cases: [Record<string, unknown>, number, string][] = [
    [{ name: 'Bad Name', base_url: lab.url }, 400, 'bad_request'],
    [{ name: 'mylab', base_url: lab.url }, 400, 'bad_request'],
    [{ name: 'x1', base_url: 'not a url' }, 400, 'bad_request'],
    [{ name: 'x2', base_url: 'ftp://127.0.0.1/v1' }, 400, 'bad_request'],
    [{ name: 'x3', base_url: 'http://user:pw@127.0.0.1/v1' }, 400, 'bad_request'],
    [{ name: 'x4', base_url: lab.url, api_key: 'has space' }, 400, 'bad_request'],
  ];
  for (const [body, status, code] of cases) assert.equal((await errorOf(await owner.send('POST', '/me/endpoints', body))).slice(0, 2), [status, code], JSON.stringify(body));
  assert.equal((await errorOf(await chat(key, 'custom/nope/mock-model'))).slice(0, 2), [404, 'model_not_found']);
  assert.equal((await errorOf(await chat(key, 'custom/mylab/'))).slice(0, 2), [400, 'bad_request']);
  assert.equal((await errorOf(await chat(key, 'custom/mylab/mock-model', { data_policy: 'india_only' }))).slice(0, 2), [400, 'no_route']);
  const other = await signIn(gw, 'other@endpoints.example');
  await gw.cli('org', 'credit', (await json(await other.get('/me'))).org.id, '10');
  const otherKey = (await json(await other.send('POST', '/me/keys', { name: 'k' }))).key;
  assert.equal((await errorOf(await chat(otherKey, 'custom/mylab/mock-model'))).slice(0, 2), [404, 'model_not_found'], 'endpoints are the org\'s own');
  assert.equal((await errorOf(await other.send('DELETE', `/me/endpoints/${(await json(await owner.get('/me/endpoints'))).data[0].id}`))).slice(0, 2),
    [404, 'not_found']);
  assert.is(lab.requests.length, 0);
});

test('a default gateway refuses endpoints on this host, private networks and cloud metadata addresses, also inside IPv6 forms', async () => {
  const guarded = await startGateway();
  try {
    const b = await signIn(guarded, 'guard@endpoints.example');
    for (const url of ['http://127.0.0.1:8000/v1', 'http://localhost:8000/v1', 'http://169.254.169.254/latest', 'http://10.1.2.3/v1',
      'http://[::1]:8000/v1', 'http://192.168.1.10/v1',
      // IPv6 forms that carry an internal IPv4 address: NAT64, IPv4-compatible, IPv4-mapped, 6to4, Teredo (client obfuscated).
      'http://[64:ff9b::a9fe:a9fe]/', 'http://[::127.0.0.1]/', 'http://[::ffff:10.0.0.1]/', 'http://[2002:a9fe:a9fe::1]/',
      'http://[2001:0:808:808::5601:5601]/', 'http://[64:ff9b:1::a9fe:a9fe]/']) {
      const [status, code, message] = await errorOf(await b.send('POST', '/me/endpoints/test', { base_url: url }));
      assert.equal([status, code], [400, 'bad_request'], url);
      assert.match(message, /internal address/, url);
    }
  } finally {
    await guarded.cleanup();
  }
});

test('registered endpoints outlive a restart and stop at once when deleted; the cap holds', async () => {
  await gw.stop();
  await gw.restart();
  assert.is((await chat(key, 'custom/mylab/mock-model')).status, 200, 'the sealed key opens after a restart');
  await owner.send('POST', '/me/endpoints', { name: 'second', base_url: lab.url });
  await owner.send('POST', '/me/endpoints', { name: 'third', base_url: lab.url });
  assert.equal((await errorOf(await owner.send('POST', '/me/endpoints', { name: 'fourth', base_url: lab.url }))).slice(0, 2), [400, 'cap']);
  const mylab = (await json(await owner.get('/me/endpoints'))).data.find((e: any) => e.name === 'mylab');
  assert.equal(await json(await owner.send('DELETE', `/me/endpoints/${mylab.id}`)), { id: mylab.id, deleted: true });
  assert.equal((await errorOf(await chat(key, 'custom/mylab/mock-model'))).slice(0, 2), [404, 'model_not_found']);
});

test.run();
