// Provider prompt caching through the real gateway to a mock Anthropic Messages API: with
// `cache: "auto"` the gateway marks the long stable prefix (the last tool, the last system block)
// with cache_control, on chat completions (translated) and on /v1/messages (native); without it,
// or on a short prefix, or when the client marked its own breakpoints, the body goes unmarked.
// The cached counts the provider reports are billed at the cached and cache-write prices.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { query, waitForValue } from '../support/ledger.js';
import { MOCK_USAGE, startMockAnthropic, type MockAnthropic } from '../support/mock-anthropic.js';
import { bearer } from '../support/wait.js';

let gw: GatewayProcess;
let auto: GatewayProcess;
let anthropic: MockAnthropic;
let key: string;
let autoKey: string;

const MODEL = 'claude-sonnet-4-5';
const HANDBOOK = 'Clause: refunds are processed within seven working days of the request. '.repeat(150);
const TOOLS = Array.from({ length: 3 }, (_, i) => ({
  type: 'function' as const,
  function: { name: `lookup_${i}`, description: 'Looks up an order by its id and returns its status. '.repeat(25),
    parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
}));
const LONG = [{ role: 'system' as const, content: HANDBOOK }, { role: 'user' as const, content: 'How long do refunds take?' }];

async function keyFor(g: GatewayProcess): Promise<string> {
  const org = (await g.cli('org', 'create', 'cache', '--credit', '100')).id;
  return (await g.cli('key', 'create', '--org', org, '--name', 'k')).key;
}

test.before(async () => {
  anthropic = await startMockAnthropic();
  const providers = { anthropic: { baseUrl: anthropic.url, apiKey: 'sk-ant-test' } };
  [gw, auto] = await Promise.all([startGateway({ providers }), startGateway({ providers, promptCache: { auto: true } })]);
  [key, autoKey] = await Promise.all([keyFor(gw), keyFor(auto)]);
});
test.after(async () => {
  await Promise.all([gw.cleanup(), auto.cleanup()]);
  await anthropic.close();
});

const chat = (k: string, g: GatewayProcess, body: Record<string, unknown>) => fetch(`${g.url}/v1/chat/completions`, {
  method: 'POST', headers: bearer(k), body: JSON.stringify({ model: MODEL, max_tokens: 50, ...body }),
});
const lastBody = () => anthropic.requests[anthropic.requests.length - 1].body;
const markers = (b: any) => ({
  tools: (b.tools ?? []).map((t: any) => t.cache_control?.type ?? null),
  system: Array.isArray(b.system) ? b.system.map((s: any) => s.cache_control?.type ?? null) : b.system === undefined ? [] : ['string'],
});

test('cache: "auto" on a chat completion marks the last tool and the last system block; the extension never reaches the provider', async () => {
  const r = await chat(key, gw, { messages: LONG, tools: TOOLS, cache: 'auto' });
  assert.is(r.status, 200, await r.text());
  const b = lastBody();
  assert.equal(markers(b), { tools: [null, null, 'ephemeral'], system: ['ephemeral'] });
  assert.is(b.cache, undefined);
  assert.is(JSON.stringify(b.messages).includes('cache_control'), false, 'the conversation itself is not marked');
});

test('without the extension nothing is marked; a short prefix is not marked; a client that marked its own breakpoints is left alone', async () => {
  assert.is((await chat(key, gw, { messages: LONG, tools: TOOLS })).status, 200);
  assert.equal(markers(lastBody()), { tools: [null, null, null], system: [null] });
  assert.is((await chat(key, gw, { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }], cache: 'auto' })).status, 200);
  assert.equal(markers(lastBody()), { tools: [], system: [null] });
  const own = [{ ...TOOLS[0], cache_control: { type: 'ephemeral' } }, TOOLS[1]];
  assert.is((await chat(key, gw, { messages: LONG, tools: own, cache: 'auto' })).status, 200);
  assert.equal(markers(lastBody()), { tools: ['ephemeral', null], system: [null] });
});

test('a bad cache value is refused 400 in the route\'s shape, naming the field', async () => {
  const r = await chat(key, gw, { messages: LONG, cache: 'always' });
  assert.is(r.status, 400);
  const e = (await r.json() as { error: { code: string; message: string } }).error;
  assert.is(e.code, 'bad_request');
  assert.match(e.message, /Invalid 'cache'/);
  const m = await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: { ...bearer(key), 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: MODEL, max_tokens: 10, cache: true, messages: [{ role: 'user', content: 'Hi' }] }) });
  assert.is(m.status, 400);
  const body = await m.json() as { type: string; error: { type: string; message: string } };
  assert.is(body.type, 'error');
  assert.match(body.error.message, /Invalid 'cache'/);
});

test('/v1/messages from the Anthropic SDK with cache: "auto": the native body is marked (a string system prompt becomes one marked block)', async () => {
  const client = new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
  const msg = await client.messages.create({
    model: 'claude-sonnet-5', max_tokens: 50, system: HANDBOOK, messages: [{ role: 'user', content: 'How long do refunds take?' }],
    // @ts-expect-error the gateway's extension, not in Anthropic's types
    cache: 'auto',
  });
  assert.is(msg.type, 'message');
  const b = lastBody();
  assert.equal(b.system, [{ type: 'text', text: HANDBOOK, cache_control: { type: 'ephemeral' } }]);
  assert.is(b.cache, undefined);
});

test('/v1/responses with cache: "auto": long instructions become the marked system block', async () => {
  const r = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: bearer(key),
    body: JSON.stringify({ model: MODEL, instructions: HANDBOOK, input: 'How long do refunds take?', store: false, cache: 'auto' }) });
  assert.is(r.status, 200, await r.text());
  assert.equal(markers(lastBody()), { tools: [], system: ['ephemeral'] });
});

test('promptCache.auto marks every request; the cached and cache-write tokens the provider reports are billed at their prices', async () => {
  const client = new OpenAI({ apiKey: autoKey, baseURL: `${auto.url}/v1`, maxRetries: 0 });
  const { data, response } = await client.chat.completions.create({ model: MODEL, messages: LONG, max_tokens: 50 }).withResponse();
  assert.equal(markers(lastBody()), { tools: [], system: ['ephemeral'] });
  const id = response.headers.get('x-request-id');
  const row = await waitForValue(() => query(auto.dbPath, (db) => db.prepare(
    'SELECT prompt_tokens, cached_tokens, cache_write_tokens, cost_micros FROM usage WHERE request_id = ?').get(id)) as Record<string, number> | undefined,
  5_000, 'the ledger row');
  const { input_tokens: fresh, cache_read_input_tokens: read, cache_creation_input_tokens: write, output_tokens: out } = MOCK_USAGE;
  assert.equal(row, { prompt_tokens: fresh + read + write, cached_tokens: read, cache_write_tokens: write,
    // claude-sonnet-4-5, micro-rupees per token: input 264, cached input 26.4, cache write 330, output 1,320.
    cost_micros: Math.round(fresh * 264 + read * 26.4 + write * 330 + out * 1320) });
  assert.is(data.usage?.prompt_tokens_details?.cached_tokens, read);
});

test.run();
