import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, streamText, type MockProvider } from '../support/mock-provider.js';
import { bearer, chatBody, readSse } from '../support/wait.js';

let gw: GatewayProcess;
let a: MockProvider;
let b: MockProvider;
let key: string;

test.before(async () => {
  a = await startMockProvider();
  b = await startMockProvider();
  gw = await startGateway({
    upstream: { headersTimeoutMs: 2_000, bodyTimeoutMs: 2_000 },
    providers: { groq: { baseUrl: a.url, apiKey: 'k1' }, together: { baseUrl: b.url, apiKey: 'k2' } },
  });
  ({ key } = await gw.orgAndKey());
});
test.after(async () => {
  await gw.cleanup();
  await a.close();
  await b.close();
});
test.before.each(() => {
  a.reset();
  b.reset();
});

const stream = (signal?: AbortSignal) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody({ stream: true }), signal });

test('a stream cut mid-way ends with an SSE error event and [DONE], never a clean end', async () => {
  a.enqueue({ kind: 'cut', afterChunks: 2 });
  const r = await stream();
  assert.is(r.status, 200);
  assert.is(r.headers.get('x-gw-provider'), 'groq');
  const events = await readSse(r);
  assert.is(events.at(-1), '[DONE]');
  const err = JSON.parse(events.at(-2)!);
  assert.is(err.error.code, 'stream_interrupted');
  assert.is(err.error.type, 'upstream_error');
  assert.is(JSON.parse(events[0]).choices[0].delta.content, 'tok0 ');
  assert.is(b.requests.length, 0, 'no failover once bytes reached the client');
});

test('a stream that fails before its first byte fails over to the next route', async () => {
  a.enqueue({ kind: 'cut', afterChunks: 0 });
  const r = await stream();
  assert.is(r.headers.get('x-gw-provider'), 'together');
  const events = await readSse(r);
  assert.is(events.at(-1), '[DONE]');
  const text = events.slice(0, -1).map((e) => JSON.parse(e)).map((c) => c.choices[0]?.delta?.content ?? '').join('');
  assert.is(text, streamText(3));
});

test('a client that disconnects mid-stream aborts the upstream request', async () => {
  a.enqueue({ kind: 'stream', chunks: 200, intervalMs: 20 });
  const ac = new AbortController();
  const r = await stream(ac.signal);
  const reader = r.body!.getReader();
  await reader.read();
  const aborted = a.waitForAbort(5_000);
  ac.abort();
  await aborted;
  assert.is(a.aborted, 1);
});

test('a client that disconnects while the upstream is still thinking aborts the upstream request', async () => {
  a.enqueue({ kind: 'stall' });
  const ac = new AbortController();
  const pending = fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody(), signal: ac.signal }).catch(() => null);
  await a.waitForRequests(1, 5_000);
  const aborted = a.waitForAbort(5_000);
  ac.abort();
  await aborted;
  await pending;
  assert.is(b.requests.length, 0, 'an aborted request is not failed over');
});

test('many concurrent streams are each delivered whole', async () => {
  a.setDefault({ kind: 'stream', chunks: 20 });
  const results = await Promise.all(Array.from({ length: 20 }, async () => readSse(await stream())));
  for (const events of results) {
    assert.is(events.at(-1), '[DONE]');
    assert.is(events.length, 20 + 1, '20 content chunks and [DONE]: no usage chunk, which the client did not ask for');
  }
});

test.run();
