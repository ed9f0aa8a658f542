import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, streamText, type MockProvider } from '../support/mock-provider.js';
import { errorOf, query } from '../support/ledger.js';
import { bearer, waitFor } from '../support/wait.js';

// POST/GET/DELETE /v1/responses through the official openai SDK, unmodified: the sandbox, and
// llama-3.3-70b-instruct on groq played by an OpenAI-compatible mock that records what it got.
let gw: GatewayProcess;
let mock: MockProvider;
let together: MockProvider;
let key: string;
let orgId: string;
let client: OpenAI;
const LLAMA = 'llama-3.3-70b-instruct';

test.before(async () => {
  mock = await startMockProvider();
  together = await startMockProvider();
  gw = await startGateway({ providers: { groq: { baseUrl: mock.url, apiKey: 'sk-groq-platform' }, together: { baseUrl: together.url, apiKey: 'sk-together' } } });
  ({ key, orgId } = await gw.orgAndKey());
  client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
test.after(async () => {
  await gw.cleanup();
  await mock.close();
  await together.close();
});
test.before.each(() => {
  mock.reset();
  together.reset();
});

const post = (body: unknown, k = key) => fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: bearer(k), body: JSON.stringify(body) });

/** A whole chat answer the mock sends as is. */
function chatAnswer(message: Record<string, unknown>, finish: string, usage = { prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 }): string {
  return JSON.stringify({ id: 'chatcmpl-x', object: 'chat.completion', created: 1, model: 'llama-3.3-70b-versatile',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }], usage });
}

test('responses.create on the sandbox gives output_text, a resp_ id, usage and x-gw-provider', async () => {
  const { data, response } = await client.responses.create({ model: 'sandbox/echo', input: 'hello gateway' }).withResponse();
  assert.match(data.id, /^resp_[0-9a-f]{48}$/);
  assert.is(data.object, 'response');
  assert.is(data.status, 'completed');
  assert.is(data.model, 'sandbox/echo');
  assert.is(data.output_text, 'echo: hello gateway');
  assert.ok(data.usage!.input_tokens > 0 && data.usage!.output_tokens > 0);
  assert.is(data.usage!.total_tokens, data.usage!.input_tokens + data.usage!.output_tokens);
  assert.is(response.headers.get('x-gw-provider'), 'sandbox');
});

