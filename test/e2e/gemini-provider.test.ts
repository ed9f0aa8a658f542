// The native Gemini provider end to end: the real gateway, a mock Gemini API on loopback that
// records what it receives, and the official openai SDK as the client.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { costOf, query, waitForValue } from '../support/ledger.js';
import { DEFAULT_TEXT, DEFAULT_USAGE, startMockGemini, type MockGemini } from '../support/mock-gemini.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { signIn } from '../support/session.js';
import { bearer } from '../support/wait.js';

/**
 * A system prompt long enough for the 1,200 prompt tokens (1,024 of them cached) the mock reports:
 * the gateway bounds reported usage by what the request could hold (billing/usage-bounds).
 */
const LONG_SYSTEM = 'You are a brief assistant for an Indian travel desk. '.repeat(120);

/** Catalog prices of gemini-2.5-flash, micro-rupees per token. */
const FLASH = { input: 26.4, output: 220 };

let gw: GatewayProcess;
let gemini: MockGemini;
let groq: MockProvider;
let client: OpenAI;
let key: string;

interface Row { request_id: string; provider: string; status: number; error_code: string | null; prompt_tokens: number; completion_tokens: number;
  cost_micros: number; streamed: number; usage_estimated: number; attempt: number; endpoint: string }
const rowsOf = (requestId: string, n = 1) => waitForValue(() => {
  const rows = query(gw.dbPath, (db) => db.prepare('SELECT * FROM usage WHERE request_id = ? ORDER BY attempt').all(requestId)) as Row[];
  return rows.length >= n ? rows : null;
}, 5_000, `${n} ledger rows for ${requestId}`);

