// The native Anthropic upstream end to end: the real gateway, the official openai SDK as the
// client, and a mock Anthropic Messages API recording what it receives. Chat completions in,
// Anthropic's Messages API out, and back: plain, streamed, tool calls, failover on 529 and 429
// (through a routing chain to an OpenAI-compatible route), a 400 returned as it came, the ledger.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { query, waitForValue } from '../support/ledger.js';
import { MOCK_TEXT, MOCK_USAGE, startMockAnthropic, type MockAnthropic } from '../support/mock-anthropic.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { signIn } from '../support/session.js';
import { bearer, readSse } from '../support/wait.js';

let gw: GatewayProcess;
let anthropic: MockAnthropic;
let groq: MockProvider;
let key: string;
let client: OpenAI;

const MODEL = 'claude-sonnet-4-5';
const UPSTREAM = 'claude-sonnet-4-5-20250929';
/** Catalog prices of claude-sonnet-4-5, ₹ per 1M tokens (= micro-rupees per token): US$3 / US$15 at ₹88. */
const PRICE = { input: 264, output: 1320 };
// A long system prompt, as prompt caching needs (over 1,024 tokens): the cached counts the mock
// reports are then within what the request could have used.
const HANDBOOK = 'Clause: refunds are processed within seven working days of the request. '.repeat(150);
const MESSAGES = [
  { role: 'system' as const, content: HANDBOOK },
  { role: 'user' as const, content: 'How long do refunds take?' },
];
/** MOCK_USAGE as OpenAI counts it: every input token, cache reads and writes included. */
const PROMPT_TOKENS = MOCK_USAGE.input_tokens + MOCK_USAGE.cache_read_input_tokens + MOCK_USAGE.cache_creation_input_tokens;

const rowsOf = (requestId: string | null, n: number) => waitForValue(() => {
  const rows = query(gw.dbPath, (db) => db.prepare('SELECT * FROM usage WHERE request_id = ? ORDER BY attempt').all(requestId)) as any[];
  return rows.length >= n ? rows : null;
}, 5_000, `${n} ledger rows`);

test.before(async () => {
  anthropic = await startMockAnthropic();
  groq = await startMockProvider();
  gw = await startGateway({
    breaker: { volumeThreshold: 100_000 },
    providers: { anthropic: { baseUrl: anthropic.url, apiKey: 'sk-ant-test' }, groq: { baseUrl: groq.url, apiKey: 'sk-groq' } },
  });
  // A signed-in owner's org with a key: its routing chain sends claude-sonnet-4-5 to Anthropic first,
  // then to Llama on Groq (an OpenAI-compatible provider) when Anthropic cannot serve.
  const owner = await signIn(gw, 'owner@anthropic.example');
  const me = await (await owner.get('/me')).json() as any;
  await gw.cli('org', 'credit', me.org.id, '1000');
  key = (await (await owner.send('POST', '/me/keys', { name: 'claude' })).json() as any).key;
  const chain = await owner.send('PUT', `/me/routing/${MODEL}`, { steps: [{ provider: 'anthropic' }, { model: 'llama-3.3-70b-instruct', provider: 'groq' }] });
  assert.is(chain.status, 200, await chain.text());
  client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
test.after(async () => {
  await gw.cleanup();
  await anthropic.close();
  await groq.close();
});
test.before.each(() => {
  anthropic.reset();
  groq.reset();
});

test('a chat completion on a Claude model goes to /v1/messages with Anthropic\'s headers and comes back as chat.completion', async () => {
  const { data, response } = await client.chat.completions.create({ model: MODEL, messages: MESSAGES, max_tokens: 200 }).withResponse();
  assert.is(data.object, 'chat.completion');
  assert.is(data.model, MODEL);
  assert.is(data.choices[0].message.content, MOCK_TEXT);
  assert.is(data.choices[0].finish_reason, 'stop');
  assert.equal(data.usage as unknown, {
    prompt_tokens: PROMPT_TOKENS, completion_tokens: 9, total_tokens: PROMPT_TOKENS + 9,
    prompt_tokens_details: { cached_tokens: 1800, cache_write_tokens: 200 },
  });
  assert.is(response.headers.get('x-gw-provider'), 'anthropic');
  assert.is(response.headers.get('x-gw-upstream-model'), UPSTREAM);

  const up = anthropic.requests[0];
  assert.is(up.path, '/v1/messages');
  assert.is(up.headers['x-api-key'], 'sk-ant-test', 'the platform key, never the client\'s');
  assert.is(up.headers['anthropic-version'], '2023-06-01');
  assert.is(up.headers.authorization, undefined);
  assert.equal(up.body, {
    model: UPSTREAM, max_tokens: 200, system: [{ type: 'text', text: HANDBOOK }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'How long do refunds take?' }] }],
  });

  const [row] = await rowsOf(response.headers.get('x-gw-request-id'), 1);
  assert.equal([row.provider, row.route, row.status, row.billable, row.usage_estimated, row.usage_clamped], ['anthropic', `anthropic:${UPSTREAM}`, 200, 1, 0, 0]);
  assert.equal([row.prompt_tokens, row.completion_tokens], [PROMPT_TOKENS, 9], 'cache reads and writes are prompt tokens');
  assert.equal([row.cached_tokens, row.cache_write_tokens, row.reasoning_tokens], [1800, 200, 0]);
  // Anthropic's convention (input_tokens excludes the cache) billed once per class: 21 uncached at
  // ₹264, 1,800 read at ₹26.4 (0.1×), 200 written at ₹330 (1.25×), 9 out at ₹1,320 per 1M.
  assert.is(row.cost_micros, Math.round(21 * PRICE.input + 1800 * 26.4 + 200 * 330 + 9 * PRICE.output));
});

