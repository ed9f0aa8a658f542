import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Anthropic from '@anthropic-ai/sdk';
import { connect } from 'node:net';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { MOCK_PROMPT_TOKENS, startMockProvider, streamText, type MockProvider } from '../support/mock-provider.js';
import { query, waitForValue } from '../support/ledger.js';

// The Anthropic Messages API in front of every provider: the official SDK against the sandbox
// and against an OpenAI-compatible provider (groq, played by the mock).
let gw: GatewayProcess;
let mock: MockProvider;
let key: string;
let client: Anthropic;
const LLAMA = 'llama-3.3-70b-instruct';
const BODY_LIMIT = 256 * 1024;

test.before(async () => {
  mock = await startMockProvider();
  gw = await startGateway({ bodyLimitBytes: BODY_LIMIT, providers: { groq: { baseUrl: mock.url, apiKey: 'sk-groq-platform' } } });
  ({ key } = await gw.orgAndKey());
  client = new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
});
test.after(async () => {
  await gw.cleanup();
  await mock.close();
});
test.before.each(() => mock.reset());

const hello = { max_tokens: 64, messages: [{ role: 'user' as const, content: 'hello' }] };

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gw.url}${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function caught(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the call to fail');
}

function ledgerRows(requestId: string): any[] {
  return query(gw.dbPath, (db) => db.prepare('SELECT * FROM usage WHERE request_id = ? ORDER BY attempt').all(requestId) as any[]);
}

test('messages.create on sandbox/echo answers an Anthropic message', async () => {
  const msg = await client.messages.create({ model: 'sandbox/echo', ...hello });
  assert.match(msg.id, /^msg_/);
  assert.is(msg.type, 'message');
  assert.is(msg.role, 'assistant');
  assert.is(msg.model, 'sandbox/echo');
  assert.equal(msg.content, [{ type: 'text', text: 'echo: hello' }]);
  assert.is(msg.stop_reason, 'end_turn');
  assert.ok(msg.usage.input_tokens > 0 && msg.usage.output_tokens > 0);
});

test('messages.create on an OpenAI-compatible provider: translated both ways, x-gw-provider set, extensions consumed', async () => {
  const params = {
    model: LLAMA, ...hello, system: 'Be brief.', stop_sequences: ['###'], temperature: 0.5, metadata: { user_id: 'u-7' },
    // Gateway extensions ride in the body as on chat.
    provider: 'groq', optimize: 'price', data_policy: 'no_training',
  } as Anthropic.MessageCreateParamsNonStreaming;
  const { data: msg, response } = await client.messages.create(params).withResponse();
  assert.equal(msg.content, [{ type: 'text', text: 'mock reply' }]);
  assert.is(msg.model, LLAMA, 'the catalog id asked for');
  assert.equal(msg.usage, { input_tokens: MOCK_PROMPT_TOKENS, output_tokens: 7, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
  assert.is(response.headers.get('x-gw-provider'), 'groq');
  assert.is(response.headers.get('x-gw-upstream-model'), 'llama-3.3-70b-versatile');
  const up = mock.requests[0];
  assert.is(up.path, '/v1/chat/completions');
  assert.is(up.headers.authorization, 'Bearer sk-groq-platform');
  assert.is(up.body.model, 'llama-3.3-70b-versatile');
  assert.equal(up.body.messages, [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hello' }]);
  assert.is(up.body.max_tokens, 64);
  assert.equal(up.body.stop, ['###']);
  assert.is(up.body.temperature, 0.5);
  assert.is(up.body.user, 'u-7');
  for (const f of ['optimize', 'provider', 'data_policy', 'upstream_key', 'system', 'stop_sequences', 'metadata']) assert.not.ok(f in up.body, f);
});

test('the answer is billed and written to the ledger as a chat request, with its request id', async () => {
  const { response } = await client.messages.create({ model: LLAMA, ...hello }).withResponse();
  const id = response.headers.get('x-gw-request-id')!;
  const rows = await waitForValue(() => ledgerRows(id).length > 0 && ledgerRows(id), 5_000, 'the ledger row');
  assert.is(rows.length, 1);
  assert.is(rows[0].endpoint, 'chat');
  assert.is(rows[0].model, LLAMA);
  assert.is(rows[0].provider, 'groq');
  assert.is(rows[0].status, 200);
  assert.is(rows[0].prompt_tokens, MOCK_PROMPT_TOKENS);
  assert.is(rows[0].completion_tokens, 7);
  assert.ok(rows[0].cost_micros > 0);
});

test('messages.stream assembles the text with finalMessage() from the events in their order', async () => {
  mock.setDefault({ kind: 'stream', chunks: 5 });
  const stream = client.messages.stream({ model: LLAMA, ...hello });
  const types: string[] = [];
  let estimated = -1;
  stream.on('streamEvent', (e) => {
    types.push(e.type);
    if (e.type === 'message_start') estimated = e.message.usage.input_tokens;
  });
  const msg = await stream.finalMessage();
  // message_start estimates the input from the translated body: priming 3, the message's framing 3, "hello" 2.
  assert.is(estimated, 8, 'message_start carries the estimate of the input');
  assert.equal(msg.content, [{ type: 'text', text: streamText(5) }]);
  assert.is(msg.stop_reason, 'end_turn');
  assert.is(msg.model, LLAMA);
  assert.is(msg.usage.input_tokens, MOCK_PROMPT_TOKENS, 'the real count from message_delta replaces the estimate');
  assert.is(msg.usage.output_tokens, 5);
  assert.equal(types, ['message_start', 'content_block_start', ...Array(5).fill('content_block_delta'), 'content_block_stop', 'message_delta', 'message_stop']);
  assert.equal(mock.requests[0].body.stream_options, { include_usage: true });
});

test('an agent-sized streamed turn is not decoded for message_start: its estimate is the written chat request\'s size', async () => {
  mock.setDefault({ kind: 'stream', chunks: 3 });
  // Over 16 KB: the chat request is written from the client's bytes (formats/messages/request-bytes.ts).
  const turns = Array.from({ length: 40 }, (_, i) => ({ role: (i % 2 === 0 ? 'user' : 'assistant') as 'user' | 'assistant', content: `turn ${i}: ${'x'.repeat(600)}` }));
  const stream = client.messages.stream({ model: LLAMA, max_tokens: 64, system: 'Be brief.', messages: [...turns, { role: 'user', content: 'and now?' }] });
  let estimated = -1;
  stream.on('streamEvent', (e) => {
    if (e.type === 'message_start') estimated = e.message.usage.input_tokens;
  });
  const msg = await stream.finalMessage();
  assert.equal(msg.content, [{ type: 'text', text: streamText(3) }]);
  assert.is(msg.usage.input_tokens, MOCK_PROMPT_TOKENS, 'the real count from message_delta replaces the estimate');
  // The provider read the written request with groq's own model id in place of the one asked for.
  const sent = mock.requests[0].rawBody.replace(JSON.stringify(mock.requests[0].body.model), JSON.stringify(LLAMA));
  assert.is(estimated, Math.ceil(Buffer.byteLength(sent) / 4));
  assert.is(mock.requests[0].body.messages.length, 42, 'the system prompt and every turn');
});

test('messages.stream on sandbox/echo', async () => {
  const msg = await client.messages.stream({ model: 'sandbox/echo', ...hello }).finalMessage();
  assert.equal(msg.content, [{ type: 'text', text: 'echo: hello' }]);
});

test('raw SSE uses event: lines and the content type of an event stream', async () => {
  const res = await post('/v1/messages', { model: 'sandbox/echo', ...hello, stream: true }, { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'x' });
  assert.is(res.status, 200);
  assert.ok(res.headers.get('content-type')!.startsWith('text/event-stream'));
  const text = await res.text();
  assert.ok(text.startsWith('event: message_start\ndata: {"type":"message_start"'), text.slice(0, 80));
  assert.ok(text.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n'), text.slice(-80));
  assert.not.ok(text.includes('[DONE]'));
});

test('a stream broken upstream ends in an error event the SDK throws, never a clean message_stop', async () => {
  mock.setDefault({ kind: 'cut', afterChunks: 2 });
  const res = await post('/v1/messages', { model: LLAMA, ...hello, stream: true });
  const text = await res.text();
  assert.match(text, /event: error\ndata: \{"type":"error","error":\{"type":"api_error"/);
  assert.match(text, /stream_interrupted/);
  assert.not.ok(text.includes('message_stop'));
  const e = await caught(client.messages.stream({ model: LLAMA, ...hello }).finalMessage());
  assert.instance(e, Anthropic.APIError);
  assert.is(e.type, 'api_error');
  assert.is(e.errorCode, 'stream_interrupted');
});

test('messages.countTokens gives the estimate of the translated prompt, without calling a provider or writing the ledger', async () => {
  const short = await client.messages.countTokens({ model: LLAMA, messages: [{ role: 'user', content: 'hi' }] });
  const long = await client.messages.countTokens({ model: LLAMA, system: 'x'.repeat(400), messages: [{ role: 'user', content: 'hi' }] });
  assert.ok(short.input_tokens > 0);
  assert.is(long.input_tokens - short.input_tokens, 100 + 3, '400 bytes at 4 a token, and the system message framing');
  assert.is(mock.requests.length, 0);
  const e = await caught(client.messages.countTokens({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }));
  assert.instance(e, Anthropic.NotFoundError);
  assert.instance(await caught(new Anthropic({ apiKey: 'gw-nope', baseURL: gw.url, maxRetries: 0 }).messages.countTokens({
    model: LLAMA, messages: [{ role: 'user', content: 'hi' }] })), Anthropic.AuthenticationError);
});

test('a tool round trip: tool_use with parsed input and a toolu_ id, then the tool_result goes upstream as a tool message', async () => {
  mock.enqueue({
    kind: 'parts', contentType: 'application/json', parts: [JSON.stringify({
      id: 'chatcmpl-t', object: 'chat.completion', created: 1, model: 'llama-3.3-70b-versatile',
      choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [
        { id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Pune"}' } }] } }],
      usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 },
    })],
  });
  const tools: Anthropic.Tool[] = [{ name: 'get_weather', description: 'Weather now', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }];
  const ask: Anthropic.MessageParam = { role: 'user', content: 'Weather in Pune?' };
  const first = await client.messages.create({ model: LLAMA, max_tokens: 100, tools, tool_choice: { type: 'auto' }, messages: [ask] });
  assert.is(first.stop_reason, 'tool_use');
  const use = first.content[0] as Anthropic.ToolUseBlock;
  assert.equal(use, { type: 'tool_use', id: 'toolu_call_w1', name: 'get_weather', input: { city: 'Pune' } });
  assert.equal(mock.requests[0].body.tools, [{ type: 'function', function: { name: 'get_weather', description: 'Weather now', parameters: tools[0].input_schema } }]);
  assert.is(mock.requests[0].body.tool_choice, 'auto');

  const second = await client.messages.create({
    model: LLAMA, max_tokens: 100, tools,
    messages: [ask, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '31 C' }] }],
  });
  assert.equal(second.content, [{ type: 'text', text: 'mock reply' }]);
  assert.equal(mock.requests[1].body.messages.slice(1), [
    { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Pune"}' } }] },
    { role: 'tool', tool_call_id: 'toolu_call_w1', content: '31 C' },
  ]);
});

test('a streamed tool call arrives as input_json_delta and finalMessage() parses its input', async () => {
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'x', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  mock.enqueue({
    kind: 'parts', parts: [
      chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_s', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Delhi"}' } }] }),
      chunk({}, 'tool_calls'),
      'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"x","choices":[],"usage":{"prompt_tokens":30,"completion_tokens":9,"total_tokens":39}}\n\n',
      'data: [DONE]\n\n',
    ],
  });
  const msg = await client.messages.stream({
    model: LLAMA, max_tokens: 100, messages: [{ role: 'user', content: 'Weather?' }],
    tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
  }).finalMessage();
  assert.equal(msg.content, [{ type: 'tool_use', id: 'toolu_call_s', name: 'get_weather', input: { city: 'Delhi' } }]);
  assert.is(msg.stop_reason, 'tool_use');
  assert.equal(msg.usage.output_tokens, 9);
});

test('Claude Code\'s turn on another provider\'s model, agent-sized: the chat request has the text as written, tool inputs as JSON', async () => {
  const code = 'fn main() { println!("{}", "é \\ 😀"); }\n\t'.repeat(400);
  const body = {
    model: 'llama-3.3-70b-instruct', max_tokens: 512, system: [{ type: 'text', text: 'You are Claude Code. '.repeat(100) }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: code }, { type: 'text', text: 'why?' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Write', input: { path: 'main.rs', content: code } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: code, is_error: true }] },
    ],
  };
  const written = JSON.stringify(body).replace(/é/g, '\\u00e9');
  assert.ok(written.length > 50_000);
  const res = await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: written });
  assert.is(res.status, 200, (await res.clone().text()).slice(0, 300));
  const sent = mock.requests.at(-1)!.body;
  assert.equal(sent.messages, [
    { role: 'system', content: body.system[0].text },
    { role: 'user', content: `${code}\n\nwhy?` },
    { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'Write', arguments: JSON.stringify({ path: 'main.rs', content: code }) } }] },
    { role: 'tool', tool_call_id: 'toolu_1', content: `Error: ${code}` },
  ]);
});