test('responses.create on a provider sends it a chat completion and names the catalog model in the answer', async () => {
  const { data, response } = await client.responses.create({
    model: LLAMA, instructions: 'Be brief.', input: 'hello', max_output_tokens: 50, temperature: 0.3, metadata: { ticket: 'T-9' },
  }).withResponse();
  assert.is(data.output_text, 'mock reply');
  assert.is(data.model, LLAMA);
  assert.equal(data.metadata, { ticket: 'T-9' });
  assert.equal(data.usage, { input_tokens: 11, input_tokens_details: { cached_tokens: 0 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 18 });
  assert.is(response.headers.get('x-gw-provider'), 'groq');
  const up = mock.requests[0];
  assert.is(up.path, '/v1/chat/completions');
  assert.equal(up.body, {
    model: 'llama-3.3-70b-versatile', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hello' }],
    temperature: 0.3, max_tokens: 50,
  });
});

test('a streamed response through the SDK arrives as the typed events in order, text assembled, usage in response.completed', async () => {
  mock.setDefault({ kind: 'stream', chunks: 5 });
  const stream = await client.responses.create({ model: LLAMA, input: 'hello', stream: true });
  const types: string[] = [];
  let text = '';
  let completed: OpenAI.Responses.Response | null = null;
  let seq = -1;
  for await (const e of stream) {
    types.push(e.type);
    assert.is(e.sequence_number, seq + 1, 'sequence numbers count up');
    seq = e.sequence_number;
    if (e.type === 'response.output_text.delta') text += e.delta;
    if (e.type === 'response.completed') completed = e.response;
  }
  assert.is(text, streamText(5));
  const distinct = types.filter((t, i) => t !== types[i - 1]);
  assert.equal(distinct, ['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added',
    'response.output_text.delta', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed']);
  assert.is(completed!.status, 'completed');
  assert.equal(completed!.usage, { input_tokens: 11, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 16 });
  assert.equal(mock.requests[0].body.stream_options, { include_usage: true }, 'usage is asked for, so response.completed carries it');
});


test('a long stream that arrives in one write (a batch of several pieces past the 16 KB cork) reaches the SDK whole and in order', async () => {
  // The mock writes all 600 chunks at once: the gateway translates them in few batches of
  // several pieces (the opening events, the deltas, the end), too big for one cork: joined and
  // written uncorked, where a short stream's pieces are written as chunks of one cork.
  mock.setDefault({ kind: 'stream', chunks: 600 });
  const stream = await client.responses.create({ model: LLAMA, input: 'hello', stream: true });
  let text = '';
  let seq = -1;
  let last = '';
  for await (const e of stream) {
    assert.is(e.sequence_number, seq + 1, 'sequence numbers count up');
    seq = e.sequence_number;
    last = e.type;
    if (e.type === 'response.output_text.delta') text += e.delta;
  }
  assert.is(text, streamText(600));
  assert.is(last, 'response.completed');
});
test('previous_response_id continues a stored conversation: the provider receives the earlier turn', async () => {
  mock.enqueue({ kind: 'ok', content: 'Nice to meet you, Asha.' }, { kind: 'ok', content: 'Your name is Asha.' });
  const first = await client.responses.create({ model: LLAMA, input: 'My name is Asha.' });
  const second = await client.responses.create({ model: LLAMA, input: 'What is my name?', previous_response_id: first.id });
  assert.is(second.output_text, 'Your name is Asha.');
  assert.is(second.previous_response_id, first.id);
  assert.equal(mock.requests[1].body.messages, [
    { role: 'user', content: 'My name is Asha.' },
    { role: 'assistant', content: 'Nice to meet you, Asha.' },
    { role: 'user', content: 'What is my name?' },
  ]);
  // A third turn inherits both earlier ones through the second.
  await client.responses.create({ model: LLAMA, input: 'Thanks', previous_response_id: second.id });
  assert.is(mock.requests[2].body.messages.length, 5);
});

test('a streamed answer is stored too, and can be continued', async () => {
  mock.enqueue({ kind: 'stream', chunks: 2 });
  const stream = await client.responses.create({ model: LLAMA, input: 'count', stream: true });
  let id = '';
  for await (const e of stream) if (e.type === 'response.completed') id = e.response.id;
  const got = await client.responses.retrieve(id);
  assert.is(got.status, 'completed');
  assert.is(got.output_text, streamText(2));
  await client.responses.create({ model: LLAMA, input: 'more', previous_response_id: id });
  assert.equal(mock.requests[1].body.messages.slice(0, 2), [{ role: 'user', content: 'count' }, { role: 'assistant', content: streamText(2) }]);
});

test('function tools: a function_call item, then its function_call_output, round trip through the chat tool-call shape', async () => {
  mock.enqueue({ kind: 'parts', contentType: 'application/json', parts: [chatAnswer({ content: null, tool_calls: [{ id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Pune"}' } }] }, 'tool_calls')] });
  const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'get_weather', description: 'Weather for a city', strict: true,
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } }];
  const first = await client.responses.create({ model: LLAMA, input: 'Weather in Pune?', tools });
  const call = first.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
  assert.equal({ name: call.name, call_id: call.call_id, arguments: call.arguments }, { name: 'get_weather', call_id: 'call_w1', arguments: '{"city":"Pune"}' });
  assert.equal(mock.requests[0].body.tools, [{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city', strict: true,
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } } }]);

  mock.enqueue({ kind: 'ok', content: 'It is 31 C in Pune.' });
  const second = await client.responses.create({ model: LLAMA, previous_response_id: first.id, tools,
    input: [{ type: 'function_call_output', call_id: call.call_id, output: '31 C' }] });
  assert.is(second.output_text, 'It is 31 C in Pune.');
  assert.equal(mock.requests[1].body.messages, [
    { role: 'user', content: 'Weather in Pune?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Pune"}' } }] },
    { role: 'tool', tool_call_id: 'call_w1', content: '31 C' },
  ]);
});

test('a streamed tool call arrives as function_call_arguments deltas and a done item', async () => {
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  mock.enqueue({ kind: 'parts', contentType: 'text/event-stream', intervalMs: 1, parts: [
    chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_s1', type: 'function', function: { name: 'lookup', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] }), chunk({ tool_calls: [{ index: 0, function: { arguments: '"gw"}' } }] }),
    chunk({}, 'tool_calls'), 'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4,"total_tokens":13}}\n\n',
    'data: [DONE]\n\n'] });
  const stream = client.responses.stream({ model: LLAMA, input: 'find gw', tools: [{ type: 'function', name: 'lookup', parameters: {}, strict: false }] });
  const deltas: string[] = [];
  stream.on('response.function_call_arguments.delta', (e) => deltas.push(e.delta));
  const final = await stream.finalResponse();
  assert.equal(deltas, ['{"q":', '"gw"}']);
  const call = final.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
  assert.equal([call.type, call.name, call.call_id, call.arguments], ['function_call', 'lookup', 'call_s1', '{"q":"gw"}']);
});

test('GET returns the stored response; DELETE removes it; then both are 404 response_not_found', async () => {
  const created = await client.responses.create({ model: 'sandbox/echo', input: 'keep me' });
  const got = await client.responses.retrieve(created.id);
  assert.equal(got, created);
  const del = await fetch(`${gw.url}/v1/responses/${created.id}`, { method: 'DELETE', headers: bearer(key) });
  assert.is(del.status, 200);
  assert.equal(await del.json(), { id: created.id, object: 'response.deleted', deleted: true });
  for (const method of ['GET', 'DELETE']) {
    const e = await errorOf(await fetch(`${gw.url}/v1/responses/${created.id}`, { method, headers: bearer(key) }));
    assert.equal([e.status, e.code, e.type], [404, 'response_not_found', 'invalid_request_error']);
  }
  const gone = await errorOf(await post({ model: 'sandbox/echo', input: 'x', previous_response_id: created.id }));
  assert.equal([gone.status, gone.code], [404, 'response_not_found']);
});

test('input_items lists the conversation that led to a response, newest first, paged like OpenAI', async () => {
  const first = await client.responses.create({ model: 'sandbox/echo', input: 'one' });
  const second = await client.responses.create({ model: 'sandbox/echo', input: [{ role: 'user', content: 'two' }], previous_response_id: first.id });
  const all: OpenAI.Responses.ResponseItem[] = [];
  for await (const item of client.responses.inputItems.list(second.id, { limit: 1 })) all.push(item);
  const texts = all.map((i) => {
    const m = i as { role: string; content: { text: string }[] };
    return [m.role, m.content[0].text];
  });
  assert.equal(texts, [['user', 'two'], ['assistant', 'echo: one'], ['user', 'one']], 'newest first, one page at a time');
  assert.ok(all.every((i) => typeof i.id === 'string' && i.id.length > 4), 'every item has an id');
  const asc = await client.responses.inputItems.list(second.id, { order: 'asc' });
  assert.equal(asc.data.map((i) => i.id), all.map((i) => i.id).reverse());
  const e = await errorOf(await fetch(`${gw.url}/v1/responses/${second.id}/input_items?limit=0`, { headers: bearer(key) }));
  assert.equal([e.status, e.code], [400, 'bad_request']);
});

test("another org's response id is 404 for GET, DELETE and previous_response_id, and stays stored for its own org", async () => {
  const mine = await client.responses.create({ model: 'sandbox/echo', input: 'secret' });
  const other = await gw.orgAndKey({ name: 'other' });
  for (const method of ['GET', 'DELETE']) {
    const e = await errorOf(await fetch(`${gw.url}/v1/responses/${mine.id}`, { method, headers: bearer(other.key) }));
    assert.equal([e.status, e.code], [404, 'response_not_found']);
  }
  const items = await errorOf(await fetch(`${gw.url}/v1/responses/${mine.id}/input_items`, { headers: bearer(other.key) }));
  assert.equal([items.status, items.code], [404, 'response_not_found']);
  const e = await errorOf(await post({ model: 'sandbox/echo', input: 'x', previous_response_id: mine.id }, other.key));
  assert.equal([e.status, e.code], [404, 'response_not_found']);
  assert.ok(e.message.includes(mine.id));
  assert.is((await client.responses.retrieve(mine.id)).id, mine.id);
});

test('store: false answers but keeps nothing: GET is 404 and the database holds no row', async () => {
  const r = await client.responses.create({ model: 'sandbox/echo', input: 'forget me', store: false });
  assert.is((r as unknown as { store: boolean }).store, false);
  assert.is(r.output_text, 'echo: forget me');
  const e = await errorOf(await fetch(`${gw.url}/v1/responses/${r.id}`, { headers: bearer(key) }));
  assert.equal([e.status, e.code], [404, 'response_not_found']);
  assert.is(query(gw.dbPath, (db) => db.prepare('SELECT COUNT(*) AS n FROM stored_responses WHERE id = ?').get(r.id) as { n: number }).n, 0);
});

test('a stored response is in the database under its org, with the conversation items', async () => {
  const r = await client.responses.create({ model: 'sandbox/echo', input: 'remember' });
  const row = query(gw.dbPath, (db) => db.prepare('SELECT org_id, model, items_json, expires_at - created_at AS keep FROM stored_responses WHERE id = ?').get(r.id)) as
    { org_id: string; model: string; items_json: string; keep: number };
  assert.is(row.org_id, orgId);
  assert.is(row.model, 'sandbox/echo');
  assert.is(row.keep, 30 * 86_400_000, 'kept responses.retentionDays (30 by default)');
  const items = JSON.parse(row.items_json) as { type: string; role: string }[];
  assert.equal(items.map((i) => [i.type, i.role]), [['message', 'user'], ['message', 'assistant']]);
});

test('a Codex-sized turn (its long strings sent as the client wrote them) reaches the provider as the chat request, and is stored as sent', async () => {
  const code = 'export const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0); // "sum" é 😀\n\t\\\n'.repeat(300);
  const body = {
    model: LLAMA, instructions: 'You are Codex. '.repeat(200), store: true,
    input: [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: `Fix this:\n${code}` }] },
      { type: 'function_call', call_id: 'c1', name: 'shell', arguments: JSON.stringify({ command: ['cat', 'src/a.ts'], note: code }) },
      { type: 'function_call_output', call_id: 'c1', output: code },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'and ' }, { type: 'input_text', text: code }] },
    ],
  };
  // The client's own escapes, which JSON.stringify would not write: the provider reads the same text.
  const written = JSON.stringify(body).replace(/é/g, '\\u00e9');
  assert.ok(written.length > 100_000);
  const res = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: bearer(key), body: written });
  const answer = await res.json() as any;
  assert.is(res.status, 200, JSON.stringify(answer).slice(0, 300));
  const sent = mock.requests[0].body;
  assert.equal(sent.messages, [
    { role: 'system', content: body.instructions },
    { role: 'user', content: `Fix this:\n${code}` },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'shell', arguments: body.input[1].arguments } }] },
    { role: 'tool', tool_call_id: 'c1', content: code },
    { role: 'user', content: [{ type: 'text', text: 'and ' }, { type: 'text', text: code }] },
  ]);
  const items = await client.responses.inputItems.list(answer.id, { order: 'asc' });
  const texts = JSON.stringify(items.data);
  assert.not.ok(texts.includes('\\u0001') || texts.includes('\\u0002'), 'no placeholder stored');
  // The stored input is the text the client sent, item for item.
  assert.equal(items.data.map((i: any) => [i.type, i.type === 'message' ? i.content.map((c: any) => [c.type, c.text]) : i.arguments ?? i.output]), [
    ['message', [['input_text', `Fix this:\n${code}`]]],
    ['function_call', body.input[1].arguments],
    ['function_call_output', code],
    ['message', [['input_text', 'and '], ['input_text', code]]],
  ]);
  // And a turn continuing it sends the provider that conversation (instructions are not carried
  // over, as OpenAI does), its answer, then the new input.
  await client.responses.create({ model: LLAMA, input: 'next', previous_response_id: answer.id });
  const continued = mock.requests.at(-1)!.body.messages;
  assert.ok(JSON.stringify(continued.slice(0, 4)) === JSON.stringify(sent.messages.slice(1)), 'the stored conversation, as first sent');
  assert.equal(continued.slice(4).map((m: any) => m.role), ['assistant', 'user']);
  assert.equal(continued.at(-1), { role: 'user', content: 'next' });
});

