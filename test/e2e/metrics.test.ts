import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { networkInterfaces } from 'node:os';
import OpenAI from 'openai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { errorOf, query, waitForValue } from '../support/ledger.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { parsePromText, sampleSum, sampleValue, type PromFamily } from '../support/prom-text.js';
import { bearer, chatBody, waitFor } from '../support/wait.js';

const MODEL = 'llama-3.3-70b-instruct';
const CHAT = '/v1/chat/completions';
const TOKEN = 'metrics-token-0123456789abcdef';

let gw: GatewayProcess;
let mock: MockProvider;
let key: string;
let client: OpenAI;

test.before(async () => {
  mock = await startMockProvider();
  gw = await startGateway({ providers: { groq: { baseUrl: mock.url, apiKey: 'sk-groq' } } });
  ({ key } = await gw.orgAndKey());
  client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
test.after(async () => {
  await gw.cleanup();
  await mock.close();
});
test.before.each(() => mock.reset());

async function scrape(url: string, headers: Record<string, string> = {}): Promise<Map<string, PromFamily>> {
  const res = await fetch(`${url}/metrics`, { headers });
  assert.is(res.status, 200, await res.clone().text());
  assert.is(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  return parsePromText(await res.text());
}

const chat = (k: string, extra: Record<string, unknown> = {}) =>
  fetch(`${gw.url}${CHAT}`, { method: 'POST', headers: bearer(k), body: chatBody(extra) });

test('known traffic is counted exactly: answers by route, status and code, attempts, tokens and cost matching the ledger', async () => {
  // Two plain answers and a stream through the SDK.
  await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'one' }] });
  await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'two' }] });
  mock.enqueue({ kind: 'stream', chunks: 4 });
  const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'three' }], stream: true });
  for await (const _ of stream) { /* read to the end */ }
  // An upstream error: the only configured route fails, so the request fails with 502.
  mock.enqueue({ kind: 'status', status: 500, body: { error: { message: 'boom' } } });
  const failed = await chat(key);
  assert.is((await errorOf(failed)).code, 'all_routes_failed');
  // A key allowed 2 requests a minute: its third is refused by the limits gate.
  const limited = (await gw.orgAndKey({ name: 'limited', keyArgs: ['--rpm', '2'] })).key;
  assert.is((await chat(limited)).status, 200);
  assert.is((await chat(limited)).status, 200);
  const refused = await chat(limited);
  assert.is((await errorOf(refused)).code, 'rate_limit_exceeded');
  // A key the gateway does not know.
  const bad = await chat('gw-not-a-key');
  assert.is((await errorOf(bad)).code, 'invalid_api_key');

  // Every attempt is in the ledger before the totals are compared with it.
  const rows = await waitForValue(() => {
    const r = query(gw.dbPath, (db) => db.prepare('SELECT * FROM usage ORDER BY id').all() as any[]);
    return r.length === 6 && r;
  }, 5_000, 'six usage rows');
  let m = new Map<string, PromFamily>();
  await waitFor(async () => {
    m = await scrape(gw.url);
    return sampleValue(m, 'gw_ledger_written_records_total') === 6;
  }, 5_000, 'the ledger writes counted');

  const answers = (status: string, code: string) => sampleValue(m, 'gw_http_requests_total', { route: CHAT, status, code });
  assert.is(answers('200', ''), 5, 'three for the first key, two for the limited one');
  assert.is(answers('502', 'all_routes_failed'), 1);
  assert.is(answers('429', 'rate_limit_exceeded'), 1);
  assert.is(answers('401', 'invalid_api_key'), 1);
  assert.is(sampleSum(m, 'gw_http_requests_total', { route: CHAT }), 8);
  assert.is(sampleValue(m, 'gw_http_request_duration_seconds_count', { route: CHAT }), 8);
  assert.is(sampleValue(m, 'gw_limit_rejections_total', { code: 'rate_limit_exceeded' }), 1);

  const failedRow = rows.find((r) => r.status !== 200)!;
  const attempts = (status: string, code: string) =>
    sampleValue(m, 'gw_upstream_attempts_total', { endpoint: 'chat', provider: 'groq', model: MODEL, status, code });
  assert.is(attempts('200', ''), 5);
  assert.is(attempts(String(failedRow.status), failedRow.error_code), 1);
  const op = { gen_ai_operation_name: 'chat', gen_ai_provider_name: 'groq', gen_ai_request_model: MODEL };
  assert.is(sampleValue(m, 'gen_ai_client_operation_duration_seconds_count', { ...op, error_type: '' }), 5);
  assert.is(sampleValue(m, 'gen_ai_client_operation_duration_seconds_count', { ...op, error_type: failedRow.error_code }), 1);
  assert.is(sampleValue(m, 'gen_ai_server_time_to_first_token_seconds_count', op), 1, 'the one served stream');
  assert.is(sampleValue(m, 'gen_ai_server_request_duration_seconds_count', { gen_ai_operation_name: 'chat' }), 5);
  assert.is(sampleValue(m, 'gw_overhead_seconds_count', { endpoint: 'chat' }), 5);
  assert.ok(sampleValue(m, 'gw_overhead_seconds_sum', { endpoint: 'chat' })! <= sampleValue(m, 'gen_ai_server_request_duration_seconds_sum', { gen_ai_operation_name: 'chat' })!,
    'the gateway\'s share is part of the request\'s time');

  const billable = rows.filter((r) => r.billable === 1);
  const sum = (col: string) => billable.reduce((s, r) => s + r[col], 0);
  assert.ok(sum('prompt_tokens') > 0 && sum('cost_micros') > 0, 'the traffic was billed');
  const tokens = (type: string) => sampleValue(m, 'gw_tokens_total', { provider: 'groq', model: MODEL, type });
  assert.is(tokens('input'), sum('prompt_tokens'));
  assert.is(tokens('output'), sum('completion_tokens'));
  assert.is(tokens('cached'), sum('cached_tokens'));
  assert.is(sampleValue(m, 'gw_cost_inr_total', { provider: 'groq', model: MODEL }), sum('cost_micros') / 1e6);
  assert.is(sampleValue(m, 'gen_ai_client_token_usage_sum', { ...op, gen_ai_token_type: 'input' }), sum('prompt_tokens'));
  assert.is(sampleValue(m, 'gen_ai_client_token_usage_count', { ...op, gen_ai_token_type: 'output' }), 5);
});

