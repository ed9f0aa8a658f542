import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI, { APIError } from 'openai';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { bearer, chatBody, waitFor } from '../support/wait.js';

let gw: GatewayProcess;
let mock: MockProvider;
let key: string;
let keyId: string;

test.before(async () => {
  mock = await startMockProvider();
  gw = await startGateway({ bodyLimitBytes: 64 * 1024, providers: { groq: { baseUrl: mock.url, apiKey: 'k1' } } });
  ({ key, keyId } = await gw.orgAndKey());
});
test.after(async () => {
  await gw.cleanup();
  await mock.close();
});

async function expectError(res: Response, status: number, code: string): Promise<any> {
  assert.is(res.status, status, `status for ${code}`);
  assert.ok(res.headers.get('content-type')!.startsWith('application/json'));
  const body: any = await res.json();
  assert.type(body.error.message, 'string');
  assert.type(body.error.type, 'string');
  assert.is(body.error.code, code);
  return body.error;
}

const chat = (headers: Record<string, string>, body: string = chatBody()) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers, body });

test('a missing, malformed or unknown key gives 401 invalid_api_key', async () => {
  await expectError(await chat({ 'content-type': 'application/json' }), 401, 'invalid_api_key');
  await expectError(await chat({ authorization: 'Basic abc' }), 401, 'invalid_api_key');
  await expectError(await chat({ authorization: 'Bearer sk-not-ours' }), 401, 'invalid_api_key');
  await expectError(await chat(bearer('gw-' + 'A'.repeat(32))), 401, 'invalid_api_key');
  await expectError(await fetch(`${gw.url}/v1/embeddings`, { method: 'POST', body: '{}' }), 401, 'invalid_api_key');
});

test('a key revoked with the CLI is refused by the running gateway within seconds', async () => {
  const k = await gw.orgAndKey();
  assert.is((await chat(bearer(k.key))).status, 200, 'the key works and is now cached');
  await gw.cli('key', 'revoke', k.keyId);
  await waitFor(async () => (await chat(bearer(k.key))).status === 401, 5_000, 'revocation to reach the gateway');
  await expectError(await chat(bearer(k.key)), 401, 'invalid_api_key');
});

test('an expired key gives 401 invalid_api_key', async () => {
  const org = await gw.cli('org', 'create', 'expiring');
  const k = await gw.cli('key', 'create', '--org', org.id, '--name', 'soon', '--expires-days', '1');
  assert.is((await chat(bearer(k.key))).status, 200);
  // Move its expiry into the past directly in the database, as time passing would.
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(gw.dbPath);
  db.prepare('UPDATE api_keys SET expires_at = ? WHERE id = ?').run(Date.now() - 1000, k.id);
  db.prepare("INSERT INTO change_log (at, kind, ref) VALUES (?, 'key', ?)").run(Date.now(), k.id);
  db.close();
  await waitFor(async () => (await chat(bearer(k.key))).status === 401, 5_000, 'expiry');
});

test('an unknown model gives 404 model_not_found', async () => {
  const e = await expectError(await chat(bearer(key), chatBody({ model: 'no-such-model' })), 404, 'model_not_found');
  assert.ok(e.message.includes('no-such-model'));
});

test('a catalog model with no configured provider gives 400 no_route', async () => {
  await expectError(await chat(bearer(key), chatBody({ model: 'gpt-4o' })), 400, 'no_route');
});

test('malformed JSON and invalid fields give 400 bad_request naming the field', async () => {
  await expectError(await chat(bearer(key), '{"model": "x", '), 400, 'bad_request');
  await expectError(await chat(bearer(key), '[1,2]'), 400, 'bad_request');
  let e = await expectError(await chat(bearer(key), JSON.stringify({ model: 'llama-3.3-70b-instruct' })), 400, 'bad_request');
  assert.ok(e.message.includes('messages'), e.message);
  e = await expectError(await chat(bearer(key), JSON.stringify({ model: 'llama-3.3-70b-instruct', messages: [] })), 400, 'bad_request');
  e = await expectError(await chat(bearer(key), chatBody({ stream: 'yes' })), 400, 'bad_request');
  assert.ok(e.message.includes('stream'), e.message);
  await expectError(await chat(bearer(key), chatBody({ optimize: 'speed' })), 400, 'bad_request');
  await expectError(await chat(bearer(key), chatBody({ upstream_key: 'sk-something-long' })), 400, 'bad_request');
});

test('a body over the limit gives 413 in the envelope', async () => {
  const big = chatBody({ padding: 'x'.repeat(100 * 1024) });
  await expectError(await chat(bearer(key), big), 413, 'payload_too_large');
  // Without a content-length (chunked upload), the limit is enforced while reading.
  const stream = new ReadableStream({
    start(c) {
      for (let i = 0; i < 20; i++) c.enqueue(new TextEncoder().encode('x'.repeat(8 * 1024)));
      c.close();
    },
  });
  const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: stream, duplex: 'half' } as RequestInit);
  await expectError(r, 413, 'payload_too_large');
});

test('a body far over the limit still gets its 413, not a reset mid-upload, and the connection serves on', async () => {
  const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  for (const mib of [4, 16, 48]) {
    const content = 'x'.repeat(mib * 1024 * 1024);
    const e = await client.chat.completions.create({ model: 'llama-3.3-70b-instruct', messages: [{ role: 'user', content }] })
      .then(() => null, (err: unknown) => err);
    assert.instance(e, APIError, `${mib} MiB: ${String(e)}`);
    assert.is((e as APIError).status, 413, `${mib} MiB`);
    assert.is((e as APIError).code, 'payload_too_large');
  }
  assert.is((await chat(bearer(key))).status, 200);
});

test('an unknown path gives 404 not_found and a wrong method 405, both in the envelope', async () => {
  await expectError(await fetch(`${gw.url}/v2/whatever`), 404, 'not_found');
  await expectError(await fetch(`${gw.url}/v1/chat/completions`), 405, 'method_not_allowed');
});

test('the gateway still serves after all of the above', async () => {
  assert.is((await chat(bearer(key))).status, 200);
  assert.is(keyId.startsWith('key_'), true);
});

test.run();