test('Authorization: Bearer works as well as x-api-key', async () => {
  const bearer = new Anthropic({ authToken: key, apiKey: null, baseURL: gw.url, maxRetries: 0 });
  const msg = await bearer.messages.create({ model: 'sandbox/echo', ...hello });
  assert.equal(msg.content, [{ type: 'text', text: 'echo: hello' }]);
});

test('a bad or missing key is the SDK\'s AuthenticationError (401) with the code visible', async () => {
  const e = await caught(new Anthropic({ apiKey: 'gw-not-a-real-key', baseURL: gw.url, maxRetries: 0 }).messages.create({ model: LLAMA, ...hello }));
  assert.instance(e, Anthropic.AuthenticationError);
  assert.is(e.status, 401);
  assert.is(e.type, 'authentication_error');
  assert.is(e.errorCode, 'invalid_api_key');
  assert.match(e.message, '(invalid_api_key)');
  const none = await fetch(`${gw.url}/v1/messages`, { method: 'POST', body: JSON.stringify({ model: LLAMA, ...hello }) });
  assert.is(none.status, 401);
  const body = await none.json() as any;
  assert.is(body.type, 'error');
  assert.match(body.error.message, 'x-api-key');
});

test('a missing max_tokens is the SDK\'s BadRequestError (400) in Anthropic\'s shape', async () => {
  const e = await caught(client.messages.create({ model: LLAMA, messages: hello.messages } as any));
  assert.instance(e, Anthropic.BadRequestError);
  assert.is(e.type, 'invalid_request_error');
  assert.is(e.errorCode, 'bad_request');
  assert.match(e.message, 'max_tokens');
});