test('breakers, the ledger, the upstream pool and the process are reported', async () => {
  const m = await scrape(gw.url);
  assert.is(sampleValue(m, 'gw_circuit_breaker_state', { route: 'groq:llama-3.3-70b-versatile', provider: 'groq', state: 'closed' }), 1);
  assert.is(sampleValue(m, 'gw_circuit_breaker_state', { route: 'groq:llama-3.3-70b-versatile', provider: 'groq', state: 'open' }), 0);
  assert.is(sampleValue(m, 'gw_ledger_pending_records'), 0);
  assert.ok(sampleValue(m, 'gw_ledger_write_duration_seconds_count')! >= 1);
  assert.ok(sampleValue(m, 'gw_upstream_connections', { state: 'open' })! >= 0);
  assert.ok(sampleValue(m, 'process_cpu_seconds_total')! > 0);
  assert.ok(sampleValue(m, 'process_resident_memory_bytes')! > 10_000_000);
  assert.ok(sampleValue(m, 'process_start_time_seconds')! > Date.now() / 1000 - 3_600);
  assert.ok(sampleValue(m, 'nodejs_heap_size_used_bytes')! > 0);
  // The young generation by its V8 name, less the suffix: at least V8's first 1 MiB semi-space.
  assert.ok(sampleValue(m, 'nodejs_heap_space_size_total_bytes', { space: 'new' })! >= 1024 * 1024);
  assert.ok(sampleValue(m, 'nodejs_heap_space_size_total_bytes', { space: 'old' })! > 0);
  assert.ok(sampleSum(m, 'nodejs_active_resources') > 0);
  assert.is(sampleValue(m, 'gw_build_info', { version: '0.1.0' }), 1);
  for (const f of m.values()) assert.ok(f.help && f.type !== 'untyped', `${f.name} has HELP and TYPE`);
});

test('a stream the provider cuts after its first bytes keeps its 200 and is counted with code stream_interrupted', async () => {
  const before = sampleValue(await scrape(gw.url), 'gw_http_requests_total', { route: CHAT, status: '200', code: 'stream_interrupted' }) ?? 0;
  mock.enqueue({ kind: 'cut', afterChunks: 2 });
  const res = await chat(key, { stream: true });
  assert.is(res.status, 200);
  assert.match(await res.text(), /stream_interrupted/);
  await waitFor(async () =>
    sampleValue(await scrape(gw.url), 'gw_http_requests_total', { route: CHAT, status: '200', code: 'stream_interrupted' }) === before + 1,
  5_000, 'the cut stream counted');
});

