import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { MAIN_JS, query, waitForValue } from '../support/ledger.js';
import { startMockProvider, type MockProvider, type MockUsage } from '../support/mock-provider.js';
import { signIn, type Browser } from '../support/session.js';

// OpenAI's convention, through the real gateway: cached tokens are part of prompt_tokens and
// reasoning tokens part of completion_tokens. gpt-4o-mini at ₹88/$: input ₹13.2, cached input
// ₹6.6, output ₹52.8 per 1M tokens (catalog.json), which are micro-rupees per token.
const USAGE: MockUsage = { prompt_tokens: 2_000, completion_tokens: 300, cached_tokens: 1_500, reasoning_tokens: 120 };
// Billed: 500 uncached × 13.2 + 1,500 cached × 6.6 + 300 × 52.8 = 6,600 + 9,900 + 15,840 = 32,340 micro-rupees
// (the 120 reasoning tokens are inside the 300).
const run = promisify(execFile);

let gw: GatewayProcess;
let openai: MockProvider;
let alice: Browser;
let orgId: string;
let keyId: string;
let client: OpenAI;

// The prompt must be long enough for 2,000 tokens to be believable (usage-bounds: bytes + 1,024).
const messages = [{ role: 'user' as const, content: 'A long shared system context that the provider caches. '.repeat(40) }];

const rowOf = (requestId: string) => query(gw.dbPath, (db) => db.prepare(`SELECT prompt_tokens, completion_tokens, cached_tokens,
  cache_write_tokens, reasoning_tokens, cost_micros, usage_clamped, usage_estimated, streamed FROM usage WHERE request_id = ?`).get(requestId)) as
  Record<string, number> | undefined;
const balance = () => query(gw.dbPath, (db) => db.prepare('SELECT balance_micros FROM orgs WHERE id = ?').pluck().get(orgId) as number);

async function getOk(path: string): Promise<any> {
  const r = await alice.get(path);
  const body = await r.json();
  assert.is(r.status, 200, `${path}: ${JSON.stringify(body)}`);
  return body;
}