test('an unknown model is the SDK\'s NotFoundError (404) with model_not_found', async () => {
  const e = await caught(client.messages.create({ model: 'claude-nonexistent', ...hello }));
  assert.instance(e, Anthropic.NotFoundError);
  assert.is(e.type, 'not_found_error');
  assert.is(e.errorCode, 'model_not_found');
});

test('a key over its rpm limit is the SDK\'s RateLimitError (429) with retry-after and the code', async () => {
  const { key: limited } = await gw.orgAndKey({ name: 'limited', keyArgs: ['--rpm', '1'] });
  const c = new Anthropic({ apiKey: limited, baseURL: gw.url, maxRetries: 0 });
  await c.messages.create({ model: 'sandbox/echo', ...hello });
  const e = await caught(c.messages.create({ model: 'sandbox/echo', ...hello }));
  assert.instance(e, Anthropic.RateLimitError);
  assert.is(e.type, 'rate_limit_error');
  assert.is(e.errorCode, 'rate_limit_exceeded');
  assert.ok(Number(e.headers.get('retry-after')) > 0);
});

test('an organisation without credit gets 402 billing_error', async () => {
  const org = await gw.cli('org', 'create', 'tiny', '--credit', '0.001');
  const { key: tiny } = await gw.cli('key', 'create', '--org', org.id, '--name', 'tiny');
  const c = new Anthropic({ apiKey: tiny, baseURL: gw.url, maxRetries: 0 });
  await c.messages.create({ model: LLAMA, ...hello });
  const e = await caught(c.messages.create({ model: LLAMA, ...hello }));
  assert.is(e.status, 402);
  assert.is(e.type, 'billing_error');
  assert.is(e.errorCode, 'insufficient_credits');
});

