// The public catalog reads beside /v1/models: the provider registry and /llms.txt, with no key.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';

let gw: GatewayProcess;
let mock: MockProvider;

test.before(async () => {
  mock = await startMockProvider();
  gw = await startGateway({ providers: { groq: { baseUrl: mock.url, apiKey: 'k1' } } });
});
test.after(async () => {
  await gw.cleanup();
  await mock.close();
});

const get = (path: string) => fetch(`${gw.url}${path}`);

test('GET /v1/providers: every catalog provider, what this gateway can do with it, and never its base URL', async () => {
  const r = await get('/v1/providers');
  assert.is(r.status, 200);
  const { object, data } = await r.json() as any;
  assert.is(object, 'list');
  assert.equal(data.map((p: any) => p.id), ['openai', 'groq', 'together', 'fireworks', 'deepinfra', 'mistral', 'sarvam', 'sandbox']);
  const byId = Object.fromEntries(data.map((p: any) => [p.id, p]));
  assert.equal(byId.groq, {
    id: 'groq', name: 'Groq', kind: 'openai-compatible', residency: 'us', configured: true, byok: true, platform_key_fallback: true,
    stream_usage: true, trains_on_inputs: false, zero_retention: true, models: ['llama-3.3-70b-instruct', 'llama-3.1-8b-instruct'], health: 'ok',
  });
  assert.equal([byId.together.configured, byId.together.platform_key_fallback, byId.together.byok], [false, false, true]);
  assert.equal([byId.sarvam.residency, byId.sarvam.stream_usage], ['in', false]);
  assert.equal([byId.sandbox.configured, byId.sandbox.byok, byId.sandbox.platform_key_fallback], [true, false, false]);
  assert.not.ok(JSON.stringify(data).includes(String(mock.port)), 'a configured base URL is not published');
});

test('GET /llms.txt: plain text naming every route of /openapi.json and every model of /v1/models', async () => {
  const r = await get('/llms.txt');
  assert.is(r.status, 200);
  assert.ok(r.headers.get('content-type')!.startsWith('text/plain'));
  const text = await r.text();
  assert.ok(text.startsWith('# gw inference gateway\n'), text.slice(0, 80));
  const openapi = await (await get('/openapi.json')).json() as any;
  for (const [path, methods] of Object.entries(openapi.paths) as [string, Record<string, unknown>][]) {
    const uwsPath = path.replace(/\{(\w+)\}/g, ':$1');
    for (const m of Object.keys(methods)) assert.ok(text.includes(`- ${m.toUpperCase()} ${uwsPath} (`), `${m} ${path}`);
  }
  const models = await (await get('/v1/models')).json() as any;
  for (const m of models.data) assert.ok(text.includes(`\n- ${m.id}: `), m.id);
  assert.ok(text.includes('(no provider configured on this gateway)'), 'unconfigured models are marked');
  const llama = text.split('\n').find((l) => l.startsWith('- llama-3.3-70b-instruct: '))!;
  const price = models.data.find((m: any) => m.id === 'llama-3.3-70b-instruct').pricing;
  assert.ok(llama.includes(`₹${price.input} in / ₹${price.output} out per 1M tokens`), llama);
  assert.not.ok(llama.includes('no provider configured'), 'a model with a configured route is not marked');
});

test.run();