test('the ledger bills an uncached answer at the catalog price: input and output tokens × ₹264 / ₹1,320 per 1M', async () => {
  anthropic.enqueue({ kind: 'text', usage: { input_tokens: 1500, output_tokens: 350, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } });
  const { response } = await client.chat.completions.create({ model: MODEL, messages: MESSAGES, max_tokens: 400 }).withResponse();
  const [row] = await rowsOf(response.headers.get('x-gw-request-id'), 1);
  assert.equal([row.prompt_tokens, row.completion_tokens], [1500, 350]);
  assert.is(row.cost_micros, Math.round(1500 * PRICE.input + 350 * PRICE.output));
});

test('max_tokens is always sent: 4096 when the request gives none; max_completion_tokens wins over max_tokens', async () => {
  await client.chat.completions.create({ model: MODEL, messages: MESSAGES });
  await client.chat.completions.create({ model: MODEL, messages: MESSAGES, max_tokens: 50, max_completion_tokens: 70 });
  assert.equal(anthropic.requests.map((r) => r.body.max_tokens), [4096, 70]);
});

test('a stream through the SDK: text assembled, every chunk naming the model asked for, usage last when include_usage', async () => {
  const stream = await client.chat.completions.create({
    model: MODEL, messages: MESSAGES, stream: true, stream_options: { include_usage: true },
  });
  let text = '';
  let usage: any = null;
  let finish: string | null = null;
  for await (const chunk of stream) {
    assert.is(chunk.model, MODEL);
    if (chunk.usage) usage = chunk.usage;
    if (chunk.choices.length === 0) continue;
    text += chunk.choices[0].delta.content ?? '';
    finish = chunk.choices[0].finish_reason ?? finish;
  }
  assert.is(text, MOCK_TEXT);
  assert.is(finish, 'stop');
  assert.equal(usage, { prompt_tokens: PROMPT_TOKENS, completion_tokens: 9, total_tokens: PROMPT_TOKENS + 9,
    prompt_tokens_details: { cached_tokens: 1800, cache_write_tokens: 200 } });
  assert.is(anthropic.requests[0].body.stream, true);
  assert.is(anthropic.requests[0].body.stream_options, undefined, 'Anthropic always reports usage; OpenAI\'s option is not sent');
});