test('a stored turn whose text looks like a placeholder is continued by a Codex-sized turn as the text it is', async () => {
  // U+0001 0 U+0002 is how a long string's placeholder reads inside the gateway; sent escaped in a
  // small request, it is the client's text, stored as such.
  const odd = 'look: \u00010\u0002 and \u0001 alone';
  const first = await client.responses.create({ model: LLAMA, input: odd });
  const code = 'const answer = 42; // "the" answer\n'.repeat(600);
  const res = await post({
    model: LLAMA, previous_response_id: first.id, store: false,
    input: [{ type: 'function_call_output', call_id: 'c9', output: code }, { type: 'message', role: 'user', content: code }],
  });
  assert.is(res.status, 200, await res.clone().text());
  const sent = mock.requests.at(-1)!.body;
  assert.equal(sent.messages[0], { role: 'user', content: odd });
  assert.equal(sent.messages.slice(2), [{ role: 'tool', tool_call_id: 'c9', content: code }, { role: 'user', content: code }]);
});

test('invalid bodies are 400 bad_request in the error envelope, never a 500', async () => {
  const cases: [unknown, string][] = [
    [{ input: 'x' }, "Invalid 'model'"],
    [{ model: 'sandbox/echo', input: 42 }, "Invalid 'input'"],
    [{ model: 'sandbox/echo', input: 'x', background: true }, "Unsupported 'background'"],
    [{ model: 'sandbox/echo', input: [{ type: 'computer_call', id: 'c' }] }, "item type 'computer_call' is not supported"],
    [{ model: 'sandbox/echo', input: 'x', tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search' } }, "Unsupported 'tool_choice'"],
    [{ model: 'sandbox/echo', input: 'x', metadata: { k: 5 } }, "Invalid 'metadata"],
  ];
  for (const [body, message] of cases) {
    const e = await errorOf(await post(body));
    assert.equal([e.status, e.code, e.type], [400, 'bad_request', 'invalid_request_error'], JSON.stringify(body));
    assert.ok(e.message.includes(message), `${e.message} should include ${message}`);
  }
  const notJson = await errorOf(await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: bearer(key), body: '{"model":' }));
  assert.equal([notJson.status, notJson.code], [400, 'bad_request']);
  const noKey = await errorOf(await fetch(`${gw.url}/v1/responses/resp_x`, { headers: { authorization: 'Bearer nope' } }));
  assert.equal([noKey.status, noKey.code], [401, 'invalid_api_key']);
});

