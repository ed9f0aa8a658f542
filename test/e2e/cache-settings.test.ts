// Cache settings per key and per org through the real gateway (docs/cache.md): an owner sets the
// response cache mode and the prompt-cache markers with PATCH /me/keys/:id and PATCH /me/org; the
// data plane applies them from the next request (keys already cached included); the x-gw-cache
// header and the body's `cache` member win over both, a key's own over its org's, null clears.
// A hit is billed responseCache.hitCostPercent (50 here) of its answer's first cost: it debits the
// balance, is recorded as a billable hit, and is refused when the org cannot pay, as any request.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { query, waitForValue } from '../support/ledger.js';
import { startMockAnthropic, type MockAnthropic } from '../support/mock-anthropic.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { signIn, type Browser } from '../support/session.js';
import { bearer } from '../support/wait.js';
import { formatInr } from '../../src/lib/money.js';

let gw: GatewayProcess;
let openai: MockProvider;
let anthropic: MockAnthropic;
let owner: Browser;
let orgId: string;

const GPT = 'gpt-4o-mini';
const CLAUDE = 'claude-sonnet-5';
const HANDBOOK = 'Clause: refunds are processed within seven working days of the request. '.repeat(150);
const LONG = [{ role: 'system' as const, content: HANDBOOK }, { role: 'user' as const, content: 'How long do refunds take?' }];

let asked = 0;
/** A temperature-0 chat body no other request sent, so the cache has never seen it. */
const fresh = () => JSON.stringify({ model: GPT, temperature: 0, messages: [{ role: 'user', content: `question ${++asked}` }] });
const chat = (key: string, body: string, headers: Record<string, string> = {}) => fetch(`${gw.url}/v1/chat/completions`, {
  method: 'POST', headers: { ...bearer(key), ...headers }, body,
});
/** What the cache did with a body sent twice by `key`: the two answers' x-gw-cache headers. */
async function twice(key: string, body = fresh(), headers: Record<string, string> = {}): Promise<(string | null)[]> {
  const out: (string | null)[] = [];
  for (let i = 0; i < 2; i++) {
    const r = await chat(key, body, headers);
    assert.is(r.status, 200, await r.clone().text());
    await r.arrayBuffer();
    out.push(r.headers.get('x-gw-cache'));
  }
  return out;
}
const json = async (r: Response) => await r.json() as any;
const mint = async (name: string): Promise<{ id: string; key: string }> => {
  const r = await owner.send('POST', '/me/keys', { name });
  assert.is(r.status, 201, await r.clone().text());
  return json(r);
};
const patchKey = (id: string, body: Record<string, unknown>) => owner.send('PATCH', `/me/keys/${id}`, body);
const patchOrg = (body: Record<string, unknown>) => owner.send('PATCH', '/me/org', body);
const rowOf = (requestId: string | null) => waitForValue(() => query(gw.dbPath, (db) => db.prepare(
  'SELECT provider, status, cost_micros, billable, cache_hit FROM usage WHERE request_id = ?').get(requestId)) as Record<string, unknown> | undefined,
5_000, 'the ledger row');
const balanceOf = (org: string) => query(gw.dbPath, (db) => db.prepare('SELECT balance_micros FROM orgs WHERE id = ?').pluck().get(org) as number);

test.before(async () => {
  [openai, anthropic] = await Promise.all([startMockProvider(), startMockAnthropic()]);
  gw = await startGateway({
    providers: { openai: { baseUrl: openai.url, apiKey: 'sk-mock' }, anthropic: { baseUrl: anthropic.url, apiKey: 'sk-ant-test' } },
    responseCache: { hitCostPercent: 50 },
  });
  owner = await signIn(gw, 'cache-owner@example.com');
  orgId = (await json(await owner.get('/me'))).org.id;
  await gw.cli('org', 'credit', orgId, '100');
});
test.after(async () => {
  await gw.cleanup();
  await Promise.all([openai.close(), anthropic.close()]);
});

