// Inbound formats against native providers: the Anthropic Messages API passed through to
// Anthropic untouched (its bytes both ways), translated to Gemini and to an OpenAI-compatible
// provider, and failing over from Anthropic to an OpenAI-compatible route within one request.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText as aiStreamText } from 'ai';
import { ChatOpenAI } from '@langchain/openai';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { query, waitForValue } from '../support/ledger.js';
import { MOCK_TEXT, MOCK_USAGE, startMockAnthropic, type MockAnthropic } from '../support/mock-anthropic.js';
import { DEFAULT_TEXT, startMockGemini, type MockGemini } from '../support/mock-gemini.js';
import { startMockProvider, streamText, type MockProvider } from '../support/mock-provider.js';
import { signIn } from '../support/session.js';

let gw: GatewayProcess;
let anthropic: MockAnthropic;
let gemini: MockGemini;
let groq: MockProvider;
let key: string;
let client: Anthropic;
let openai: OpenAI;

const CLAUDE = 'claude-sonnet-4-5';
const CLAUDE_UPSTREAM = 'claude-sonnet-4-5-20250929';
// Long enough that the mock's cache counts are within what the request could have used.
const HANDBOOK = 'Clause: refunds are processed within seven working days of the request. '.repeat(150);

const rowsOf = (requestId: string | null, n: number): Promise<any[]> => waitForValue(() => {
  const rows = query(gw.dbPath, (db) => db.prepare('SELECT * FROM usage WHERE request_id = ? ORDER BY attempt').all(requestId)) as any[];
  return rows.length >= n ? rows : null;
}, 5_000, `${n} ledger rows`);

test.before(async () => {
  anthropic = await startMockAnthropic();
  gemini = await startMockGemini();
  groq = await startMockProvider();
  gw = await startGateway({
    breaker: { volumeThreshold: 100_000 },
    providers: {
      anthropic: { baseUrl: anthropic.url, apiKey: 'sk-ant-test' },
      gemini: { baseUrl: gemini.url, apiKey: 'gm-test-key' },
      groq: { baseUrl: groq.url, apiKey: 'sk-groq' },
    },
  });
  const owner = await signIn(gw, 'owner@formats.example');
  const me = await (await owner.get('/me')).json() as any;
  await gw.cli('org', 'credit', me.org.id, '1000');
  key = (await (await owner.send('POST', '/me/keys', { name: 'formats' })).json() as any).key;
  // claude-sonnet-4-5 falls over to Llama on Groq when Anthropic cannot serve.
  const chain = await owner.send('PUT', `/me/routing/${CLAUDE}`, { steps: [{ provider: 'anthropic' }, { model: 'llama-3.3-70b-instruct', provider: 'groq' }] });
  assert.is(chain.status, 200, await chain.text());
  client = new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
  openai = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
test.after(async () => {
  await gw.cleanup();
  await anthropic.close();
  await gemini.close();
  await groq.close();
});
test.before.each(() => {
  anthropic.reset();
  gemini.reset();
  groq.reset();
});

const BETA = 'context-management-2025-06-27, interleaved-thinking-2025-05-14';
const cachedSystem = [{ type: 'text' as const, text: HANDBOOK, cache_control: { type: 'ephemeral' as const } }];

test('a Messages request to an Anthropic route is sent as the client wrote it, and its answer comes back byte for byte', async () => {
  const body = {
    model: CLAUDE, max_tokens: 300, system: cachedSystem, metadata: { user_id: 'u-42' },
    messages: [{ role: 'user', content: 'How long do refunds take?' }],
    // A field the chat translation does not carry: only a pass-through keeps it.
    thinking: { type: 'enabled', budget_tokens: 1024 }, data_policy: 'no_training',
  };
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01', 'anthropic-beta': BETA },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  assert.is(res.status, 200, text);
  assert.is(anthropic.requests[0].headers['anthropic-beta'], BETA, 'the beta flags the body may need go with it');
  assert.is(res.headers.get('x-gw-provider'), 'anthropic');
  const sent = anthropic.requests[0].body;
  const { data_policy: _dropped, ...expected } = body;
  assert.equal(sent, { ...expected, model: CLAUDE_UPSTREAM }, 'the body as written, model swapped, extension fields out');
  const msg = JSON.parse(text);
  assert.match(msg.id, /^msg_mock/, "the provider's own message id: its bytes, not a translation");
  assert.is(msg.model, CLAUDE_UPSTREAM);
  assert.equal(msg.content, [{ type: 'text', text: MOCK_TEXT }]);
  assert.equal(msg.usage, { ...MOCK_USAGE });
  const [row] = await rowsOf(res.headers.get('x-request-id'), 1);
  assert.is(row.prompt_tokens, MOCK_USAGE.input_tokens + MOCK_USAGE.cache_read_input_tokens + MOCK_USAGE.cache_creation_input_tokens);
  assert.is(row.completion_tokens, MOCK_USAGE.output_tokens);
  assert.is(row.provider, 'anthropic');
});

test('Claude Code\'s 200 KB turn reaches the Anthropic route as its own bytes: only the model id changed and the gateway\'s member cut', async () => {
  const turn = 'Refactor the billing module.\n\t"quoted" é 😀 '.repeat(4000);
  const written = `{ "model" : "${CLAUDE}", "max_tokens": 64, "data_policy": "no_training",\n "messages": [{"role":"user","content":[{"type":"text","text":${JSON.stringify(turn)}}]}],\n "system": "Be brief \\u0041" }`;
  const res = await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: written });
  assert.is(res.status, 200, await res.text());
  const raw = anthropic.requests[0].raw.toString('utf8');
  // The client's spacing, escapes and order, byte for byte, around the two edits (a cut member
  // goes with everything up to the next one's key).
  const expected = written.replace(`"${CLAUDE}"`, `"${CLAUDE_UPSTREAM}"`).replace('"data_policy": "no_training",\n ', '');
  assert.ok(raw === expected, `sent ${raw.length} bytes, not the ${expected.length} expected: ${raw.slice(0, 120)}`);
});

