// The exact-match response cache through the real gateway, with the official SDKs as clients and a
// mock provider that counts what reaches it: a repeat is answered from the cache (x-gw-cache: hit,
// the same bytes, plain or streamed), free and recorded in the ledger as a hit; sampled requests
// only when asked; never across orgs; bad headers refused; the TTL and the rate limits hold.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { query, waitForValue } from '../support/ledger.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { bearer, readSse } from '../support/wait.js';

let gw: GatewayProcess;
let openai: MockProvider;
let key: string;
let otherKey: string;
let orgId: string;

const MODEL = 'gpt-4o-mini';
const chatBody = (extra: Record<string, unknown> = {}) => JSON.stringify({ model: MODEL, temperature: 0, messages: [{ role: 'user', content: 'What is 6 × 7?' }], ...extra });
const chat = (k: string, body: string, cache?: string) => fetch(`${gw.url}/v1/chat/completions`, {
  method: 'POST', headers: { ...bearer(k), ...(cache === undefined ? {} : { 'x-gw-cache': cache }) }, body,
});
const rowOf = (requestId: string | null) => waitForValue(() => query(gw.dbPath, (db) => db.prepare(
  'SELECT provider, status, cost_micros, billable, cache_hit, streamed FROM usage WHERE request_id = ?').get(requestId)) as Record<string, unknown> | undefined,
5_000, 'the ledger row');
const balance = () => query(gw.dbPath, (db) => db.prepare('SELECT balance_micros FROM orgs WHERE id = ?').pluck().get(orgId) as number);

test.before(async () => {
  openai = await startMockProvider();
  gw = await startGateway({ providers: { openai: { baseUrl: openai.url, apiKey: 'sk-mock' } }, responseCache: { ttlSeconds: 2 } });
  orgId = (await gw.cli('org', 'create', 'cached', '--credit', '100')).id;
  key = (await gw.cli('key', 'create', '--org', orgId, '--name', 'k', '--rpm', '1000')).key;
  const other = (await gw.cli('org', 'create', 'other', '--credit', '100')).id;
  otherKey = (await gw.cli('key', 'create', '--org', other, '--name', 'k')).key;
});
test.after(async () => {
  await gw.cleanup();
  await openai.close();
});