test.before(async () => {
  gemini = await startMockGemini();
  groq = await startMockProvider();
  gw = await startGateway({
    breaker: { volumeThreshold: 100_000 },
    providers: { gemini: { baseUrl: gemini.url, apiKey: 'gm-test-key' }, groq: { baseUrl: groq.url, apiKey: 'gq' } },
  });
  const owner = await signIn(gw, 'owner@gemini.example');
  const me: any = await (await owner.get('/me')).json();
  await gw.cli('org', 'credit', me.org.id, '1000');
  key = ((await (await owner.send('POST', '/me/keys', { name: 'gemini' })).json()) as any).key;
  // gemini-2.0-flash falls back to llama-3.1-8b-instruct on groq: the failover route.
  const chain = await owner.send('PUT', '/me/routing/gemini-2.0-flash', { steps: [{ provider: 'gemini' }, { model: 'llama-3.1-8b-instruct', provider: 'groq' }] });
  assert.is(chain.status, 200, await chain.clone().text());
  client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
test.after(async () => {
  await gw.cleanup();
  await gemini.close();
  await groq.close();
});
test.before.each(() => {
  gemini.reset();
  groq.reset();
});

test('a chat completion is served by Gemini generateContent with x-goog-api-key, answered in OpenAI\'s shape with x-gw-provider gemini', async () => {
  const { data, response } = await client.chat.completions.create({
    model: 'gemini-2.5-flash', messages: [{ role: 'system', content: LONG_SYSTEM }, { role: 'user', content: 'Say hi' }], max_tokens: 50,
  }).withResponse();
  assert.is(response.headers.get('x-gw-provider'), 'gemini');
  assert.is(data.object, 'chat.completion');
  assert.is(data.model, 'gemini-2.5-flash');
  assert.is(data.choices[0].message.content, DEFAULT_TEXT);
  assert.is(data.choices[0].finish_reason, 'stop');
  assert.equal([data.usage?.prompt_tokens, data.usage?.completion_tokens, data.usage?.prompt_tokens_details?.cached_tokens,
    data.usage?.completion_tokens_details?.reasoning_tokens], [1200, 40, 1024, 31]);
  const r = gemini.requests[0];
  assert.is(r.path, '/v1beta/models/gemini-2.5-flash:generateContent');
  assert.is(r.headers['x-goog-api-key'], 'gm-test-key');
  assert.ok(!('authorization' in r.headers), 'no bearer header goes to Google');
  assert.equal(r.body, {
    contents: [{ role: 'user', parts: [{ text: 'Say hi' }] }], systemInstruction: { parts: [{ text: LONG_SYSTEM }] }, generationConfig: { maxOutputTokens: 50 },
  });
  const [row] = await rowsOf(response.headers.get('x-gw-request-id')!);
  assert.equal([row.provider, row.status, row.prompt_tokens, row.completion_tokens, row.usage_estimated], ['gemini', 200, 1200, 40, 0]);
  const full = row as Row & { cached_tokens: number; cache_write_tokens: number; reasoning_tokens: number };
  assert.equal([full.cached_tokens, full.cache_write_tokens, full.reasoning_tokens], [1024, 0, 31]);
  // Gemini's convention (promptTokenCount includes the cached part): 176 uncached at ₹26.4,
  // 1,024 cached at ₹2.64, 40 out (thoughts included) at ₹220 per 1M.
  assert.is(row.cost_micros, Math.round(176 * FLASH.input + 1024 * 2.64 + 40 * FLASH.output));
});

test('the ledger bills Gemini\'s tokens at the catalog price: thinking tokens are output', async () => {
  gemini.enqueue({ kind: 'text', text: 'ok', usage: { promptTokenCount: 1000, candidatesTokenCount: 50, thoughtsTokenCount: 70, totalTokenCount: 1120 } });
  const { response } = await client.chat.completions.create({
    model: 'gemini-2.5-flash', messages: [{ role: 'system', content: LONG_SYSTEM }, { role: 'user', content: 'think' }],
  }).withResponse();
  const [row] = await rowsOf(response.headers.get('x-gw-request-id')!);
  assert.equal([row.prompt_tokens, row.completion_tokens, row.cost_micros], [1000, 120, costOf(FLASH, 1000, 120)]);
});

test('a stream goes to streamGenerateContent?alt=sse and reaches the SDK as chat chunks with usage last; the ledger has Gemini\'s counts', async () => {
  const { data: stream, response } = await client.chat.completions.create({
    model: 'gemini-2.5-flash', messages: [{ role: 'system', content: LONG_SYSTEM }, { role: 'user', content: 'Say hi' }], stream: true,
    stream_options: { include_usage: true },
  }).withResponse();
  assert.is(response.headers.get('x-gw-provider'), 'gemini');
  let text = '';
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
    usage = chunk.usage ?? usage;
  }
  assert.is(text, DEFAULT_TEXT);
  assert.is(finish, 'stop');
  assert.equal([usage?.prompt_tokens, usage?.completion_tokens, usage?.prompt_tokens_details?.cached_tokens], [1200, 40, 1024]);
  assert.is(gemini.requests[0].path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  const [row] = await rowsOf(response.headers.get('x-gw-request-id')!);
  assert.equal([row.streamed, row.status, row.error_code, row.prompt_tokens, row.completion_tokens], [1, 200, null, DEFAULT_USAGE.promptTokenCount, 40]);
});

test('a Gemini stream that ends without a finishReason reaches the client as interrupted, never as a clean end', async () => {
  gemini.enqueue({ kind: 'cut' });
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST', headers: bearer(key), body: JSON.stringify({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }], stream: true }),
  });
  const sse = await res.text();
  assert.match(sse, /"error"/);
  assert.match(sse, /stream_interrupted/);
  const [row] = await rowsOf(res.headers.get('x-gw-request-id')!);
  assert.is(row.error_code, 'stream_interrupted');
});

test('tools round trip: a functionCall comes back as tool_calls, and the tool result goes to Gemini as a functionResponse named by the call', async () => {
  const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: {
    name: 'get_weather', description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  } }];
  gemini.enqueue({ kind: 'functionCall', name: 'get_weather', args: { city: 'Pune' } });
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Pune?' }];
  const first = await client.chat.completions.create({ model: 'gemini-2.5-flash', messages, tools, tool_choice: 'auto' });
  const call = first.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
  assert.is(first.choices[0].finish_reason, 'tool_calls');
  assert.equal([call.function.name, JSON.parse(call.function.arguments)], ['get_weather', { city: 'Pune' }]);
  assert.equal(gemini.requests[0].body.tools, [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }] }]);
  assert.equal(gemini.requests[0].body.toolConfig, { functionCallingConfig: { mode: 'AUTO' } });

  messages.push(first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '{"temp_c":31}' });
  gemini.enqueue({ kind: 'text', text: 'It is 31 °C in Pune.' });
  const second = await client.chat.completions.create({ model: 'gemini-2.5-flash', messages, tools });
  assert.is(second.choices[0].message.content, 'It is 31 °C in Pune.');
  assert.equal(gemini.requests[1].body.contents.slice(1), [
    { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Pune' } } }] },
    { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temp_c: 31 } } }] },
  ]);
});