test('a key\'s mode, else its org\'s, else none; a key\'s own off wins over its org\'s on, the header over both, and null clears', async () => {
  const [a, b] = [await mint('a'), await mint('b')];
  // Both keys' records are cached by the data plane before anything is set.
  assert.equal(await twice(a.key), [null, null]);
  assert.equal(await twice(b.key), [null, null]);

  const onKey = await patchKey(a.id, { response_cache: 'on' });
  assert.is(onKey.status, 200);
  assert.is((await json(onKey)).response_cache, 'on');
  assert.equal(await twice(a.key), ['miss', 'hit'], 'the key\'s own setting applies at once');
  assert.equal(await twice(b.key), [null, null], 'the other key is untouched');

  const onOrg = await patchOrg({ response_cache: 'on' });
  assert.is(onOrg.status, 200);
  assert.equal([(await json(onOrg)).org.response_cache, (await json(await owner.get('/me'))).org.response_cache], ['on', 'on']);
  assert.equal(await twice(b.key), ['miss', 'hit'], 'a key without a setting follows its org');
  const viaMessages = async () => {
    const r = await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': b.key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: GPT, max_tokens: 20, temperature: 0, messages: [{ role: 'user', content: 'Through /v1/messages' }] }) });
    assert.is(r.status, 200, await r.clone().text());
    return r.headers.get('x-gw-cache');
  };
  assert.equal([await viaMessages(), await viaMessages()], ['miss', 'hit'], 'on /v1/messages too');

  assert.is((await patchKey(a.id, { response_cache: 'off' })).status, 200);
  openai.reset();
  assert.equal(await twice(a.key), [null, null], 'the key\'s off wins over the org\'s on');
  assert.is(openai.requests.length, 2);

  assert.equal(await twice(a.key, fresh(), { 'x-gw-cache': 'on' }), ['miss', 'hit'], 'the header wins over the key');
  assert.equal(await twice(b.key, fresh(), { 'x-gw-cache': 'off' }), [null, null], 'and over the org');

  const list = await json(await owner.get('/me/keys'));
  assert.equal(list.data.filter((k: any) => k.id === a.id || k.id === b.id).sort((x: any, y: any) => x.name.localeCompare(y.name))
    .map((k: any) => [k.name, k.response_cache, k.prompt_cache]),
    [['a', 'off', null], ['b', null, null]]);

  const cleared = await patchKey(a.id, { response_cache: null });
  assert.is((await json(cleared)).response_cache, null);
  const shared = fresh();
  assert.equal(await twice(b.key, shared), ['miss', 'hit']);
  assert.equal(await twice(a.key, shared), ['hit', 'hit'], 'cleared, the key follows its org again (and the org\'s answers are its own)');
  assert.is((await json(await patchOrg({ response_cache: null }))).org.response_cache, null);
  assert.equal(await twice(b.key), [null, null], 'the org cleared: the config\'s off');
});

test('a bad value is refused 400 in the error envelope, naming the member', async () => {
  const { id, key } = await mint('bad');
  for (const [send, body, member] of [
    [(b: Record<string, unknown>) => patchKey(id, b), { response_cache: 'sometimes' }, 'response_cache'],
    [(b: Record<string, unknown>) => patchKey(id, b), { prompt_cache: true }, 'prompt_cache'],
    [patchOrg, { response_cache: 'ON ' }, 'response_cache'],
    [patchOrg, { prompt_cache: 'always' }, 'prompt_cache'],
  ] as const) {
    const r = await send(body);
    assert.is(r.status, 400, member);
    const e = (await json(r)).error;
    assert.equal([e.type, e.code], ['invalid_request_error', 'bad_request']);
    assert.match(e.message, member);
  }
  const body = await json(await chat(key, JSON.stringify({ model: GPT, cache: 'sometimes', messages: [{ role: 'user', content: 'hi' }] })));
  assert.equal([body.error.code, /'cache'/.test(body.error.message)], ['bad_request', true]);
  // An org may hold 5 active keys; the next tests mint theirs.
  assert.is((await owner.send('DELETE', `/me/keys/${id}`)).status, 200);
});

test('prompt-cache markers per key and per org reach a mock Anthropic; the body\'s cache member wins over both', async () => {
  const [c, d] = [await mint('c'), await mint('d')];
  const marked = async (key: string, extra: Record<string, unknown> = {}) => {
    const r = await chat(key, JSON.stringify({ model: CLAUDE, max_tokens: 50, messages: LONG, ...extra }));
    assert.is(r.status, 200, await r.clone().text());
    await r.arrayBuffer();
    const sent = anthropic.requests[anthropic.requests.length - 1].body;
    return Array.isArray(sent.system) && sent.system.some((s: any) => s.cache_control?.type === 'ephemeral');
  };
  assert.is(await marked(c.key), false);
  const patched = await patchKey(c.id, { prompt_cache: 'auto' });
  assert.is((await json(patched)).prompt_cache, 'auto');
  assert.is(await marked(c.key), true, 'the key\'s auto marks its requests');
  assert.is(await marked(d.key), false);
  assert.is(await marked(c.key, { cache: 'off' }), false, 'the body\'s off wins over the key');

  const anthropicSdk = new Anthropic({ apiKey: c.key, baseURL: gw.url, maxRetries: 0 });
  await anthropicSdk.messages.create({ model: CLAUDE, max_tokens: 50, system: HANDBOOK, messages: [{ role: 'user', content: 'Refunds?' }] });
  const native = anthropic.requests[anthropic.requests.length - 1].body;
  assert.is(native.system[0].cache_control?.type, 'ephemeral', 'native /v1/messages too');

  assert.is((await json(await patchOrg({ prompt_cache: 'auto' }))).org.prompt_cache, 'auto');
  assert.is(await marked(d.key), true, 'a key without a setting follows its org');
  await patchKey(c.id, { prompt_cache: 'off' });
  assert.is(await marked(c.key), false, 'the key\'s off wins over the org\'s auto');
  assert.is(await marked(c.key, { cache: 'auto' }), true, 'the body\'s auto wins over the key\'s off');
  await patchOrg({ prompt_cache: null });
  assert.is(await marked(d.key), false);
});