test('a repeat with x-gw-cache: on is answered from the cache: the same bytes, x-gw-cache: hit, no provider call, free, a hit in the ledger', async () => {
  openai.reset();
  const body = chatBody();
  const first = await chat(key, body, 'on');
  assert.is(first.status, 200);
  assert.is(first.headers.get('x-gw-cache'), 'miss');
  const firstText = await first.text();
  const before = await waitForValue(async () => { await rowOf(first.headers.get('x-request-id')); return balance(); }, 5_000, 'the first row');
  const second = await chat(key, body, 'on');
  assert.is(second.status, 200);
  assert.is(second.headers.get('x-gw-cache'), 'hit');
  assert.is(await second.text(), firstText);
  assert.is(openai.requests.length, 1, 'the provider was asked once');
  assert.is.not(second.headers.get('x-request-id'), first.headers.get('x-request-id'));
  assert.equal(await rowOf(second.headers.get('x-request-id')), { provider: null, status: 200, cost_micros: 0, billable: 0, cache_hit: 1, streamed: 0 });
  assert.is(balance(), before, 'a hit is free');
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  assert.match(metrics, /^gw_cache_hits_total\{endpoint="chat",model="gpt-4o-mini"\} 1$/m);
  assert.not.match(metrics, /gw_upstream_attempts_total\{endpoint="chat",provider="",/, 'a hit is no upstream attempt');
  // The members that cannot change the answer are not part of the key; the ones that can are.
  assert.is((await chat(key, chatBody({ user: 'someone-else' }), 'on')).headers.get('x-gw-cache'), 'hit');
  assert.is((await chat(key, chatBody({ max_tokens: 5 }), 'on')).headers.get('x-gw-cache'), 'miss');
});

test('a streamed request is cached as a stream and replayed as one, through the OpenAI SDK', async () => {
  openai.reset();
  const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-cache': 'on' } });
  const read = async () => {
    const { data, response } = await client.chat.completions.create({ model: MODEL, temperature: 0, stream: true,
      messages: [{ role: 'user', content: 'Stream the answer.' }] }).withResponse();
    let text = '';
    for await (const chunk of data) text += chunk.choices[0]?.delta?.content ?? '';
    return { text, cache: response.headers.get('x-gw-cache') };
  };
  const a = await read();
  const b = await read();
  assert.is(a.cache, 'miss');
  assert.is(b.cache, 'hit');
  assert.ok(a.text.length > 0);
  assert.is(b.text, a.text);
  assert.is(openai.requests.length, 1);
  const raw = await chat(key, JSON.stringify({ model: MODEL, temperature: 0, stream: true, messages: [{ role: 'user', content: 'Stream the answer.' }] }), 'on');
  assert.is(raw.headers.get('content-type')?.startsWith('text/event-stream'), true);
  const events = await readSse(raw);
  assert.is(events[events.length - 1], '[DONE]');
});

test('a sampled request (temperature above 0, or not given) is cached only with x-gw-cache: always', async () => {
  openai.reset();
  const sampled = chatBody({ temperature: 0.7 });
  assert.is((await chat(key, sampled, 'on')).headers.get('x-gw-cache'), null);
  assert.is((await chat(key, sampled, 'on')).headers.get('x-gw-cache'), null);
  assert.is(openai.requests.length, 2, 'on never answers a sampled request from the cache');
  assert.is((await chat(key, sampled, 'always')).headers.get('x-gw-cache'), 'miss');
  assert.is((await chat(key, sampled, 'always')).headers.get('x-gw-cache'), 'hit');
  assert.is(openai.requests.length, 3);
});

test('never across orgs, never without asking, and an answer expires with its TTL', async () => {
  openai.reset();
  const body = chatBody({ messages: [{ role: 'user', content: 'Org-private question' }] });
  assert.is((await chat(key, body, 'on')).headers.get('x-gw-cache'), 'miss');
  assert.is((await chat(otherKey, body, 'on')).headers.get('x-gw-cache'), 'miss', 'another org does not see it');
  const plain = await chat(key, body);
  assert.is(plain.status, 200);
  assert.is(plain.headers.get('x-gw-cache'), null, 'without the header the cache is not used');
  assert.is((await chat(key, body, 'off')).headers.get('x-gw-cache'), null);
    assert.is(openai.requests.length, 4);
  // ttlSeconds 2 in this gateway's config.
  await waitForValue(async () => ((await chat(key, body, 'on')).headers.get('x-gw-cache') === 'miss' ? true : null), 5_000, 'the entry to expire');
});

test('embeddings repeat from the cache with on; an error answer is never stored; a bad header is refused 400', async () => {
  openai.reset();
  const emb = (cache: string) => fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: { ...bearer(key), 'x-gw-cache': cache },
    body: JSON.stringify({ model: 'text-embedding-3-small', input: 'cache me' }) });
  assert.is((await emb('on')).headers.get('x-gw-cache'), 'miss');
  const again = await emb('on');
  assert.is(again.headers.get('x-gw-cache'), 'hit');
  assert.is(((await again.json()) as { data: unknown[] }).data.length, 1);
  openai.enqueue({ kind: 'status', status: 400 });
  const failing = chatBody({ messages: [{ role: 'user', content: 'this one fails' }] });
  assert.is((await chat(key, failing, 'on')).status, 400);
  const retried = await chat(key, failing, 'on');
  assert.is(retried.status, 200);
  assert.is(retried.headers.get('x-gw-cache'), 'miss', 'the 400 was not kept');
  const bad = await chat(key, chatBody(), 'sometimes');
  assert.is(bad.status, 400);
  const e = (await bad.json() as { error: { code: string; message: string } }).error;
  assert.equal([e.code, /x-gw-cache/.test(e.message)], ['bad_request', true]);
  // A value named like a member of every object is no mode either.
  for (const value of ['constructor', 'toString']) assert.is((await chat(key, chatBody(), value)).status, 400, value);
  // On the Anthropic-format route the same refusal comes in Anthropic's shape.
  const m = await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: { ...bearer(key), 'x-gw-cache': 'sometimes', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }) });
  assert.is(m.status, 400);
  const ae = await m.json() as { type: string; error: { type: string; message: string } };
  assert.equal([ae.type, ae.error.type, /x-gw-cache/.test(ae.error.message)], ['error', 'invalid_request_error', true]);
});

test('hits still count against the key\'s rate limit', async () => {
  const tight = (await gw.cli('key', 'create', '--org', orgId, '--name', 'tight', '--rpm', '2')).key;
  const body = chatBody({ messages: [{ role: 'user', content: 'limited' }] });
  assert.is((await chat(tight, body, 'on')).status, 200);
  assert.is((await chat(tight, body, 'on')).headers.get('x-gw-cache'), 'hit');
  const third = await chat(tight, body, 'on');
  assert.is(third.status, 429);
});

test.run();