test('hosted tools such as web_search are left out, so clients that always send them (Codex) still get an answer', async () => {
  const r = await client.responses.create({ model: LLAMA, input: 'hi', tools: [{ type: 'web_search' }] });
  assert.is(r.output_text, 'mock reply');
  assert.is(mock.requests[0].body.tools, undefined);
});

test('an answer cut at max_output_tokens is status incomplete with reason max_output_tokens', async () => {
  mock.enqueue({ kind: 'parts', contentType: 'application/json', parts: [chatAnswer({ content: 'Once upon' }, 'length')] });
  const r = await client.responses.create({ model: LLAMA, input: 'story', max_output_tokens: 2 });
  assert.is(r.status, 'incomplete');
  assert.equal(r.incomplete_details, { reason: 'max_output_tokens' });
  assert.is(r.output_text, 'Once upon');
});

test('an upstream stream cut after it started ends in response.failed, never response.completed, and is not stored', async () => {
  mock.enqueue({ kind: 'cut', afterChunks: 2 });
  const res = await post({ model: LLAMA, input: 'hello', stream: true });
  assert.is(res.status, 200);
  const text = await res.text();
  const types = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
  assert.equal(types.slice(-2), ['error', 'response.failed']);
  assert.not.ok(types.includes('response.completed'));
  const failed = JSON.parse(text.trim().split('\n').at(-1)!.slice(6));
  assert.is(failed.response.status, 'failed');
  assert.is(failed.response.error.code, 'stream_interrupted');
  const e = await errorOf(await fetch(`${gw.url}/v1/responses/${failed.response.id}`, { headers: bearer(key) }));
  assert.is(e.code, 'response_not_found');
});