test('a content block or tool chat has no place for reaches an Anthropic route; on a failover to another provider it is refused as 400', async () => {
  const body = {
    model: CLAUDE, max_tokens: 64,
    messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'The policy.' } }, { type: 'text', text: 'Summarise.' }] }],
    tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 2 }],
  };
  const post = () => fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) });
  const served = await post();
  assert.is(served.status, 200, await served.text());
  assert.equal(anthropic.requests[0].body.tools, body.tools, 'Anthropic\'s own server tool, as written');
  // Streamed, likewise: nothing translates it (message_start's estimate is the translation's, and a passed-through stream has none).
  const streamed = await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ ...body, stream: true }) });
  const events = await streamed.text();
  assert.is(streamed.status, 200, events);
  assert.ok(events.includes('event: message_stop'), events.slice(0, 300));
  assert.not.ok(events.includes('event: error'), events.slice(-300));
  anthropic.enqueue({ kind: 'error', status: 529, type: 'overloaded_error', message: 'Overloaded' });
  const failedOver = await post();
  assert.is(failedOver.status, 400);
  const e = await failedOver.json() as any;
  assert.is(e.type, 'error');
  assert.is(e.error.type, 'invalid_request_error');
  assert.match(e.error.message, /'document' at 'messages\.0\.content\.0'/);
  assert.is(groq.requests.length, 0, 'nothing the provider could not read was sent to it');
});

