import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { embeddingFor, startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { bearer } from '../support/wait.js';

let gw: GatewayProcess;
let mockA: MockProvider;
let mockB: MockProvider;
let key: string;
let client: OpenAI;

test.before(async () => {
  mockA = await startMockProvider();
  mockB = await startMockProvider();
  gw = await startGateway({
    providers: { deepinfra: { baseUrl: mockA.url, apiKey: 'sk-a' }, together: { baseUrl: mockB.url, apiKey: 'sk-b' } },
  });
  ({ key } = await gw.orgAndKey());
  client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
test.after(async () => {
  await gw.cleanup();
  await mockA.close();
  await mockB.close();
});
test.before.each(() => {
  mockA.reset();
  mockB.reset();
});

test('embeddings with float encoding return one vector per input', async () => {
  const res = await client.embeddings.create({ model: 'bge-m3', input: ['a', 'b', 'c'], encoding_format: 'float' });
  assert.is(res.data.length, 3);
  assert.equal(res.data[1].embedding, embeddingFor(1));
  assert.is(mockA.requests[0].path, '/v1/embeddings');
  assert.is(mockA.requests[0].body.model, 'BAAI/bge-m3');
});

test('embeddings with base64 encoding are passed through and decode to the same floats', async () => {
  const r = await fetch(`${gw.url}/v1/embeddings`, {
    method: 'POST', headers: bearer(key), body: JSON.stringify({ model: 'bge-m3', input: ['x', 'y'], encoding_format: 'base64' }),
  });
  const body: any = await r.json();
  const buf = Buffer.from(body.data[1].embedding, 'base64');
  const floats = Array.from(new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4));
  assert.equal(floats, embeddingFor(1));
  // The SDK's default (it asks for base64 and decodes) works too.
  const viaSdk = await client.embeddings.create({ model: 'bge-m3', input: 'one string' });
  assert.equal(viaSdk.data[0].embedding, embeddingFor(0));
});

test('embeddings fail over to the next route on an upstream 503', async () => {
  mockA.enqueue({ kind: 'status', status: 503 });
  const r = await fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: bearer(key), body: JSON.stringify({ model: 'bge-m3', input: 'hi' }) });
  assert.is(r.status, 200);
  assert.is(r.headers.get('x-gw-provider'), 'together');
  assert.is(mockA.requests.length, 1);
  assert.is(mockB.requests.length, 1);
});

test('an embeddings request without input is refused with 400 bad_request', async () => {
  const r = await fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: bearer(key), body: JSON.stringify({ model: 'bge-m3' }) });
  assert.is(r.status, 400);
  assert.is((await r.json() as any).error.code, 'bad_request');
});

test('a chat model on the embeddings route is refused with 400, not sent upstream', async () => {
  const r = await fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: bearer(key), body: JSON.stringify({ model: 'sandbox/echo', input: 'x' }) });
  assert.is(r.status, 400);
  assert.is((await r.json() as any).error.code, 'bad_request');
});

test('the sandbox embeddings model answers base64 and float locally', async () => {
  const f = await client.embeddings.create({ model: 'sandbox/embed', input: ['a'], encoding_format: 'float' });
  assert.is(f.data[0].embedding.length, 64);
  const b = await client.embeddings.create({ model: 'sandbox/embed', input: ['a'] });
  assert.equal(b.data[0].embedding.map((x) => x.toFixed(5)), f.data[0].embedding.map((x) => x.toFixed(5)));
});

test.run();
