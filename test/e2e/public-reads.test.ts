// The public reads beside /v1/models, with no key: the provider registry, /llms.txt, and the
// traffic statistics built from the ledger.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI, { NotFoundError } from 'openai';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { bearer, chatBody, waitFor } from '../support/wait.js';

let gw: GatewayProcess;
let mock: MockProvider;
let other: MockProvider;

test.before(async () => {
  mock = await startMockProvider();
  other = await startMockProvider();
  gw = await startGateway({
    breaker: { volumeThreshold: 100_000 },
    providers: { groq: { baseUrl: mock.url, apiKey: 'k1' }, together: { baseUrl: other.url, apiKey: 'k2' } },
  });
});
test.after(async () => {
  await gw.cleanup();
  await mock.close();
  await other.close();
});

const get = (path: string) => fetch(`${gw.url}${path}`);

test('GET /v1/providers: every catalog provider, what this gateway can do with it, and never its base URL', async () => {
  const r = await get('/v1/providers');
  assert.is(r.status, 200);
  const { object, data } = await r.json() as any;
  assert.is(object, 'list');
  assert.equal(data.map((p: any) => p.id), ['openai', 'groq', 'together', 'fireworks', 'deepinfra', 'mistral', 'anthropic', 'sarvam', 'sarvam-speech', 'gemini', 'speaches',
    'sandbox']);
  const byId = Object.fromEntries(data.map((p: any) => [p.id, p]));
  assert.equal(byId.groq, {
    id: 'groq', name: 'Groq', kind: 'openai-compatible', residency: 'us', configured: true, byok: true, platform_key_fallback: true,
    stream_usage: true, trains_on_inputs: false, zero_retention: true, self_hosted: false,
    models: ['llama-3.3-70b-instruct', 'llama-3.1-8b-instruct', 'whisper-large-v3', 'whisper-large-v3-turbo'], health: 'ok',
  });
  // Self-hosted and not turned on: listed, not configured, and never tried.
  assert.equal([byId.speaches.configured, byId.speaches.self_hosted, byId.speaches.platform_key_fallback], [false, true, false]);
  assert.equal([byId.fireworks.configured, byId.fireworks.platform_key_fallback, byId.fireworks.byok], [false, false, true]);
  assert.equal([byId.sarvam.residency, byId.sarvam.stream_usage], ['in', false]);
  assert.equal([byId.gemini.kind, byId.gemini.residency, byId.gemini.byok, byId.gemini.models],
    ['gemini', 'us', true, ['gemini-2.5-pro', 'gemini-2.5-flash', 'gemini-2.5-flash-lite', 'gemini-2.0-flash', 'gemini-embedding-001']]);
  assert.equal([byId.anthropic.kind, byId.anthropic.residency, byId.anthropic.configured, byId.anthropic.stream_usage, byId.anthropic.models],
    ['anthropic', 'us', false, false, ['claude-sonnet-5-5', 'claude-sonnet-5', 'claude-opus-5', 'claude-sonnet-4-5', 'claude-sonnet-4', 'claude-opus-4-5', 'claude-opus-4-1', 'claude-haiku-4-5', 'claude-3-5-haiku']]);
  assert.equal([byId.sandbox.configured, byId.sandbox.byok, byId.sandbox.platform_key_fallback], [true, false, false]);
  assert.not.ok(JSON.stringify(data).includes(String(mock.port)), 'a configured base URL is not published');
});

test('GET /v1/models/{id}: models.retrieve gives the object /v1/models lists, slash ids included; unknown ids 404 model_not_found', async () => {
  const client = new OpenAI({ apiKey: 'not-needed', baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const { data: listed } = await (await get('/v1/models')).json() as any;
  for (const id of ['sandbox/echo', 'llama-3.3-70b-instruct', 'gpt-4o']) {
    const m = await client.models.retrieve(id);
    assert.is(m.id, id);
    assert.is(m.object, 'model');
    assert.type(m.created, 'number');
    assert.type(m.owned_by, 'string');
    const { _request_id: _, ...fields } = m as unknown as Record<string, unknown>;
    assert.equal(fields, listed.find((x: any) => x.id === id), `${id} as /v1/models lists it`);
  }
  // Written with its slash, as the SDK's docs show, or escaped: the same model.
  for (const path of ['/v1/models/sandbox/echo', '/v1/models/sandbox%2Fecho']) {
    const r = await get(path);
    assert.is(r.status, 200, path);
    assert.is((await r.json() as any).id, 'sandbox/echo');
  }
  for (const id of ['no-such-model', 'groq/not-in-the-catalog']) {
    try {
      await client.models.retrieve(id);
      assert.unreachable(`${id} should be 404`);
    } catch (e) {
      assert.instance(e, NotFoundError);
      assert.is((e as NotFoundError).code, 'model_not_found');
    }
  }
  // The stats routes beside it still answer for both id shapes.
  assert.is((await get('/v1/models/sandbox/echo/stats')).status, 200);
  assert.is(((await (await get('/v1/models/gpt-4o/stats')).json()) as any).model, 'gpt-4o');
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

test('model stats and rankings count this gateway\'s traffic, and are rebuilt from the ledger after a restart', async () => {
  const { key } = await gw.orgAndKey();
  const post = (body: string) => fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body });
  // 4 served by groq, 1 failing over from groq to together, 1 refused by groq as the caller's fault.
  mock.enqueue({ kind: 'ok' }, { kind: 'ok' }, { kind: 'ok' }, { kind: 'ok' }, { kind: 'status', status: 500 },
    { kind: 'status', status: 400 });
  for (let i = 0; i < 5; i++) assert.is((await post(chatBody())).status, 200);
  assert.is((await post(chatBody())).status, 400);
  const embed = await fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: bearer(key), body: JSON.stringify({ model: 'sandbox/embed', input: 'x' }) });
  assert.is(embed.status, 200);

  const expected = async () => {
    const stats = await (await get('/v1/models/llama-3.3-70b-instruct/stats')).json() as any;
    assert.equal([stats.model, stats.window_days, stats.requests, stats.attempts], ['llama-3.3-70b-instruct', 7, 5, 6]);
    assert.is(stats.success_rate, 0.8333, '5 of 6 attempts; the 400 was the caller\'s');
    assert.ok(stats.latency_ms.p50 > 0 && stats.latency_ms.p95 >= stats.latency_ms.p50, JSON.stringify(stats.latency_ms));
    assert.ok(stats.tokens_per_second > 0);
    const rankings = await (await get('/v1/rankings')).json() as any;
    assert.equal(rankings.windows.map((w: any) => w.days), [7, 30]);
    for (const w of rankings.windows) {
      assert.equal(w.data.map((e: any) => [e.rank, e.model, e.requests]), [[1, 'llama-3.3-70b-instruct', 5], [2, 'sandbox/embed', 1]]);
      assert.is(w.data[0].tokens, 5 * 18, '11 prompt + 7 completion tokens each');
    }
  };
  await expected();
  // The ledger has every row before a graceful stop ends; the restarted gateway reads them back.
  await gw.stop('SIGTERM');
  await gw.restart();
  await waitFor(async () => (await get('/health')).status === 200, 5_000, 'the restarted gateway');
  await expected();

  for (const path of ['/v1/models/sandbox/embed/stats', '/v1/models/sandbox%2Fembed/stats']) {
    const s = await (await get(path)).json() as any;
    assert.equal([s.model, s.requests], ['sandbox/embed', 1], path);
  }
  const missing = await get('/v1/models/no-such-model/stats');
  assert.is(missing.status, 404);
  assert.is((await missing.json() as any).error.code, 'model_not_found');
});

test.run();
