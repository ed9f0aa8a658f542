import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, streamText, type MockProvider } from '../support/mock-provider.js';
import { bearer, chatBody, readSse } from '../support/wait.js';

let gw: GatewayProcess;
let mock: MockProvider;
let key: string;
let client: OpenAI;

test.before(async () => {
  mock = await startMockProvider();
  gw = await startGateway({ providers: { groq: { baseUrl: mock.url, apiKey: 'sk-groq-platform' } } });
  ({ key } = await gw.orgAndKey());
  client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
test.after(async () => {
  await gw.cleanup();
  await mock.close();
});
test.before.each(() => mock.reset());

test('a plain chat completion through the openai SDK returns the upstream answer and x-gw-provider', async () => {
  const { data, response } = await client.chat.completions.create({
    model: 'llama-3.3-70b-instruct', messages: [{ role: 'user', content: 'hello' }],
  }).withResponse();
  assert.is(data.object, 'chat.completion');
  assert.is(data.model, 'llama-3.3-70b-instruct', 'the catalog id the client asked for, not the provider\'s');
  assert.is(response.headers.get('x-gw-upstream-model'), 'llama-3.3-70b-versatile');
  assert.is(data.choices[0].message.content, 'mock reply');
  assert.equal(data.usage, { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
  assert.is(response.headers.get('x-gw-provider'), 'groq');
  assert.ok(response.headers.get('x-gw-request-id'));
  const up = mock.requests[0];
  assert.is(up.path, '/v1/chat/completions');
  assert.is(up.body.model, 'llama-3.3-70b-versatile', 'the catalog id is swapped for the provider model id');
  assert.is(up.headers.authorization, 'Bearer sk-groq-platform', 'the platform key, never the client key, goes upstream');
  assert.is(up.headers['accept-encoding'], 'identity', 'answers are relayed as bytes, so none may come compressed');
});

test('a streamed chat through the SDK that did not ask for usage gets only chunks with choices, each naming the requested model', async () => {
  mock.setDefault({ kind: 'stream', chunks: 5 });
  const { data: stream, response } = await client.chat.completions.create({
    model: 'llama-3.3-70b-instruct', messages: [{ role: 'user', content: 'hello' }], stream: true,
  }).withResponse();
  let text = '';
  for await (const chunk of stream) {
    // As most client code reads a chunk: no guard, which OpenAI's own streams never break.
    text += chunk.choices[0].delta.content ?? '';
    assert.is(chunk.model, 'llama-3.3-70b-instruct');
    assert.not.ok(chunk.usage, 'no usage unless asked for');
  }
  assert.is(text, streamText(5));
  assert.is(response.headers.get('x-gw-upstream-model'), 'llama-3.3-70b-versatile');
  assert.equal(mock.requests[0].body.stream_options, { include_usage: true }, 'the gateway still asks the provider, to bill it');
});

test('a streamed chat through the SDK with include_usage gets usage in the last chunk before [DONE]', async () => {
  mock.setDefault({ kind: 'stream', chunks: 5 });
  const stream = await client.chat.completions.create({
    model: 'llama-3.3-70b-instruct', messages: [{ role: 'user', content: 'hello' }], stream: true, stream_options: { include_usage: true },
  });
  let text = '';
  let lastUsage: unknown = null;
  let last: any = null;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
    if (chunk.usage) lastUsage = chunk.usage;
    last = chunk;
  }
  assert.is(text, streamText(5));
  assert.equal(lastUsage, { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 });
  assert.equal(last.choices, []);
  assert.is(last.model, 'llama-3.3-70b-instruct');
});

test('raw SSE ends with the usage chunk and then [DONE] when usage is asked for, and without it otherwise', async () => {
  mock.setDefault({ kind: 'stream', chunks: 3 });
  const asked = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST', headers: bearer(key), body: chatBody({ stream: true, stream_options: { include_usage: true } }),
  });
  assert.is(asked.status, 200);
  assert.ok(asked.headers.get('content-type')!.startsWith('text/event-stream'));
  const events = await readSse(asked);
  assert.is(events.at(-1), '[DONE]');
  assert.ok(JSON.parse(events.at(-2)!).usage, 'the chunk before [DONE] carries usage');

  const plain = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody({ stream: true }) });
  const text = await plain.text();
  assert.ok(text.endsWith('"finish_reason":"stop"}],"usage":null}\n\ndata: [DONE]\n\n'), text.slice(-120));
  assert.not.ok(text.includes('"prompt_tokens"'));
});

test('extension fields are consumed and never reach the upstream; other OpenAI fields pass untouched', async () => {
  const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }];
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST', headers: bearer(key),
    body: chatBody({
      optimize: 'price', provider: 'groq', data_policy: 'no_training', temperature: 0.3, top_p: 0.9, tools,
      response_format: { type: 'json_object' }, user: 'u-1', seed: 7, stream_options: { include_usage: false },
    }),
  });
  assert.is(res.status, 200);
  const body = mock.requests[0].body;
  for (const f of ['optimize', 'provider', 'data_policy', 'upstream_key']) assert.not.ok(f in body, `${f} removed`);
  assert.is(body.temperature, 0.3);
  assert.is(body.top_p, 0.9);
  assert.equal(body.tools, tools);
  assert.equal(body.response_format, { type: 'json_object' });
  assert.is(body.user, 'u-1');
  assert.is(body.seed, 7);
  assert.equal(body.stream_options, { include_usage: false }, 'not a stream: stream_options is left as sent');
});

test('upstream_key pinned to one provider is used for that request instead of the platform key', async () => {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST', headers: bearer(key), body: chatBody({ provider: 'groq', upstream_key: 'gsk_caller_own_key_123' }),
  });
  assert.is(res.status, 200);
  assert.is(mock.requests[0].headers.authorization, 'Bearer gsk_caller_own_key_123');
  assert.not.ok('upstream_key' in mock.requests[0].body);
});

test('models.list() through the SDK returns the catalog with INR pricing, residency and route health', async () => {
  const ids: string[] = [];
  let llama: any = null;
  for await (const m of client.models.list()) {
    ids.push(m.id);
    if (m.id === 'llama-3.3-70b-instruct') llama = m;
  }
  assert.ok(ids.includes('sandbox/echo'));
  assert.ok(ids.includes('sarvam-m'));
  assert.is(llama.pricing.currency, 'INR');
  assert.type(llama.pricing.input, 'number');
  assert.is(llama.context_length, 131072);
  assert.ok(llama.languages.includes('hi'));
  const groq = llama.routes.find((r: any) => r.provider === 'groq');
  assert.is(groq.configured, true);
  assert.is(groq.health, 'closed');
  assert.is(llama.routes.find((r: any) => r.provider === 'together').configured, false);
});

test('the sandbox model answers locally with no upstream account, plain and streamed', async () => {
  const plain = await client.chat.completions.create({ model: 'sandbox/echo', messages: [{ role: 'user', content: 'namaste' }] });
  assert.is(plain.choices[0].message.content, 'echo: namaste');
  const stream = await client.chat.completions.create({
    model: 'sandbox/echo', messages: [{ role: 'user', content: 'namaste duniya' }], stream: true, stream_options: { include_usage: true },
  });
  let text = '';
  let usage = null;
  for await (const c of stream) {
    text += c.choices[0]?.delta?.content ?? '';
    if (c.usage) usage = c.usage;
  }
  assert.is(text, 'echo: namaste duniya');
  assert.ok(usage);
  assert.is(mock.requests.length, 0);
});

test.run();
