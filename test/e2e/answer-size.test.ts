// A provider that answers without end (a misconfigured self-hosted server, a hostile custom
// endpoint) must cost the gateway a bounded amount of memory: buffered answers stop at
// upstream.maxResponseBytes and the route fails over; streams are relayed without being held.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { bearer, chatBody } from '../support/wait.js';

const LIMIT = 64 * 1024;
let gw: GatewayProcess;
let groq: MockProvider;
let together: MockProvider;
let deepinfra: MockProvider;
let key: string;

const post = (body: string, signal?: AbortSignal) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body, signal });

test.before(async () => {
  groq = await startMockProvider();
  together = await startMockProvider();
  deepinfra = await startMockProvider();
  gw = await startGateway({
    upstream: { maxResponseBytes: LIMIT },
    breaker: { volumeThreshold: 100_000 },
    providers: {
      groq: { baseUrl: groq.url, apiKey: 'k1' },
      together: { baseUrl: together.url, apiKey: 'k2' },
      deepinfra: { baseUrl: deepinfra.url, apiKey: 'k3' },
    },
  });
  ({ key } = await gw.orgAndKey());
});
test.after(async () => {
  await gw.cleanup();
  for (const m of [groq, together, deepinfra]) await m.close();
});
test.before.each(() => {
  for (const m of [groq, together, deepinfra]) m.reset();
});

test('an answer that never ends is cut at the limit, its connection closed, and the next route serves', async () => {
  groq.enqueue({ kind: 'flood' });
  const r = await post(chatBody());
  assert.is(r.status, 200);
  assert.is(r.headers.get('x-gw-provider'), 'together');
  await groq.waitForAbort(5_000);
  assert.is(together.requests.length, 1);
});

test('an answer within the limit is served whole', async () => {
  const content = 'x'.repeat(LIMIT - 1_024);
  groq.enqueue({ kind: 'ok', content });
  const r = await post(chatBody());
  assert.is(r.status, 200);
  assert.is((await r.json() as any).choices[0].message.content, content);
});

test('answers over the limit from every route give 502 all_routes_failed saying why', async () => {
  const content = 'x'.repeat(LIMIT + 1);
  for (const m of [groq, together, deepinfra]) m.enqueue({ kind: 'ok', content });
  const r = await post(chatBody());
  assert.is(r.status, 502);
  const e = (await r.json() as any).error;
  assert.is(e.code, 'all_routes_failed');
  assert.ok(e.message.includes(`larger than ${LIMIT} bytes`), e.message);
});

test('a 500 whose body never ends is judged by its status and fails over', async () => {
  groq.enqueue({ kind: 'flood', status: 500 });
  const r = await post(chatBody());
  assert.is(r.status, 200);
  assert.is(r.headers.get('x-gw-provider'), 'together');
  await groq.waitForAbort(5_000);
});

test('a stream whose line never ends is relayed, and closed upstream when the client hangs up', async () => {
  groq.enqueue({ kind: 'flood', contentType: 'text/event-stream' });
  const ac = new AbortController();
  const r = await post(chatBody({ stream: true }), ac.signal);
  assert.is(r.status, 200);
  assert.is(r.headers.get('x-gw-provider'), 'groq');
  const reader = r.body!.getReader();
  let received = 0;
  while (received < 8 * 1024 * 1024) {
    const { value, done } = await reader.read();
    if (done) break;
    received += value.length;
  }
  assert.ok(received >= 8 * 1024 * 1024, `relayed ${received} bytes, far past the limit for buffered answers`);
  ac.abort();
  await groq.waitForAbort(5_000);
  const next = await post(chatBody());
  assert.is(next.status, 200);
});

test.run();