test('a stream without include_usage gets no usage chunk, but the ledger still has Anthropic\'s counts', async () => {
  const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: JSON.stringify({ model: MODEL, messages: MESSAGES, stream: true }) });
  assert.is(r.status, 200);
  const data = await readSse(r);
  assert.is(data[data.length - 1], '[DONE]');
  assert.not.ok(data.some((d) => d.includes('"usage"')));
  const [row] = await rowsOf(r.headers.get('x-gw-request-id'), 1);
  assert.equal([row.streamed, row.usage_estimated, row.prompt_tokens, row.completion_tokens], [1, 0, PROMPT_TOKENS, 9]);
});

test("turns of text are written from the client's bytes: each text arrives as the literal the client wrote, turns merged as Anthropic needs", async () => {
  // Escapes another serialiser would write differently: only a copy of the client's literal keeps them.
  const raw = '{"model":"claude-sonnet-4-5","messages":[{"role":"system","content":"Be brief \\u2013 always."},'
    + '{"role":"user","content":[{"type":"text","text":"caf\\u00e9 \\/ menu"},{"type":"text","text":""}]},'
    + '{"role":"user","content":"and \\"tea\\"?"}],"temperature":0.5,"stream":false,"stop":"END"}';
  const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: raw });
  assert.is(res.status, 200, await res.clone().text());
  assert.is(((await res.json()) as any).choices[0].message.content, MOCK_TEXT);
  const up = anthropic.requests[0];
  const sent = up.raw.toString('utf8');
  assert.ok(sent.includes('"text":"caf\\u00e9 \\/ menu"') && sent.includes('"text":"Be brief \\u2013 always."'), sent);
  assert.equal(up.body, {
    model: UPSTREAM, max_tokens: 4096, system: [{ type: 'text', text: 'Be brief – always.' }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'café / menu' }, { type: 'text', text: 'and "tea"?' }] }],
    stop_sequences: ['END'], temperature: 0.5,
  });
});

test("a redacted request is written from its redacted text, never from the client's bytes", async () => {
  const raw = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'My PAN is ABCPE1234F.' }] });
  const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { ...bearer(key), 'x-gw-guardrails': 'redact=pan' }, body: raw });
  assert.is(res.status, 200, await res.text());
  const up = anthropic.requests[0];
  assert.not.ok(up.raw.includes('ABCPE1234F'), up.raw.toString('utf8'));
  assert.equal(up.body.messages, [{ role: 'user', content: [{ type: 'text', text: 'My PAN is [REDACTED:pan].' }] }]);
});

test('tools round trip: a tool_use answer becomes tool_calls; the tool result goes back as a tool_result block', async () => {
  const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'refund_status', description: 'Status of a refund',
    parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } } }];
  anthropic.enqueue({ kind: 'tool', name: 'refund_status', input: { id: 'RF-1042' }, id: 'toolu_01RefundCheck', text: 'Let me check.' });
  const first = await client.chat.completions.create({ model: MODEL, messages: MESSAGES, tools, tool_choice: 'auto' });
  const call = first.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
  assert.is(first.choices[0].finish_reason, 'tool_calls');
  assert.equal([call.id, call.function.name, JSON.parse(call.function.arguments)], ['toolu_01RefundCheck', 'refund_status', { id: 'RF-1042' }]);
  assert.equal(anthropic.requests[0].body.tools, [{ name: 'refund_status', description: 'Status of a refund',
    input_schema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } }]);
  assert.equal(anthropic.requests[0].body.tool_choice, { type: 'auto' });

  anthropic.enqueue({ kind: 'text', text: 'Refund RF-1042 was paid on Monday.' });
  const second = await client.chat.completions.create({ model: MODEL, tools, messages: [
    ...MESSAGES, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: 'paid 2026-11-23' },
  ] });
  assert.is(second.choices[0].message.content, 'Refund RF-1042 was paid on Monday.');
  const sent = anthropic.requests[1].body.messages;
  assert.equal(sent.map((m: any) => m.role), ['user', 'assistant', 'user']);
  assert.equal(sent[1].content, [{ type: 'text', text: 'Let me check.' },
    { type: 'tool_use', id: 'toolu_01RefundCheck', name: 'refund_status', input: { id: 'RF-1042' } }]);
  assert.equal(sent[2].content, [{ type: 'tool_result', tool_use_id: 'toolu_01RefundCheck', content: [{ type: 'text', text: 'paid 2026-11-23' }] }]);
});