test('a prompt Gemini blocks for safety is a 200 answer with finish_reason content_filter and empty content, streamed or not', async () => {
  gemini.enqueue({ kind: 'blocked' });
  const whole = await client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'bad' }] });
  assert.equal([whole.choices[0].finish_reason, whole.choices[0].message.content], ['content_filter', '']);
  assert.match(whole.choices[0].message.refusal ?? '', /blockReason SAFETY/);

  gemini.enqueue({ kind: 'blocked' });
  const stream = await client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'bad' }], stream: true });
  const finishes: string[] = [];
  for await (const chunk of stream) if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
  assert.equal(finishes, ['content_filter']);
});

test('Gemini 429 RESOURCE_EXHAUSTED fails over to the next route of the chain; both attempts are in the ledger, billed once', async () => {
  gemini.enqueue({ kind: 'error', status: 429, code: 'RESOURCE_EXHAUSTED', message: 'You exceeded your current quota.' });
  const { data, response } = await client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
  assert.is(response.headers.get('x-gw-provider'), 'groq');
  assert.ok(data.choices[0].message.content);
  assert.is(gemini.requests.length, 1);
  assert.is(groq.requests.length, 1);
  const rows = await rowsOf(response.headers.get('x-gw-request-id')!, 2);
  assert.equal(rows.map((r) => [r.provider, r.status, r.error_code]), [['gemini', 429, 'upstream_rate_limited'], ['groq', 200, null]]);
  assert.is(rows[0].cost_micros, 0);
});

test('Gemini 500 fails over too', async () => {
  gemini.enqueue({ kind: 'error', status: 500, code: 'INTERNAL', message: 'An internal error has occurred.' });
  const { response } = await client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
  assert.is(response.headers.get('x-gw-provider'), 'groq');
});

test('Gemini 400 INVALID_ARGUMENT returns to the caller as a 400 with Gemini\'s message, without failover', async () => {
  gemini.enqueue({ kind: 'error', status: 400, code: 'INVALID_ARGUMENT', message: '* GenerateContentRequest.generation_config.temperature: must be in [0, 2]' });
  const err = await client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'hi' }], temperature: 1.5 })
    .then(() => null, (e) => e);
  assert.ok(err instanceof OpenAI.BadRequestError, String(err));
  assert.is(err.status, 400);
  assert.match(err.message, /temperature: must be in \[0, 2\]/);
  assert.is(groq.requests.length, 0, 'no failover on the caller\'s own mistake');
});

test('a request Gemini cannot take (a web image URL) is refused with 400 before anything is sent', async () => {
  const err = await client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: [
    { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] }] }).then(() => null, (e) => e);
  assert.ok(err instanceof OpenAI.BadRequestError, String(err));
  assert.match(err.message, /data: URL/);
  assert.is(gemini.requests.length, 0);
});

test('embeddings go to batchEmbedContents; the SDK\'s default base64 and explicit floats both decode to Gemini\'s values; usage is estimated and billed', async () => {
  const expected = (t: string) => [t.length / 100, t.charCodeAt(0) / 1000, 0.5];
  const { data: b64, response } = await client.embeddings.create({ model: 'gemini-embedding-001', input: ['hello', 'नमस्ते'] }).withResponse();
  assert.is(response.headers.get('x-gw-provider'), 'gemini');
  assert.is(response.headers.get('x-gw-usage'), 'estimated');
  assert.equal(b64.data.map((d) => d.embedding), ['hello', 'नमस्ते'].map((t) => expected(t).map(Math.fround)));
  const r = gemini.requests[0];
  assert.is(r.path, '/v1beta/models/gemini-embedding-001:batchEmbedContents');
  assert.equal(r.body.requests[1], { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'नमस्ते' }] } });
  assert.ok(b64.usage.prompt_tokens > 0);
  const floats = await client.embeddings.create({ model: 'gemini-embedding-001', input: 'hello', encoding_format: 'float', dimensions: 3 });
  assert.equal(floats.data[0].embedding, expected('hello'));
  assert.is(gemini.requests[1].body.requests[0].outputDimensionality, 3);
  const [row] = await rowsOf(response.headers.get('x-gw-request-id')!);
  assert.equal([row.endpoint, row.provider, row.usage_estimated, row.prompt_tokens], ['embeddings', 'gemini', 1, b64.usage.prompt_tokens]);
  assert.is(row.cost_micros, Math.round(row.prompt_tokens * 13.2));
});

test.run();