test('a provider that reports no usage still gives the response usage, estimated as on chat (x-gw-usage)', async () => {
  mock.enqueue({ kind: 'ok', usage: null }, { kind: 'stream', chunks: 3, includeUsage: 'never' });
  const { data, response } = await client.responses.create({ model: LLAMA, input: 'no usage here' }).withResponse();
  assert.is(response.headers.get('x-gw-usage'), 'estimated');
  assert.ok(data.usage!.input_tokens > 0 && data.usage!.output_tokens > 0);
  const stream = await client.responses.create({ model: LLAMA, input: 'no usage here', stream: true });
  let usage: OpenAI.Responses.ResponseUsage | undefined;
  for await (const e of stream) if (e.type === 'response.completed') usage = e.response.usage;
  assert.ok(usage && usage.input_tokens > 0 && usage.output_tokens > 0, JSON.stringify(usage));
});

test('the ledger records a Responses request as one billed chat row with its tokens', async () => {
  const { response } = await client.responses.create({ model: LLAMA, input: 'bill me' }).withResponse();
  const requestId = response.headers.get('x-gw-request-id')!;
  const row = await waitFor(() => query(gw.dbPath, (db) => db.prepare('SELECT endpoint, model, provider, status, prompt_tokens, completion_tokens, cost_micros, billable FROM usage WHERE request_id = ?').get(requestId)), 5_000, 'the ledger row') as Record<string, unknown>;
  assert.equal(row, { endpoint: 'chat', model: LLAMA, provider: 'groq', status: 200, prompt_tokens: 11, completion_tokens: 7, cost_micros: Math.round(11 * 52 + 7 * 69.5), billable: 1 });
});