test('a streamed tool call: the SDK assembles the id, name and arguments from input_json_delta', async () => {
  anthropic.enqueue({ kind: 'tool', name: 'refund_status', input: { id: 'RF-7', note: 'नमस्ते' }, id: 'toolu_01Streamed' });
  const stream = client.chat.completions.stream({ model: MODEL, messages: MESSAGES, stream: true,
    tools: [{ type: 'function', function: { name: 'refund_status', parameters: { type: 'object' } } }] });
  const done = await stream.finalChatCompletion();
  const call = done.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
  assert.equal([call.id, call.function.name, JSON.parse(call.function.arguments)], ['toolu_01Streamed', 'refund_status', { id: 'RF-7', note: 'नमस्ते' }]);
  assert.is(done.choices[0].finish_reason, 'tool_calls');
});

test('upstream_key: the caller\'s own Anthropic key goes in x-api-key, the call is unbilled, and its 401 comes back as is', async () => {
  const body = JSON.stringify({ model: MODEL, messages: MESSAGES, provider: 'anthropic', upstream_key: 'sk-ant-caller-0001' });
  const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body });
  assert.is(r.status, 200);
  assert.is(anthropic.requests[0].headers['x-api-key'], 'sk-ant-caller-0001');
  assert.is(anthropic.requests[0].body.upstream_key, undefined, 'the extension field never leaves the gateway');
  const [row] = await rowsOf(r.headers.get('x-gw-request-id'), 1);
  assert.equal([row.byok, row.cost_micros, row.prompt_tokens], [1, 0, PROMPT_TOKENS]);

  anthropic.enqueue({ kind: 'error', status: 401, type: 'authentication_error', message: 'invalid x-api-key' });
  const refused = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body });
  assert.is(refused.status, 401);
  assert.match((await refused.json() as any).error.message, 'invalid x-api-key');
  assert.is(groq.requests.length, 0, 'the caller\'s key is the caller\'s problem: no failover');
});

for (const [status, type, code] of [[529, 'overloaded_error', 'upstream_error'], [429, 'rate_limit_error', 'upstream_rate_limited']] as const) {
  test(`${status} ${type} fails over to the chain's next route; both attempts are in the ledger, billed once`, async () => {
    anthropic.enqueue({ kind: 'error', status, type, message: status === 529 ? 'Overloaded' : 'Number of request tokens has exceeded your per-minute rate limit' });
    const { data, response } = await client.chat.completions.create({ model: MODEL, messages: MESSAGES }).withResponse();
    assert.is(response.headers.get('x-gw-provider'), 'groq');
    assert.is(data.choices[0].message.content, 'mock reply');
    assert.equal([anthropic.requests.length, groq.requests.length], [1, 1]);
    const rows = await rowsOf(response.headers.get('x-gw-request-id'), 2);
    assert.equal(rows.map((r: any) => [r.attempt, r.provider, r.status, r.error_code, r.billable]),
      [[0, 'anthropic', status, code, 0], [1, 'groq', 200, null, 1]]);
    assert.is(rows[0].cost_micros, 0);
  });
}

test('a 529 before a stream starts fails over too: the client gets one clean stream from the next route', async () => {
  anthropic.enqueue({ kind: 'error', status: 529, type: 'overloaded_error', message: 'Overloaded' });
  const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: JSON.stringify({ model: MODEL, messages: MESSAGES, stream: true }) });
  assert.is(r.headers.get('x-gw-provider'), 'groq');
  const data = await readSse(r);
  assert.is(data[data.length - 1], '[DONE]');
  assert.not.ok(data.some((d) => d.includes('"error"')));
});

