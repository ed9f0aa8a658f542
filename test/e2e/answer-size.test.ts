// A provider that answers without end (a misconfigured self-hosted server, a hostile custom
// endpoint) must cost the gateway a bounded amount of memory: buffered answers stop at
// upstream.maxResponseBytes and the route fails over; all of them together stop at
// upstream.maxBufferedBytes; streams are relayed without being held.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { MockProvider } from '../support/mock-provider.js';
import { startThreeProviders, type ThreeProviders } from '../support/three-providers.js';
import { chatBody } from '../support/wait.js';

const LIMIT = 64 * 1024;
/** Room for one answer near the limit and half of another. */
const BUDGET = 96 * 1024;
let t: ThreeProviders;
let groq: MockProvider;
let together: MockProvider;
let deepinfra: MockProvider;

test.before(async () => {
  t = await startThreeProviders({ upstream: { maxResponseBytes: LIMIT, maxBufferedBytes: BUDGET }, breaker: { volumeThreshold: 100_000 } });
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

/** A chat.completion of about `bytes` bytes, as `n` parts to be written apart. */
function answerParts(bytes: number, n: number): string[] {
  const head = '{"id":"chatcmpl-big","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,' +
    '"message":{"role":"assistant","content":"';
  const tail = '"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}';
  const body = head + 'x'.repeat(bytes - head.length - tail.length) + tail;
  const size = Math.ceil(body.length / n);
  return Array.from({ length: n }, (_, i) => body.slice(i * size, (i + 1) * size));
}
const JSON_TYPE = 'application/json';

test('answers buffered together past maxBufferedBytes: the one that crosses it gets 503 overloaded, not a failover', async () => {
  // Two 60 KiB answers arriving side by side over ~250 ms: 120 KiB would be held at once.
  const parts = answerParts(60 * 1024, 6);
  groq.enqueue({ kind: 'parts', parts, intervalMs: 50, contentType: JSON_TYPE }, { kind: 'parts', parts, intervalMs: 50, contentType: JSON_TYPE });
  const [x, y] = await Promise.all([t.post(chatBody()), t.post(chatBody())]);
  const statuses = [x.status, y.status].sort();
  assert.equal(statuses, [200, 503]);
  const refused = x.status === 503 ? x : y;
  assert.is(refused.headers.get('retry-after'), '1');
  const e = (await refused.json() as any).error;
  assert.equal([e.type, e.code], ['server_error', 'overloaded']);
  assert.ok(e.message.includes('large upstream answers'), e.message);
  assert.is((await (x.status === 200 ? x : y).json() as any).choices[0].message.content.length > 60_000, true);
  assert.is(together.requests.length + deepinfra.requests.length, 0, 'another route would not have helped');

  // Everything reserved was given back: the same answer alone is served.
  groq.enqueue({ kind: 'parts', parts, intervalMs: 20, contentType: JSON_TYPE });
  assert.is((await t.post(chatBody())).status, 200);
});

test('an answer the client abandons half-read gives its bytes back to the budget', async () => {
  // 50 KiB arrive, then the provider goes quiet and the client leaves.
  groq.enqueue({ kind: 'parts', parts: answerParts(100 * 1024, 2).slice(0, 1), contentType: JSON_TYPE, hold: true });
  const ac = new AbortController();
  const pending = t.post(chatBody(), ac.signal).catch(() => null);
  await groq.waitForRequests(1, 5_000);
  await new Promise((r) => setTimeout(r, 300));
  const aborted = groq.waitForAbort(5_000);
  ac.abort();
  await aborted;
  await pending;
  // 60 KiB more would not fit beside 50 KiB still reserved (96 KiB budget).
  groq.enqueue({ kind: 'parts', parts: answerParts(60 * 1024, 3), intervalMs: 30, contentType: JSON_TYPE });
  const r = await t.post(chatBody());
  assert.is(r.status, 200);
});

test.run();