test('a guarded Messages request reaches its Anthropic route natively with its text redacted; guarded answers are translated and checked', async () => {
  const post = (guardrails: string) => fetch(`${gw.url}/v1/messages`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key, 'x-gw-guardrails': guardrails },
    body: JSON.stringify({ model: CLAUDE, max_tokens: 50, system: [{ type: 'text', text: 'Customer PAN ABCPE1234F' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'My Aadhaar is 2341 2341 2346' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'kyc', input: { ids: { pan: 'ABCPE1234F' } } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'PAN ABCPE1234F verified' }] }] }] }),
  });
  const res = await post('redact=india');
  assert.is(res.status, 200, await res.text());
  const sent = anthropic.requests[0].body;
  assert.equal(sent.system, [{ type: 'text', text: 'Customer PAN [REDACTED:pan]' }]);
  assert.equal(sent.messages[0].content, [{ type: 'text', text: 'My Aadhaar is [REDACTED:aadhaar]' }]);
  assert.equal(sent.messages[1].content[0].input, { ids: { pan: '[REDACTED:pan]' } });
  assert.equal(sent.messages[2].content[0].content, [{ type: 'text', text: 'PAN [REDACTED:pan] verified' }]);
  assert.is(res.headers.get('x-gw-guardrails'), 'redacted=aadhaar,pan');

  anthropic.reset();
  anthropic.enqueue({ kind: 'text', text: 'Your PAN on file is ABCPE1234F.' });
  const checked = await post('redact=pan;outputs');
  const msg = await checked.json() as any;
  assert.is(checked.status, 200);
  assert.equal(msg.content, [{ type: 'text', text: 'Your PAN on file is [REDACTED:pan].' }], 'checked, not passed through unread');
});

test("a streamed Messages request to an Anthropic route relays Anthropic's own events, and the ledger has its usage", async () => {
  const stream = client.messages.stream({ model: CLAUDE, max_tokens: 300, system: cachedSystem, messages: [{ role: 'user', content: 'Refunds?' }] });
  const events: string[] = [];
  stream.on('streamEvent', (e) => events.push(e.type));
  const msg = await stream.finalMessage();
  assert.match(msg.id, /^msg_mock/);
  assert.equal(msg.content, [{ type: 'text', text: MOCK_TEXT }]);
  assert.is(msg.usage.cache_read_input_tokens, MOCK_USAGE.cache_read_input_tokens);
  assert.is(events[0], 'message_start');
  assert.is(events[events.length - 1], 'message_stop');
  assert.is(anthropic.requests[0].body.stream, true);
  const { request_id: requestId } = await waitForValue(() => query(gw.dbPath, (db) =>
    db.prepare("SELECT request_id FROM usage WHERE provider = 'anthropic' AND streamed = 1 ORDER BY id DESC LIMIT 1").get()) as any, 5_000, 'a row');
  const [row] = await rowsOf(requestId, 1);
  assert.is(row.status, 200);
  assert.is(row.completion_tokens, MOCK_USAGE.output_tokens);
});

test('a passed-through Anthropic stream that is cut ends with an Anthropic error event, never message_stop', async () => {
  anthropic.enqueue({ kind: 'cut', afterEvents: 4 });
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ model: CLAUDE, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.is(res.status, 200);
  const text = await res.text();
  assert.ok(text.startsWith('event: message_start'), text.slice(0, 200));
  assert.not.ok(text.includes('message_stop'), text);
  assert.match(text, /event: error\ndata: \{"type":"error","error":\{"type":"api_error"/);
  const [row] = await rowsOf(res.headers.get('x-request-id'), 1);
  assert.is(row.error_code, 'stream_interrupted');
});

test('a Messages request whose Anthropic route is overloaded fails over to an OpenAI-compatible route: one answer, billed once', async () => {
  anthropic.enqueue({ kind: 'error', status: 529, type: 'overloaded_error', message: 'Overloaded' });
  const { data: msg, response } = await client.messages.create({ model: CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] })
    .withResponse();
  assert.match(msg.id, /^msg_/);
  assert.is(msg.model, CLAUDE);
  assert.is(msg.content[0].type, 'text');
  assert.is(anthropic.requests.length, 1);
  assert.is(groq.requests.length, 1);
  assert.is(groq.requests[0].body.model, 'llama-3.3-70b-versatile');
  const rows = await rowsOf(response.headers.get('x-request-id'), 2);
  assert.equal(rows.map((r) => [r.provider, r.status, r.billable]), [['anthropic', 529, 0], ['groq', 200, 1]]);
});

test('a streamed Messages request that fails over from Anthropic streams the OpenAI-compatible answer as Anthropic events', async () => {
  anthropic.enqueue({ kind: 'error', status: 529, type: 'overloaded_error', message: 'Overloaded' });
  groq.enqueue({ kind: 'stream', chunks: 3 });
  const msg = await client.messages.stream({ model: CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] }).finalMessage();
  assert.equal(msg.content, [{ type: 'text', text: streamText(3) }]);
  assert.is(msg.stop_reason, 'end_turn');
});