test('an overloaded_error event before any text (after message_start and a ping) fails over like a 529', async () => {
  anthropic.enqueue({ kind: 'stream-error', afterEvents: 3, type: 'overloaded_error', message: 'Overloaded' });
  const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: JSON.stringify({ model: MODEL, messages: MESSAGES, stream: true }) });
  assert.is(r.headers.get('x-gw-provider'), 'groq');
  const data = await readSse(r);
  assert.is(data[data.length - 1], '[DONE]');
  assert.not.ok(data.some((d) => d.includes('"error"')));
  const rows = await rowsOf(r.headers.get('x-gw-request-id'), 2);
  assert.equal(rows.map((row: any) => [row.provider, row.billable]), [['anthropic', 0], ['groq', 1]]);
});

test('400 invalid_request_error comes back as it is, with Anthropic\'s message, and no other route is tried', async () => {
  anthropic.enqueue({ kind: 'error', status: 400, type: 'invalid_request_error', message: 'messages.0.content.0.text: prompt is too long: 210000 tokens > 200000 maximum' });
  const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: JSON.stringify({ model: MODEL, messages: MESSAGES }) });
  assert.is(r.status, 400);
  const body = await r.json() as any;
  assert.is(body.error.type, 'invalid_request_error');
  assert.match(body.error.message, 'prompt is too long: 210000 tokens > 200000 maximum');
  assert.is(groq.requests.length, 0);
  const [row] = await rowsOf(r.headers.get('x-gw-request-id'), 1);
  assert.equal([row.provider, row.status, row.billable], ['anthropic', 400, 0]);
});

test('a temperature Anthropic refuses (above 1) is its 400, returned to the caller', async () => {
  const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: JSON.stringify({ model: MODEL, messages: MESSAGES, temperature: 1.5 }) });
  assert.is(r.status, 400);
  assert.match((await r.json() as any).error.message, 'temperature');
  assert.equal([anthropic.requests.length, groq.requests.length], [1, 0]);
});

test('a content part Anthropic cannot take is refused by the gateway with 400 bad_request before any call', async () => {
  const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: JSON.stringify({
    model: MODEL, messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }],
  }) });
  assert.is(r.status, 400);
  const body = await r.json() as any;
  assert.equal([body.error.code, body.error.message.includes("'messages[0].content[0].type'")], ['bad_request', true]);
  assert.equal([anthropic.requests.length, groq.requests.length], [0, 0]);
});

for (const [what, behavior] of [
  ['an error event', { kind: 'stream-error', afterEvents: 4, type: 'overloaded_error', message: 'Overloaded' }],
  ['a cut connection', { kind: 'cut', afterEvents: 4 }],
] as const) {
  test(`a stream broken mid-way by ${what} ends with the gateway's error event, never a clean end`, async () => {
    anthropic.enqueue(behavior);
    const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: JSON.stringify({ model: MODEL, messages: MESSAGES, stream: true }) });
    assert.is(r.status, 200);
    const data = await readSse(r);
    const chunks = data.filter((d) => d !== '[DONE]').map((d) => JSON.parse(d));
    assert.is(chunks[1].choices[0].delta.content, 'Namaste! ', 'what arrived before the break is passed on');
    const last = chunks[chunks.length - 1];
    assert.is(last.error?.code, 'stream_interrupted', JSON.stringify(last));
    assert.not.ok(chunks.some((c) => c.choices?.[0]?.finish_reason), 'no finish reason: the answer never completed');
    const [row] = await rowsOf(r.headers.get('x-gw-request-id'), 1);
    assert.equal([row.provider, row.error_code], ['anthropic', 'stream_interrupted']);
    // Billed for what was generated before the break, estimated from the text the client got.
    assert.equal([row.usage_estimated, row.completion_tokens > 0], [1, true], JSON.stringify(row));
  });
}

test('the official SDK sees a broken stream as an error, not a short answer', async () => {
  anthropic.enqueue({ kind: 'stream-error', afterEvents: 5, type: 'overloaded_error', message: 'Overloaded' });
  const stream = await client.chat.completions.create({ model: MODEL, messages: MESSAGES, stream: true });
  let text = '';
  const failed = await (async () => {
    try {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      return null;
    } catch (e) {
      return e as Error;
    }
  })();
  assert.ok(failed, `the stream ended cleanly after ${JSON.stringify(text)}`);
  assert.ok(text.length > 0 && text.length < MOCK_TEXT.length);
});

test.run();
