// Issue 14.1: a provider that echoes the credential it received ("Invalid API key: Bearer …")
// must never show that credential to a client, the logs or the ledger, whoever's key it was:
// the platform's, an org's saved key, a registered endpoint's, or the caller's upstream_key.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { query, waitForValue } from '../support/ledger.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { signIn, type Browser } from '../support/session.js';
import { bearer, chatBody } from '../support/wait.js';

// None of these has a known provider key shape: only the exact scrub can catch them.
const PLATFORM = 'plat-7Q2mX9vK4tR8wZ1nE5';
const SAVED = 'grq-saved-5Hs8Kd2Lq9Vx3Pz0';
const ENDPOINT = 'lab-endpoint-6Tb1Ny7Wc4Mr0Qa';
const UPSTREAM = 'caller-upstream-3Fj8Rg5Ye2Uo9Ik';
// This one has: the pattern catches it too.
const SHAPED = 'sk-proj-AbCdEf0123456789XyZ';
const SECRETS = [PLATFORM, SAVED, ENDPOINT, UPSTREAM, SHAPED];

let gw: GatewayProcess;
let mock: MockProvider;
let owner: Browser;
let key: string;

const json = async (r: Response) => (await r.json()) as any;
const chat = (extra: Record<string, unknown>) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody(extra) });

test.before(async () => {
  mock = await startMockProvider();
  gw = await startGateway({
    logLevel: 'debug',
    providers: {
      openai: { baseUrl: mock.url, apiKey: PLATFORM },
      groq: { baseUrl: mock.url },
      together: { baseUrl: mock.url, apiKey: SHAPED },
    },
    customEndpoints: { allowInternalAddresses: true },
    // Every request must reach the provider: no circuit may open during the test.
    breaker: { volumeThreshold: 100_000 },
  });
  owner = await signIn(gw, 'owner@scrub.example');
  await gw.cli('org', 'credit', (await json(await owner.get('/me'))).org.id, '100');
  key = (await json(await owner.send('POST', '/me/keys', { name: 'k' }))).key;
  assert.is((await owner.send('PUT', '/me/byok/groq', { key: SAVED })).status, 200);
  assert.is((await owner.send('POST', '/me/endpoints', { name: 'lab', base_url: mock.url, api_key: ENDPOINT })).status, 201);
});
test.after(async () => {
  await gw.cleanup();
  await mock.close();
});
test.before.each(() => mock.reset());

const CASES: [string, Record<string, unknown>, string][] = [
  ['the platform key', { model: 'gpt-4o-mini' }, PLATFORM],
  ['a platform key of a known shape', { model: 'llama-3.3-70b-instruct', provider: 'together' }, SHAPED],
  ['a saved BYOK key', { model: 'groq/mock-model' }, SAVED],
  ['a registered endpoint\'s key', { model: 'custom/lab/mock-model' }, ENDPOINT],
  ['the caller\'s upstream_key', { model: 'openai/gpt-4.1-nano', upstream_key: UPSTREAM }, UPSTREAM],
];

for (const [who, extra, secret] of CASES) {
  test(`an upstream echoing ${who} in a 400, 401, 429 or 500 body never shows it to the client`, async () => {
    for (const status of [400, 401, 429, 500]) {
      for (const text of [false, true]) {
        for (const stream of [false, true]) {
          mock.enqueue({ kind: 'echo-auth', status, text });
          const r = await chat({ ...extra, stream });
          const body = await r.text();
          const what = `${status} ${text ? 'text' : 'json'} ${stream ? 'stream' : 'whole'}: ${body}`;
          assert.is(mock.requests.length, 1, `the provider was called (${what})`);
          assert.is(mock.requests[0].headers.authorization, `Bearer ${secret}`);
          assert.ok(r.status >= 400, what);
          for (const s of SECRETS) {
            assert.not.ok(body.includes(s) || body.includes(s.slice(0, 12)), `${who} leaked (${what})`);
          }
          // The upstream's message still reaches the client, with the secret taken out.
          assert.match(body, /Invalid API key: (Bearer )?\[redacted\]/, what);
          mock.reset();
        }
      }
    }
  });
}

for (const [who, extra, secret] of CASES) {
  test(`an upstream echoing ${who} inside a 200 answer, whole or mid-stream and cut between reads, never shows it`, async () => {
    const stars = '*'.repeat(secret.length);
    // A stream whose error event echoes the header, its bytes cut inside the key across two reads.
    const event = `data: {"error":{"message":"Invalid API key: Bearer ${secret}"}}\n\n`;
    const cut = event.indexOf(secret) + 5;
    mock.enqueue({ kind: 'parts', intervalMs: 30, parts: [
      'data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n',
      event.slice(0, cut), event.slice(cut), 'data: [DONE]\n\n'] });
    const streamed = await (await chat({ ...extra, stream: true })).text();
    assert.ok(streamed.includes(`Invalid API key: Bearer ${stars}`), streamed);
    mock.reset();
    mock.enqueue({ kind: 'status', status: 200, body: { id: 'c2', object: 'chat.completion', model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content: `debug: Bearer ${secret}` }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } } });
    const r = await chat(extra);
    const whole = await r.text();
    assert.is(r.status, 200, whole);
    assert.is(JSON.parse(whole).choices[0].message.content, `debug: Bearer ${stars}`, 'the answer stays valid JSON, the key masked in place');
    for (const body of [streamed, whole]) {
      for (const s of SECRETS) assert.not.ok(body.includes(s) || body.includes(s.slice(0, 12)), `${who} leaked: ${body}`);
    }
  });
}

test('no secret sent upstream appears in the gateway\'s log lines or in the ledger rows', async () => {
  const rows = await waitForValue(() => {
    const all = query(gw.dbPath, (db) => db.prepare('SELECT * FROM usage').all());
    return all.length >= CASES.length * 16 ? all : null;
  }, 10_000, 'every attempt in the ledger');
  const ledger = JSON.stringify(rows);
  const logs = gw.lines.join('\n');
  for (const s of SECRETS) {
    assert.not.ok(ledger.includes(s), `the ledger holds ${s}`);
    assert.not.ok(logs.includes(s), `the logs hold ${s}`);
  }
  // The rows name the failures by code, so the check above read real error rows.
  assert.ok(rows.some((r: any) => r.status === 401 && r.error_code !== null));
});

test.run();