test.before(async () => {
  openai = await startMockProvider();
  gw = await startGateway({ providers: { openai: { baseUrl: openai.url, apiKey: 'sk-mock' } } });
  alice = await signIn(gw, 'alice@cache.example');
  orgId = (await getOk('/me')).org.id;
  await gw.cli('org', 'credit', orgId, '100');
  const k = await gw.cli('key', 'create', '--org', orgId, '--name', 'cached');
  keyId = k.id;
  client = new OpenAI({ apiKey: k.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
test.after(async () => {
  await gw.cleanup();
  await openai.close();
});

let plainId: string;
let streamId: string;
let clampedId: string;

test('a plain answer with 1,500 of 2,000 prompt tokens cached is billed 32,340 micro-rupees, the parts in their own ledger columns', async () => {
  openai.setDefault({ kind: 'ok', usage: USAGE });
  const before = balance();
  const { data, response } = await client.chat.completions.create({ model: 'gpt-4o-mini', messages }).withResponse();
  plainId = response.headers.get('x-gw-request-id')!;
  assert.is(data.usage!.prompt_tokens_details!.cached_tokens, 1_500, 'the provider\'s usage reaches the client as it was');
  assert.is(data.usage!.completion_tokens_details!.reasoning_tokens, 120);
  await waitForValue(() => rowOf(plainId), 5_000, 'the ledger row');
  assert.equal(rowOf(plainId), {
    prompt_tokens: 2_000, completion_tokens: 300, cached_tokens: 1_500, cache_write_tokens: 0, reasoning_tokens: 120,
    cost_micros: 32_340, usage_clamped: 0, usage_estimated: 0, streamed: 0,
  });
  assert.is(before - balance(), 32_340, 'debited the discounted cost, not 42,240 (no discount) nor 52,140 (cached billed twice)');
});

test('the same usage in the final chunk of a stream is billed and recorded the same way', async () => {
  openai.setDefault({ kind: 'stream', chunks: 3, usage: USAGE });
  const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true, stream_options: { include_usage: true } })
    .withResponse();
  streamId = stream.response.headers.get('x-gw-request-id')!;
  let usage: OpenAI.CompletionUsage | null | undefined = null;
  for await (const chunk of stream.data) if (chunk.usage) usage = chunk.usage;
  assert.is(usage?.prompt_tokens_details?.cached_tokens, 1_500);
  await waitForValue(() => rowOf(streamId), 5_000, 'the ledger row');
  assert.equal(rowOf(streamId), {
    prompt_tokens: 2_000, completion_tokens: 300, cached_tokens: 1_500, cache_write_tokens: 0, reasoning_tokens: 120,
    cost_micros: 32_340, usage_clamped: 0, usage_estimated: 0, streamed: 1,
  });
});

test('a provider reporting more cached tokens than prompt tokens is billed at most all-cached, and the row is marked clamped', async () => {
  openai.setDefault({ kind: 'ok', usage: { prompt_tokens: 2_000, completion_tokens: 300, cached_tokens: 2_500 } });
  const { response } = await client.chat.completions.create({ model: 'gpt-4o-mini', messages }).withResponse();
  const id = response.headers.get('x-gw-request-id')!;
  await waitForValue(() => rowOf(id), 5_000, 'the ledger row');
  const row = rowOf(id)!;
  // 2,000 × 6.6 + 300 × 52.8 = 13,200 + 15,840: never 2,000 − 2,500 uncached input at ₹13.2.
  assert.equal([row.prompt_tokens, row.cached_tokens, row.cost_micros, row.usage_clamped], [2_000, 2_000, 29_040, 1]);
  clampedId = id;
});

test('/me/activity, /me/usage and the events feed show cached, cache-write and reasoning tokens', async () => {
  const activity = await getOk('/me/activity');
  assert.is(activity.totals.requests, 3);
  assert.is(activity.totals.prompt_tokens, 6_000);
  assert.is(activity.totals.cached_tokens, 1_500 * 2 + 2_000);
  assert.is(activity.totals.cache_write_tokens, 0);
  assert.is(activity.totals.reasoning_tokens, 240, 'the clamped request reported no reasoning');
  assert.is(activity.totals.cost, 0.09372, '32,340 × 2 + 29,040 micro-rupees');
  assert.is(activity.top_models[0].cached_tokens, 5_000);
  assert.is(activity.daily[0].reasoning_tokens, 240);
  const usage = await getOk('/me/usage');
  const mine = usage.data.find((k: any) => k.id === keyId);
  assert.equal([mine.today.cached_tokens, mine.today.reasoning_tokens, mine.today.cache_write_tokens], [5_000, 240, 0]);
  const events = await getOk('/me/activity/events?limit=3');
  const byId = new Map(events.data.map((e: any) => [e.request_id, e]));
  const plain = byId.get(plainId) as any;
  assert.equal([plain.prompt_tokens, plain.cached_tokens, plain.cache_write_tokens, plain.completion_tokens, plain.reasoning_tokens, plain.cost],
    [2_000, 1_500, 0, 300, 120, 0.03234]);
  assert.is((byId.get(streamId) as any).cached_tokens, 1_500);
  assert.is((byId.get(clampedId) as any).usage_clamped, true);
});

test('gw tail shows the cached and reasoning tokens of a row that has them', async () => {
  const { stdout } = await run(process.execPath, [MAIN_JS, '--config', gw.configPath, 'tail', '--key', keyId, '-n', '3', '--no-follow'],
    { env: { ...process.env, GW_CONFIG: '' } });
  const line = stdout.split('\n').find((l) => l.includes(plainId))!;
  assert.match(line, / cached=1500 reasoning=120$/);
  assert.not.match(line, /cache_write=/, 'a zero part is not shown');
});

test('/v1/models shows gpt-4o-mini\'s cached-input price beside input and output', async () => {
  const model = await (await fetch(`${gw.url}/v1/models/gpt-4o-mini`)).json() as any;
  assert.equal(model.pricing, { currency: 'INR', unit: 'per_1m_tokens', input: 13.2, output: 52.8, cached_input: 6.6 });
  assert.equal(model.routes[0].pricing, { input: 13.2, output: 52.8, cached_input: 6.6 });
  const llama = await (await fetch(`${gw.url}/v1/models/llama-3.3-70b-instruct`)).json() as any;
  assert.not.ok('cached_input' in llama.pricing, 'absent where the catalog has none');
  const llms = await (await fetch(`${gw.url}/llms.txt`)).text();
  assert.match(llms, /gpt-4o-mini: .*₹13\.2 in \(cached ₹6\.6\) \/ ₹52\.8 out per 1M tokens/);
});

test('a stream whose client did not ask for usage (its usage chunk dropped) is billed from that chunk all the same', async () => {
  openai.setDefault({ kind: 'stream', chunks: 3, includeUsage: 'always', usage: USAGE });
  const r = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST', headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages, stream: true }),
  });
  const text = await r.text();
  assert.not.match(text, /cached_tokens/, 'the client was not sent the usage it did not ask for');
  const id = r.headers.get('x-gw-request-id')!;
  await waitForValue(() => rowOf(id), 5_000, 'the ledger row');
  assert.equal([rowOf(id)!.cached_tokens, rowOf(id)!.reasoning_tokens, rowOf(id)!.cost_micros], [1_500, 120, 32_340]);
});

test.run();