test('a hit is billed half its answer\'s first cost: the balance is debited and the ledger row is a billable hit, through the OpenAI SDK', async () => {
  const { id, key } = await mint('billed');
  await patchKey(id, { response_cache: 'on' });
  const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const ask = () => client.chat.completions.create({ model: GPT, temperature: 0, messages: [{ role: 'user', content: 'Bill me half.' }] }).withResponse();
  const first = await ask();
  assert.is(first.response.headers.get('x-gw-cache'), 'miss');
  const miss = await rowOf(first.response.headers.get('x-request-id'));
  const firstCost = miss.cost_micros as number;
  assert.ok(firstCost > 1, `the first answer cost something (${firstCost} micro-rupees)`);
  const before = balanceOf(orgId);
  const second = await ask();
  assert.is(second.response.headers.get('x-gw-cache'), 'hit');
  assert.equal(second.data.choices[0].message, first.data.choices[0].message);
  const half = Math.round(firstCost / 2);
  assert.equal(await rowOf(second.response.headers.get('x-request-id')), { provider: null, status: 200, cost_micros: half, billable: 1, cache_hit: 1 });
  await waitForValue(() => (balanceOf(orgId) === before - half ? true : null), 5_000, 'the balance to be debited half the first cost');
  const stored = query(gw.dbPath, (db) => db.prepare('SELECT cost_micros FROM response_cache').pluck().all() as number[]);
  assert.ok(stored.includes(firstCost), 'the entry keeps its first cost');
});

test('paid hits spend the balance as any request does: once it is gone the next hit is refused 402', async () => {
  const body = fresh();
  // What this body's answer costs, from a miss in another org (an answer is never shared across orgs).
  const rich = await gw.orgAndKey({ name: 'rich' });
  const measured = await chat(rich.key, body, { 'x-gw-cache': 'on' });
  const cost = (await rowOf(measured.headers.get('x-request-id'))).cost_micros as number;
  const half = Math.round(cost / 2);
  assert.ok(half >= 2, `the answer costs enough to halve (${cost} micro-rupees)`);
  // Enough for the miss and all but one micro-rupee of a hit: that hit is let in (something is left) and spends the rest.
  const poor = (await gw.cli('org', 'create', 'poor', '--credit', formatInr(cost + half - 1, 6))).id;
  const { key } = await gw.cli('key', 'create', '--org', poor, '--name', 'k');
  openai.reset();
  const first = await chat(key, body, { 'x-gw-cache': 'on' });
  assert.equal([first.status, first.headers.get('x-gw-cache')], [200, 'miss']);
  const hit = await chat(key, body, { 'x-gw-cache': 'on' });
  assert.equal([hit.status, hit.headers.get('x-gw-cache')], [200, 'hit']);
  assert.equal(await rowOf(hit.headers.get('x-request-id')), { provider: null, status: 200, cost_micros: half, billable: 1, cache_hit: 1 });
  const refused = await chat(key, body, { 'x-gw-cache': 'on' });
  assert.is(refused.status, 402);
  assert.is((await json(refused)).error.code, 'insufficient_credits');
  assert.is(openai.requests.length, 1, 'only the miss reached the provider');
  await waitForValue(() => (balanceOf(poor) === -1 ? true : null), 5_000, 'the balance to be spent to -1 micro-rupee');
});

test('a trial key\'s hit is free, even of an answer a standard key of its org paid for', async () => {
  const org = (await gw.cli('org', 'create', 'mixed')).id;
  const trial = await gw.cli('key', 'create', '--org', org, '--name', 'trial');
  await gw.cli('org', 'credit', org, '100');
  const standard = await gw.cli('key', 'create', '--org', org, '--name', 'standard');
  assert.equal([trial.tier, standard.tier], ['trial', 'standard']);
  const body = fresh();
  const paid = await chat(standard.key, body, { 'x-gw-cache': 'on' });
  assert.is(paid.headers.get('x-gw-cache'), 'miss');
  assert.ok(((await rowOf(paid.headers.get('x-request-id'))).cost_micros as number) > 0);
  const hit = await chat(trial.key, body, { 'x-gw-cache': 'on' });
  assert.is(hit.headers.get('x-gw-cache'), 'hit');
  assert.equal(await rowOf(hit.headers.get('x-request-id')), { provider: null, status: 200, cost_micros: 0, billable: 0, cache_hit: 1 });
});

test.run();