test('every series the sample Grafana dashboard and alert rules query is one the gateway serves', async () => {
  await (await chat(key)).arrayBuffer();
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const served = new Set(text.split('\n').filter((l) => l.startsWith('# TYPE ')).map((l) => l.split(' ')[2]));
  // The files also name labels (gen_ai_provider_name…), which look like series names.
  const labels = new Set([...text.matchAll(/[{,]([a-z_][a-z0-9_]*)="/g)].map((m) => m[1]));
  // Families that exist only once their event happened (a hit, a detection) or with traces on.
  const onEvent = new Set(['gw_cache_hits_total', 'gw_guardrail_detections_total', 'gw_trace_spans_total']);
  for (const file of ['grafana-gateway.json', 'prometheus-alerts.yml']) {
    const doc = readFileSync(join(ROOT, 'docs', file), 'utf8');
    const names = new Set([...doc.matchAll(/\b(?:gw|gen_ai|process|nodejs)_[a-z0-9_]+/g)].map((m) => m[0].replace(/_(?:bucket|sum|count)$/, '')));
    assert.ok(names.size > 5, `${file} names series`);
    for (const n of names) if (!labels.has(n)) assert.ok(served.has(n) || onEvent.has(n), `${file} queries ${n}, which /metrics does not serve`);
  }
});

test('a breaker opened by failures shows as open', async () => {
  mock.setDefault({ kind: 'status', status: 503 });
  const open = { route: 'groq:llama-3.3-70b-versatile', provider: 'groq', state: 'open' };
  await waitFor(async () => {
    await (await chat(key)).arrayBuffer();
    return sampleValue(await scrape(gw.url), 'gw_circuit_breaker_state', open) === 1;
  }, 10_000, 'the circuit opening');
  const m = await scrape(gw.url);
  assert.is(sampleValue(m, 'gw_circuit_breaker_state', { route: 'groq:llama-3.3-70b-versatile', provider: 'groq', state: 'open' }), 1);
  assert.is(sampleValue(m, 'gw_circuit_breaker_state', { route: 'groq:llama-3.3-70b-versatile', provider: 'groq', state: 'closed' }), 0);
});

test('with metrics.token set, a scrape needs it as Bearer: missing or wrong is 401 in the envelope, and guessing is rate-limited', async () => {
  const tokened = await startGateway({ limits: { publicRpmPerIp: 3 } }, { GW_METRICS_TOKEN: TOKEN });
  try {
    const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer wrong-token-0123456789' }, { authorization: TOKEN }];
    for (const headers of attempts) {
      const res = await fetch(`${tokened.url}/metrics`, { headers });
      assert.is(res.status, 401);
      const e = await errorOf(res);
      assert.equal([e.code, e.type], ['invalid_metrics_token', 'authentication_error']);
    }
    // Refused scrapes count in the IP's public window: a token cannot be guessed at speed.
    const guess = await fetch(`${tokened.url}/metrics`, { headers: { authorization: 'Bearer guess-0123456789abcdef' } });
    assert.is((await errorOf(guess)).code, 'rate_limit_exceeded');
    // Scrapes with the token are not limited.
    for (let i = 0; i < 4; i++) await scrape(tokened.url, { authorization: `Bearer ${TOKEN}` });
    const m = await scrape(tokened.url, { authorization: `Bearer ${TOKEN}` });
    assert.is(sampleValue(m, 'gw_http_requests_total', { route: '/metrics', status: '401', code: 'invalid_metrics_token' }), 3);
    assert.is(sampleValue(m, 'gw_http_requests_total', { route: '/metrics', status: '200', code: '' }), 4);
  } finally {
    await tokened.cleanup();
  }
});

test('without a token, a client from another address is refused 403 and a loopback one answered', async () => {
  const ip = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
  if (ip === undefined) {
    // Under CI nothing may skip: a runner without a network address fails here rather than pass unchecked.
    assert.not.ok(process.env.CI === 'true', 'CI needs a non-loopback IPv4 address for this test');
    console.log('skipped: this machine has no non-loopback IPv4 address');
    return;
  }
  const open = await startGateway({ host: '0.0.0.0' });
  try {
    const res = await fetch(`http://${ip}:${open.port}/metrics`);
    assert.is(res.status, 403);
    assert.is((await errorOf(res)).code, 'forbidden');
    await scrape(`http://127.0.0.1:${open.port}`);
  } finally {
    await open.cleanup();
  }
});

test('metrics.enabled false: no /metrics route', async () => {
  const off = await startGateway({ metrics: { enabled: false } });
  try {
    const res = await fetch(`${off.url}/metrics`);
    assert.is(res.status, 404);
    assert.is((await errorOf(res)).code, 'not_found');
  } finally {
    await off.cleanup();
  }
});

test.run();
