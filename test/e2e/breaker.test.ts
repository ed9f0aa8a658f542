import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { GatewayProcess } from '../support/gateway-process.js';
import type { MockProvider } from '../support/mock-provider.js';
import { startThreeProviders, type ThreeProviders } from '../support/three-providers.js';
import { chatBody, waitFor } from '../support/wait.js';

let t: ThreeProviders;
let gw: GatewayProcess;
let groq: MockProvider;
let together: MockProvider;
let deepinfra: MockProvider;

const health = async () => (await (await fetch(`${gw.url}/health`)).json()) as any;
const groqRoute = 'groq:llama-3.3-70b-versatile';
const post = (body: string) => t.post(body);

test.before(async () => {
  t = await startThreeProviders({
    upstream: { headersTimeoutMs: 400, bodyTimeoutMs: 400 },
    breaker: { resetTimeoutMs: 600, volumeThreshold: 3, errorThresholdPercentage: 50, rollingWindowMs: 60_000 },
  });
  ({ gw, groq, together, deepinfra } = t);
});
test.after(() => t.close());
test.before.each(() => t.reset());

test('the breaker opens after repeated failures, skips the route, then recovers half-open to closed', async () => {
  groq.setDefault({ kind: 'status', status: 500 });
  for (let i = 0; i < 4; i++) assert.is((await post(chatBody())).headers.get('x-gw-provider'), 'together');
  const h = await health();
  assert.is(h.routes.find((r: any) => r.id === groqRoute).breaker, 'open');
  assert.is(h.status, 'degraded');
  const models = await (await fetch(`${gw.url}/v1/models`)).json() as any;
  const llama = models.data.find((m: any) => m.id === 'llama-3.3-70b-instruct');
  assert.is(llama.routes.find((r: any) => r.provider === 'groq').health, 'open');
  const providers = await (await fetch(`${gw.url}/v1/providers`)).json() as any;
  assert.equal(providers.data.filter((p: any) => p.health !== 'ok').map((p: any) => [p.id, p.health]), [['groq', 'degraded']]);

  const before = groq.requests.length;
  await post(chatBody());
  assert.is(groq.requests.length, before, 'an open circuit is not called');

  groq.setDefault({ kind: 'ok' });
  await waitFor(async () => (await health()).routes.find((r: any) => r.id === groqRoute).breaker === 'half_open', 5_000, 'half-open');
  const r = await post(chatBody());
  assert.is(r.headers.get('x-gw-provider'), 'groq', 'the trial request goes to the recovering route');
  assert.is((await health()).routes.find((x: any) => x.id === groqRoute).breaker, 'closed');
});

test('a pinned provider whose circuit is open gives 400 no_route', async () => {
  deepinfra.setDefault({ kind: 'status', status: 500 });
  for (let i = 0; i < 4; i++) await post(chatBody({ provider: ['deepinfra', 'together'] }));
  const r = await post(chatBody({ provider: 'deepinfra' }));
  assert.is(r.status, 400);
  const e = (await r.json() as any).error;
  assert.is(e.code, 'no_route');
  assert.ok(e.message.includes('down'));
});

test.run();