test('every route failing is 502 api_error, and the ledger keeps the spec\'s code for the attempt', async () => {
  mock.setDefault({ kind: 'status', status: 500, body: { error: { message: 'boom', type: 'server_error' } } });
  const e = await caught(client.messages.create({ model: LLAMA, ...hello }));
  assert.instance(e, Anthropic.InternalServerError);
  assert.is(e.status, 502);
  assert.is(e.type, 'api_error');
  assert.is(e.errorCode, 'all_routes_failed');
  const id = e.headers.get('x-gw-request-id');
  const rows = await waitForValue(() => ledgerRows(id).length > 0 && ledgerRows(id), 5_000, 'the failed attempt\'s row');
  assert.is(rows[0].status, 500);
  assert.ok(rows[0].error_code, 'the attempt\'s code is recorded');
});

test('errors raised before the handler are in Anthropic\'s shape too: bad JSON, 413, 405', async () => {
  const bad = await post('/v1/messages', '{"model":');
  assert.is(bad.status, 400);
  assert.equal(Object.keys(await bad.json() as object), ['type', 'error', 'request_id']);
  const big = await post('/v1/messages', JSON.stringify({ model: LLAMA, ...hello, system: 'x'.repeat(BODY_LIMIT) }));
  assert.is(big.status, 413);
  const bigBody = await big.json() as any;
  assert.is(bigBody.error.type, 'request_too_large');
  assert.is(bigBody.error.details.error_code, 'payload_too_large');
  const get = await fetch(`${gw.url}/v1/messages/count_tokens`);
  assert.is(get.status, 405);
  assert.is((await get.json() as any).error.type, 'invalid_request_error');
  const chat = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', body: '{' });
  assert.ok('code' in ((await chat.json() as any).error), 'other routes keep the spec\'s envelope');
});

test('a framing refusal (two Content-Length headers) on /v1/messages is in Anthropic\'s shape', async () => {
  const body = JSON.stringify({ model: 'sandbox/echo', ...hello });
  const text = await new Promise<string>((resolve, reject) => {
    const s = connect(gw.port, '127.0.0.1');
    let out = '';
    s.setEncoding('latin1');
    s.on('data', (d) => { out += d; });
    s.on('error', reject);
    s.on('close', () => resolve(out));
    s.write(`POST /v1/messages HTTP/1.1\r\nHost: gw\r\nx-api-key: ${key}\r\nContent-Length: ${body.length}\r\n` +
      `Content-Length: ${body.length + 5}\r\n\r\n${body}`);
  });
  assert.match(text, /^HTTP\/1\.1 400 /);
  assert.match(text, /\{"type":"error","error":\{"type":"invalid_request_error","message":"[^"]*more than one Content-Length[^"]*\(bad_request\)"/);
});

test('upstream_key pins the request to the caller\'s own provider key, as on chat', async () => {
  await client.messages.create({ model: LLAMA, ...hello, provider: 'groq', upstream_key: 'gsk_caller_own_key_123' } as Anthropic.MessageCreateParamsNonStreaming);
  assert.is(mock.requests[0].headers.authorization, 'Bearer gsk_caller_own_key_123');
});

test('/openapi.json documents both routes with the Anthropic error schema and the x-api-key scheme', async () => {
  const doc = await (await fetch(`${gw.url}/openapi.json`)).json() as any;
  const op = doc.paths['/v1/messages'].post;
  assert.is(op.operationId, 'createMessage');
  assert.is(op.responses['401'].content['application/json'].schema.$ref, '#/components/schemas/AnthropicError');
  assert.equal(op.security, [{ bearerAuth: [] }, { apiKeyHeader: [] }]);
  assert.ok(doc.paths['/v1/messages/count_tokens'].post);
  assert.ok(doc.components.schemas.AnthropicError);
  assert.is(doc.paths['/v1/chat/completions'].post.responses['401'].content['application/json'].schema.$ref, '#/components/schemas/Error');
});

test("a provider's 200 that is not a chat answer becomes a 502 in Anthropic's shape, not a 500", async () => {
  mock.enqueue({ kind: 'parts', parts: ['<html>gateway timeout</html>'], contentType: 'text/html' });
  const res = await post('/v1/messages', { model: LLAMA, ...hello });
  assert.is(res.status, 502);
  const body = await res.json() as any;
  assert.is(body.type, 'error');
  assert.is(body.error.type, 'api_error');
  assert.match(body.error.message, /could not be read/);
});

test.run();