test('an anthropic-beta header that is not a list of beta names is refused with 400 in Anthropic\'s shape', async () => {
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-beta': 'a,,b' },
    body: JSON.stringify({ model: CLAUDE, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.is(res.status, 400);
  const body = await res.json() as any;
  assert.is(body.error.type, 'invalid_request_error');
  assert.match(body.error.message, /anthropic-beta/);
  assert.is(anthropic.requests.length, 0);
});

test('a Messages request on a Gemini model is translated to generateContent and back', async () => {
  const msg = await client.messages.create({ model: 'gemini-2.5-flash', max_tokens: 100, system: 'Be brief.', messages: [{ role: 'user', content: 'hello' }] });
  assert.equal(msg.content, [{ type: 'text', text: DEFAULT_TEXT }]);
  assert.is(msg.stop_reason, 'end_turn');
  const sent = gemini.requests[0];
  assert.match(sent.path, /gemini-2\.5-flash:generateContent/);
  assert.is(sent.headers['anthropic-beta'], undefined);
  assert.equal(sent.body.systemInstruction.parts[0].text, 'Be brief.');
});

test('a streamed Messages request on a Gemini model arrives as Anthropic events', async () => {
  const msg = await client.messages.stream({ model: 'gemini-2.5-flash', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] }).finalMessage();
  assert.equal(msg.content, [{ type: 'text', text: DEFAULT_TEXT }]);
  assert.match(gemini.requests[0].path, /:streamGenerateContent\?alt=sse/);
});

test('responses.create on a Claude model is translated to the Messages API and back, cache counts in the usage', async () => {
  const r = await openai.responses.create({ model: CLAUDE, instructions: HANDBOOK, input: 'How long do refunds take?', max_output_tokens: 200 });
  assert.match(r.id, /^resp_/);
  assert.is(r.status, 'completed');
  assert.is(r.output_text, MOCK_TEXT);
  const sent = anthropic.requests[0].body;
  assert.is(sent.model, CLAUDE_UPSTREAM);
  assert.is(sent.max_tokens, 200);
  assert.is(JSON.stringify(sent.system).includes('Clause: refunds'), true);
  assert.is(r.usage!.input_tokens, MOCK_USAGE.input_tokens + MOCK_USAGE.cache_read_input_tokens + MOCK_USAGE.cache_creation_input_tokens);
  assert.is(r.usage!.input_tokens_details.cached_tokens, MOCK_USAGE.cache_read_input_tokens);
  assert.is(r.usage!.output_tokens, MOCK_USAGE.output_tokens);
});

test('a streamed Responses request on a Claude model arrives as the typed event stream', async () => {
  const stream = await openai.responses.create({ model: CLAUDE, input: 'hello', stream: true });
  const types: string[] = [];
  let text = '';
  for await (const e of stream) {
    types.push(e.type);
    if (e.type === 'response.output_text.delta') text += e.delta;
  }
  assert.is(text, MOCK_TEXT);
  assert.is(types[0], 'response.created');
  assert.is(types[types.length - 1], 'response.completed');
  assert.is(anthropic.requests[0].body.stream, true);
});

test('a Responses request whose Anthropic route is overloaded fails over to an OpenAI-compatible route: one answer, billed once', async () => {
  anthropic.enqueue({ kind: 'error', status: 529, type: 'overloaded_error', message: 'Overloaded' });
  const { data: r, response } = await openai.responses.create({ model: CLAUDE, input: 'hello' }).withResponse();
  assert.is(r.status, 'completed');
  assert.ok(r.output_text.length > 0);
  assert.is(response.headers.get('x-gw-provider'), 'groq');
  const rows = await rowsOf(response.headers.get('x-request-id'), 2);
  assert.equal(rows.map((row) => [row.provider, row.status, row.billable]), [['anthropic', 529, 0], ['groq', 200, 1]]);
});

test('a streamed Codex-sized turn on a Claude model reaches Anthropic translated, and on failover the OpenAI-compatible route gets the chat request with its own model id', async () => {
  // Its chat request is written from the client's bytes (formats/responses/request-bytes.ts);
  // Anthropic's route reads it as objects, the OpenAI-compatible one is sent the bytes.
  const code = 'export const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0); // "sum" é 😀\n\t\\\n'.repeat(250);
  const input = [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: `Fix this:\n${code}` }] },
    { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA' },
    { type: 'function_call', call_id: 'c1', name: 'shell', arguments: JSON.stringify({ command: ['cat', 'a.ts'], note: code }) },
    { type: 'function_call_output', call_id: 'c1', output: code },
  ];
  const body = JSON.stringify({ model: CLAUDE, instructions: 'You are Codex. '.repeat(100), input, store: false, stream: true }).replace(/é/g, '\\u00e9');
  assert.ok(body.length > 50_000);
  anthropic.enqueue({ kind: 'error', status: 529, type: 'overloaded_error', message: 'Overloaded' });
  const res = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
  const events = await res.text();
  assert.is(res.status, 200, events.slice(0, 300));
  assert.ok(events.includes('event: response.completed'), events.slice(-300));
  const toAnthropic = anthropic.requests[0].body;
  assert.equal(toAnthropic.messages.map((m: any) => m.role), ['user', 'assistant', 'user']);
  assert.ok(JSON.stringify(toAnthropic.messages).includes(JSON.stringify(code).slice(1, -1)), 'the code reaches Anthropic');
  const toGroq = groq.requests[0].body;
  assert.is(toGroq.model, 'llama-3.3-70b-versatile', "Groq's own id for the model");
  assert.equal(toGroq.stream_options, { include_usage: true });
  assert.equal(toGroq.messages, [
    { role: 'system', content: 'You are Codex. '.repeat(100) },
    { role: 'user', content: `Fix this:\n${code}` },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'shell', arguments: input[2].arguments } }] },
    { role: 'tool', tool_call_id: 'c1', content: code },
  ]);
});