test('the extension fields work as on chat completions and never reach the provider', async () => {
  const e = await errorOf(await post({ model: LLAMA, input: 'x', provider: 'nowhere' }));
  assert.equal([e.status, e.code], [400, 'no_route']);
  const bad = await errorOf(await post({ model: LLAMA, input: 'x', optimize: 'cheapest' }));
  assert.equal([bad.status, bad.code], [400, 'bad_request']);
  const res = await post({ model: LLAMA, input: 'x', provider: 'groq', optimize: 'price', data_policy: 'no_training' });
  assert.is(res.status, 200);
  assert.is(res.headers.get('x-gw-provider'), 'groq');
  for (const f of ['provider', 'optimize', 'data_policy', 'upstream_key']) assert.is(mock.requests[0].body[f], undefined, f);
});

test('a Responses request whose first route fails over to the next gives one answer, billed once', async () => {
  mock.enqueue({ kind: 'status', status: 503 });
  together.enqueue({ kind: 'ok', content: 'from together' });
  const { data, response } = await client.responses.create({ model: LLAMA, input: 'fail over' }).withResponse();
  assert.is(data.output_text, 'from together');
  assert.is(response.headers.get('x-gw-provider'), 'together');
  const requestId = response.headers.get('x-gw-request-id')!;
  const rows = await waitFor(() => {
    const r = query(gw.dbPath, (db) => db.prepare('SELECT provider, status, billable FROM usage WHERE request_id = ? ORDER BY attempt').all(requestId));
    return r.length === 2 ? r : null;
  }, 5_000, 'both attempts in the ledger');
  assert.equal(rows, [{ provider: 'groq', status: 503, billable: 0 }, { provider: 'together', status: 200, billable: 1 }]);
  assert.ok((await client.responses.retrieve(data.id)).output_text === 'from together', 'the answer that won is the one stored');
});

test('limits apply as on chat completions: a key past its rpm gets 429 rate_limit_exceeded', async () => {
  const limited = await gw.orgAndKey({ name: 'limited', keyArgs: ['--rpm', '1'] });
  assert.is((await post({ model: 'sandbox/echo', input: 'one' }, limited.key)).status, 200);
  const e = await errorOf(await post({ model: 'sandbox/echo', input: 'two' }, limited.key));
  assert.equal([e.status, e.code], [429, 'rate_limit_exceeded']);
  assert.ok(e.retryAfter > 0);
});

test('budgets apply as on chat completions: a spent key budget gets 429 budget_exceeded', async () => {
  const budget = await gw.orgAndKey({ name: 'budget', keyArgs: ['--budget-inr', '0.002'] });
  assert.is((await post({ model: LLAMA, input: 'spend' }, budget.key)).status, 200);
  const e = await waitFor(async () => {
    const res = await post({ model: LLAMA, input: 'more' }, budget.key);
    return res.status === 429 ? errorOf(res) : null;
  }, 5_000, 'the budget to be spent') as Awaited<ReturnType<typeof errorOf>>;
  assert.is(e.code, 'budget_exceeded');
});

test('an org without credit gets 402 insufficient_credits', async () => {
  const broke = await gw.orgAndKey({ name: 'broke', credit: 0.0001 });
  await post({ model: LLAMA, input: 'spend' }, broke.key);
  const e = await waitFor(async () => {
    const res = await post({ model: LLAMA, input: 'more' }, broke.key);
    return res.status === 402 ? errorOf(res) : null;
  }, 5_000, 'the balance to run out') as Awaited<ReturnType<typeof errorOf>>;
  assert.is(e.code, 'insufficient_credits');
});

test('/openapi.json documents the three routes with OpenAI operation ids', async () => {
  const doc: any = await (await fetch(`${gw.url}/openapi.json`)).json();
  assert.is(doc.paths['/v1/responses'].post.operationId, 'createResponse');
  assert.is(doc.paths['/v1/responses/{id}'].get.operationId, 'getResponse');
  assert.is(doc.paths['/v1/responses/{id}'].delete.operationId, 'deleteResponse');
  assert.ok(doc.components.schemas.Response && doc.components.schemas.ResponsesRequest);
});

test.run();
