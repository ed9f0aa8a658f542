// A provider that answers without end (a misconfigured self-hosted server, a hostile custom
// endpoint) must cost the gateway a bounded amount of memory: buffered answers stop at
// upstream.maxResponseBytes and the route fails over; streams are relayed without being held.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { MockProvider } from '../support/mock-provider.js';
import { startThreeProviders, type ThreeProviders } from '../support/three-providers.js';
import { chatBody } from '../support/wait.js';

const LIMIT = 64 * 1024;
let t: ThreeProviders;
let groq: MockProvider;
let together: MockProvider;
let deepinfra: MockProvider;

test.before(async () => {
  t = await startThreeProviders({ upstream: { maxResponseBytes: LIMIT }, breaker: { volumeThreshold: 100_000 } });
  ({ groq, together, deepinfra } = t);
});
test.after(() => t.close());
test.before.each(() => t.reset());

test('an answer that never ends is cut at the limit, its connection closed, and the next route serves', async () => {
  groq.enqueue({ kind: 'flood' });
  const r = await t.post(chatBody());
  assert.is(r.status, 200);
  assert.is(r.headers.get('x-gw-provider'), 'together');
  await groq.waitForAbort(5_000);
  assert.is(together.requests.length, 1);
});

test('an answer within the limit is served whole', async () => {
  const content = 'x'.repeat(LIMIT - 1_024);
  groq.enqueue({ kind: 'ok', content });
  const r = await t.post(chatBody());
  assert.is(r.status, 200);
  assert.is((await r.json() as any).choices[0].message.content, content);
});

test('answers over the limit from every route give 502 all_routes_failed saying why', async () => {
  const content = 'x'.repeat(LIMIT + 1);
  for (const m of [groq, together, deepinfra]) m.enqueue({ kind: 'ok', content });
  const r = await t.post(chatBody());
  assert.is(r.status, 502);
  const e = (await r.json() as any).error;
  assert.is(e.code, 'all_routes_failed');
  assert.ok(e.message.includes(`larger than ${LIMIT} bytes`), e.message);
});

test('an answer whose content-length is over the limit is refused before its body is read', async () => {
  // Declares 1 GiB and sends a few bytes: waiting for the rest would stall until the body timeout.
  groq.enqueue({ kind: 'status', status: 200, body: { partial: true }, headers: { 'content-length': String(1024 ** 3) } });
  const started = Date.now();
  const r = await t.post(chatBody());
  assert.is(r.status, 200);
  assert.is(r.headers.get('x-gw-provider'), 'together');
  assert.ok(Date.now() - started < 5_000, 'no wait for the declared body (the body timeout is 120 s)');
});

test('a 500 whose body never ends is judged by its status and fails over', async () => {
  groq.enqueue({ kind: 'flood', status: 500 });
  const r = await t.post(chatBody());
  assert.is(r.status, 200);
  assert.is(r.headers.get('x-gw-provider'), 'together');
  await groq.waitForAbort(5_000);
});

test('a stream whose line never ends is relayed, and closed upstream when the client hangs up', async () => {
  groq.enqueue({ kind: 'flood', contentType: 'text/event-stream' });
  const ac = new AbortController();
  const r = await t.post(chatBody({ stream: true }), ac.signal);
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
  const next = await t.post(chatBody());
  assert.is(next.status, 200);
});

test.run();