test('responses.create on a Gemini model is translated to generateContent and back', async () => {
  const r = await openai.responses.create({ model: 'gemini-2.5-flash', input: 'hello', instructions: 'Be brief.' });
  assert.is(r.output_text, DEFAULT_TEXT);
  assert.match(gemini.requests[0].path, /gemini-2\.5-flash:generateContent/);
  assert.equal(gemini.requests[0].body.systemInstruction.parts[0].text, 'Be brief.');
});

test('previous_response_id continues a conversation on a Claude model: Anthropic receives the earlier turns, alternating', async () => {
  const first = await openai.responses.create({ model: CLAUDE, input: 'My name is Asha.' });
  await openai.responses.create({ model: CLAUDE, input: 'What is my name?', previous_response_id: first.id });
  const sent = anthropic.requests[1].body;
  assert.equal(sent.messages.map((m: any) => m.role), ['user', 'assistant', 'user']);
  assert.is(JSON.stringify(sent.messages[0]).includes('My name is Asha.'), true);
  assert.is(JSON.stringify(sent.messages[1]).includes(MOCK_TEXT), true);
});

test('Responses tools round trip on a Gemini model: functionCall → function_call item → function_call_output → functionResponse', async () => {
  const tools = [{ type: 'function' as const, name: 'get_weather', description: 'Weather in a city', strict: false,
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
  gemini.enqueue({ kind: 'functionCall', name: 'get_weather', args: { city: 'Pune' } });
  const first = await openai.responses.create({ model: 'gemini-2.5-flash', input: 'Weather in Pune?', tools });
  const call = first.output.find((o) => o.type === 'function_call') as any;
  assert.ok(call, JSON.stringify(first.output));
  assert.is(call.name, 'get_weather');
  assert.equal(JSON.parse(call.arguments), { city: 'Pune' });
  await openai.responses.create({ model: 'gemini-2.5-flash', previous_response_id: first.id, tools,
    input: [{ type: 'function_call_output', call_id: call.call_id, output: '31°C, clear' }] });
  const parts = gemini.requests[1].body.contents.flatMap((c: any) => c.parts);
  const response = parts.find((p: any) => p.functionResponse)?.functionResponse;
  assert.is(response?.name, 'get_weather');
  assert.is(JSON.stringify(response.response).includes('31°C, clear'), true);
});

test('Messages tools round trip on a Gemini model: tool_use back, tool_result on as a functionResponse', async () => {
  const tools = [{ name: 'get_weather', description: 'Weather in a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } }];
  gemini.enqueue({ kind: 'functionCall', name: 'get_weather', args: { city: 'Pune' } });
  const first = await client.messages.create({ model: 'gemini-2.5-flash', max_tokens: 100, tools, messages: [{ role: 'user', content: 'Weather in Pune?' }] });
  assert.is(first.stop_reason, 'tool_use');
  const use = first.content.find((b) => b.type === 'tool_use') as any;
  assert.equal([use.name, use.input], ['get_weather', { city: 'Pune' }]);
  await client.messages.create({ model: 'gemini-2.5-flash', max_tokens: 100, tools, messages: [
    { role: 'user', content: 'Weather in Pune?' },
    { role: 'assistant', content: first.content },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '31°C, clear' }] },
  ] });
  const parts = gemini.requests[1].body.contents.flatMap((c: any) => c.parts);
  assert.is(parts.find((p: any) => p.functionResponse)?.functionResponse.name, 'get_weather');
});

test('messages.countTokens answers for Claude and Gemini models, and nothing is sent upstream', async () => {
  for (const model of [CLAUDE, 'gemini-2.5-flash']) {
    const { input_tokens } = await client.messages.countTokens({ model, messages: [{ role: 'user', content: 'How long do refunds take?' }] });
    assert.ok(input_tokens > 0 && input_tokens < 50, String(input_tokens));
  }
  assert.is(anthropic.requests.length + gemini.requests.length, 0);
});

test('the AI SDK (its default Responses API) and LangChain useResponsesApi answer on Claude and Gemini models', async () => {
  const ai = createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: key });
  const claude = await generateText({ model: ai(CLAUDE), prompt: 'hello' });
  assert.is(claude.text, MOCK_TEXT);
  const streamed = aiStreamText({ model: ai('gemini-2.5-flash'), prompt: 'hello' });
  let text = '';
  for await (const piece of streamed.textStream) text += piece;
  assert.is(text, DEFAULT_TEXT);
  const lc = new ChatOpenAI({ model: 'gemini-2.5-flash', useResponsesApi: true, apiKey: key, configuration: { baseURL: `${gw.url}/v1` }, maxRetries: 0 });
  const m = await lc.invoke('hello');
  assert.is(m.text, DEFAULT_TEXT);
  assert.is(anthropic.requests.length, 1);
  assert.is(gemini.requests.length, 2);
});

test.run();
