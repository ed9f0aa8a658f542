import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { MockProvider } from '../support/mock-provider.js';
import { startThreeProviders, type ThreeProviders } from '../support/three-providers.js';
import { chatBody } from '../support/wait.js';

let t: ThreeProviders;
let groq: MockProvider;
let together: MockProvider;
let deepinfra: MockProvider;

test.before(async () => {
  t = await startThreeProviders({
    upstream: { headersTimeoutMs: 400, bodyTimeoutMs: 400 },
    // Breakers would open during this file's deliberate failures; breaker.test.ts covers them.
    breaker: { volumeThreshold: 100_000 },
  });
  ({ groq, together, deepinfra } = t);
});
test.after(() => t.close());
test.before.each(() => t.reset());

for (const [what, behavior] of [
  ['an upstream 500', { kind: 'status', status: 500 }],
  ['an upstream 429', { kind: 'status', status: 429 }],
  ['a stalled upstream (headers timeout)', { kind: 'stall' }],
] as const) {
  test(`fails over to the next route in catalog order on ${what}`, async () => {
    groq.enqueue(behavior as any);
    const r = await t.post(chatBody());
    assert.is(r.status, 200);
    assert.is(r.headers.get('x-gw-provider'), 'together');
    assert.is(groq.requests.length, 1);
    assert.is(together.requests.length, 1);
    assert.is(deepinfra.requests.length, 0);
  });
}

// A reset on a kept-alive socket before any answer looks exactly like a server dropping an idle
// socket as the request arrived: the client resends once on a fresh socket before failing over.
test('a connection reset on a reused socket is resent once, then fails over if the fresh socket resets too', async () => {
  assert.is((await t.post(chatBody())).headers.get('x-gw-provider'), 'groq', 'warm a kept-alive socket to groq');
  groq.reset();
  groq.enqueue({ kind: 'reset' });
  groq.enqueue({ kind: 'reset' });
  const r = await t.post(chatBody());
  assert.is(r.status, 200);
  assert.is(r.headers.get('x-gw-provider'), 'together');
  assert.is(groq.requests.length, 2);
  assert.is(together.requests.length, 1);
  assert.is(deepinfra.requests.length, 0);
});

test('a provider that dropped a kept-alive socket still serves the request', async () => {
  assert.is((await t.post(chatBody())).headers.get('x-gw-provider'), 'groq');
  groq.reset();
  groq.enqueue({ kind: 'reset' });
  const r = await t.post(chatBody());
  assert.is(r.status, 200);
  assert.is(r.headers.get('x-gw-provider'), 'groq');
  assert.is(groq.requests.length, 2);
  assert.is(together.requests.length, 0);
});

test('an upstream 400 is returned in the envelope with the upstream message, without failover', async () => {
  groq.enqueue({ kind: 'status', status: 400, body: { error: { message: 'max_tokens is too large', type: 'invalid_request_error', code: 'context_length_exceeded' } } });
  const r = await t.post(chatBody());
  assert.is(r.status, 400);
  const e = (await r.json() as any).error;
  assert.is(e.message, 'max_tokens is too large');
  assert.is(e.code, 'context_length_exceeded');
  assert.is(e.type, 'invalid_request_error');
  assert.is(together.requests.length, 0, 'no failover on a client error');
});

test('every route failing gives 502 all_routes_failed naming the last upstream error', async () => {
  groq.enqueue({ kind: 'status', status: 500 });
  together.enqueue({ kind: 'status', status: 503 });
  deepinfra.enqueue({ kind: 'status', status: 502, body: { error: { message: 'deepinfra is melting' } } });
  const r = await t.post(chatBody());
  assert.is(r.status, 502);
  const e = (await r.json() as any).error;
  assert.is(e.code, 'all_routes_failed');
  assert.ok(r.headers.get('x-gw-request-id'), 'a failed request can be found in the ledger by its id');
  assert.ok(e.message.includes('deepinfra is melting'), e.message);
  assert.ok(e.message.includes('deepinfra'), e.message);
});

test('a provider pin restricts routing to that provider; an array gives the order', async () => {
  let r = await t.post(chatBody({ provider: 'deepinfra' }));
  assert.is(r.headers.get('x-gw-provider'), 'deepinfra');
  r = await t.post(chatBody({ provider: ['deepinfra', 'groq'] }));
  assert.is(r.headers.get('x-gw-provider'), 'deepinfra');
  assert.is(groq.requests.length, 0);
  deepinfra.enqueue({ kind: 'status', status: 500 });
  r = await t.post(chatBody({ provider: ['deepinfra', 'groq'] }));
  assert.is(r.headers.get('x-gw-provider'), 'groq');
  assert.is(together.requests.length, 0, 'a pinned list never strays to other providers');
});

test('optimize price orders routes cheapest first', async () => {
  const r = await t.post(chatBody({ optimize: 'price' }));
  assert.is(r.headers.get('x-gw-provider'), 'deepinfra');
});

test('a pin to an unconfigured provider, or an unsatisfiable data_policy, gives 400 no_route', async () => {
  let r = await t.post(chatBody({ provider: 'fireworks' }));
  assert.is(r.status, 400);
  assert.is((await r.json() as any).error.code, 'no_route');
  r = await t.post(chatBody({ data_policy: 'india_only' }));
  assert.is(r.status, 400);
  assert.is((await r.json() as any).error.code, 'no_route');
  r = await t.post(chatBody({ data_policy: 'somewhere' }));
  assert.is(r.status, 400);
  assert.is((await r.json() as any).error.code, 'bad_request');
  assert.is(groq.requests.length + together.requests.length + deepinfra.requests.length, 0);
});

test.run();
