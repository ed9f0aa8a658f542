// An answer names the catalog model the client asked for, never the provider's own id (which
// goes in x-gw-upstream-model); a route whose upstream id is the requested one passes bytes untouched.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { bearer } from '../support/wait.js';

let gw: GatewayProcess;
let up: MockProvider;
let key: string;
let client: OpenAI;

test.before(async () => {
  up = await startMockProvider();
  gw = await startGateway({ providers: { groq: { baseUrl: up.url, apiKey: 'k1' }, together: { baseUrl: up.url, apiKey: 'k2' }, openai: { baseUrl: up.url, apiKey: 'k3' } } });
  ({ key } = await gw.orgAndKey());
  client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
test.after(async () => {
  await gw.cleanup();
  await up.close();
});
test.before.each(() => up.reset());

const post = (body: Record<string, unknown>) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], ...body }) });
const event = (model: string, rest: string) => `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model" : "${model}",${rest}}\n\n`;

test('an embeddings answer names the requested model, and the provider\'s id is in x-gw-upstream-model', async () => {
  const { data, response } = await client.embeddings.create({ model: 'bge-m3', input: ['a', 'b'] }).withResponse();
  assert.is(data.model, 'bge-m3');
  assert.is(data.data.length, 2);
  assert.is(response.headers.get('x-gw-upstream-model'), 'BAAI/bge-m3');
});

test('stream events split anywhere, even inside the model value or the usage chunk, are renamed whole and the usage chunk dropped', async () => {
  const content = event('llama-3.3-70b-versatile', '"choices":[{"index":0,"delta":{"content":"say \\"model\\": \\"x\\""},"finish_reason":null}],"usage":null');
  const finish = event('llama-3.3-70b-versatile', '"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null');
  const usage = event('llama-3.3-70b-versatile', '"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}');
  const all = content + finish + usage + 'data: [DONE]\n\n';
  // Cut every 7 bytes: the model key, its value and the usage chunk all straddle writes.
  const parts: string[] = [];
  for (let i = 0; i < all.length; i += 7) parts.push(all.slice(i, i + 7));
  const renamed = (s: string) => s.replace('"model" : "llama-3.3-70b-versatile"', '"model" : "llama-3.3-70b-instruct"');

  up.enqueue({ kind: 'parts', parts, intervalMs: 1 });
  const plain = await post({ model: 'llama-3.3-70b-instruct', stream: true });
  assert.is(plain.headers.get('x-gw-upstream-model'), 'llama-3.3-70b-versatile');
  assert.is(await plain.text(), renamed(content) + renamed(finish) + 'data: [DONE]\n\n');

  up.enqueue({ kind: 'parts', parts, intervalMs: 1 });
  const asked = await post({ model: 'llama-3.3-70b-instruct', stream: true, stream_options: { include_usage: true } });
  assert.is(await asked.text(), renamed(content) + renamed(finish) + renamed(usage) + 'data: [DONE]\n\n');
});

test('when the route\'s upstream id is the requested one, bytes pass untouched and no upstream-model header is sent', async () => {
  const parts = [event('gpt-4o-mini-2024-07-18', '"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]'),
    event('gpt-4o-mini-2024-07-18', '"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}'), 'data: [DONE]\n\n'];
  up.enqueue({ kind: 'parts', parts, intervalMs: 1 });
  const r = await post({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true } });
  assert.is(r.headers.get('x-gw-upstream-model'), null);
  assert.is(await r.text(), parts.join(''));
  const whole = await post({ model: 'gpt-4o-mini' });
  assert.is(((await whole.json()) as any).model, 'gpt-4o-mini', 'the mock answers with the model it was sent');
  assert.is(whole.headers.get('x-gw-upstream-model'), null);
});

test('a stream cut inside an event still ends with the error event after the bytes that came', async () => {
  const first = event('llama-3.3-70b-versatile', '"choices":[{"index":0,"delta":{"content":"ab"},"finish_reason":null}]');
  up.enqueue({ kind: 'parts', parts: [first, 'data: {"id":"c1","mod'] });
  const text = await (await post({ model: 'llama-3.3-70b-instruct', stream: true })).text();
  assert.ok(text.startsWith(first.replace('llama-3.3-70b-versatile', 'llama-3.3-70b-instruct') + 'data: {"id":"c1","mod\n\ndata: {"error":'), text);
  assert.ok(text.endsWith('data: [DONE]\n\n'));
});

test.run();
