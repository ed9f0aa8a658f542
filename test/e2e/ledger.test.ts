import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { balanceMismatches, costOf, errorOf, GROQ, query, TOGETHER, waitForValue } from '../support/ledger.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { bearer, chatBody, readSse } from '../support/wait.js';
import { istDay, istMonth } from '../../src/lib/ist.js';

/** text-embedding-3-small: ₹1.76 per 1M input tokens. */
const EMBED = { input: 1.76, output: 0 };
let gw: GatewayProcess;
let groq: MockProvider;
let together: MockProvider;
let orgId: string;
let key: string;
let keyId: string;
let client: OpenAI;

test.before(async () => {
  groq = await startMockProvider();
  together = await startMockProvider();
  gw = await startGateway({
    breaker: { volumeThreshold: 100_000 },
    providers: {
      groq: { baseUrl: groq.url, apiKey: 'k1' }, together: { baseUrl: together.url, apiKey: 'k2' }, openai: { baseUrl: groq.url, apiKey: 'k3' },
    },
  });
  ({ orgId, key, keyId } = await gw.orgAndKey({ credit: 100 }));
  client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
test.after(async () => {
  await gw.cleanup();
  await groq.close();
  await together.close();
});
test.before.each(() => {
  groq.reset();
  together.reset();
});

const rowsOf = (requestId: string, n: number) => waitForValue(() => {
  const rows = query(gw.dbPath, (db) => db.prepare('SELECT * FROM usage WHERE request_id = ? ORDER BY attempt').all(requestId) as any[]);
  return rows.length === n && rows;
}, 5_000, `${n} ledger rows for ${requestId}`);
const balance = () => query(gw.dbPath, (db) => db.prepare('SELECT balance_micros FROM orgs WHERE id = ?').pluck().get(orgId) as number);

test('a chat completion is one billable row priced from its usage, and the org is debited once', async () => {
  const before = balance();
  const { data, response } = await client.chat.completions.create({
    model: 'llama-3.3-70b-instruct', messages: [{ role: 'user', content: 'hello' }],
  }).withResponse();
  assert.equal(data.usage, { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
  const [row] = await rowsOf(response.headers.get('x-gw-request-id')!, 1);
  const cost = costOf(GROQ, 11, 7);
  assert.is(cost, 1_059, '11 × 52 + 7 × 69.5 = 1 058.5, rounded half up');
  assert.equal({ ...row, id: 0, at: 0, latency_ms: 0, ttfb_ms: 0 }, {
    id: 0, at: 0, request_id: response.headers.get('x-gw-request-id'), org_id: orgId, workspace_id: row.workspace_id, key_id: keyId,
    endpoint: 'chat', model: 'llama-3.3-70b-instruct', provider: 'groq', route: row.route, attempt: 0, status: 200, error_code: null,
    prompt_tokens: 11, completion_tokens: 7, cost_micros: cost, latency_ms: 0, ttfb_ms: 0, streamed: 0, byok: 0, billable: 1, usage_estimated: 0, units: 0, queue_ms: 0,
    usage_clamped: 0, cached_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0, guardrail: null, cache_hit: 0,
  });
  assert.ok(Math.abs(row.at - Date.now()) < 10_000);
  assert.ok(row.latency_ms > 0);
  assert.is(balance(), before - cost);
});

test('a stream is recorded with the usage of its final chunk, asked for on the client\'s behalf and not passed on', async () => {
  groq.setDefault({ kind: 'stream', chunks: 5, intervalMs: 5 });
  const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody({ stream: true }) });
  const events = await readSse(res);
  assert.is(JSON.parse(events.at(-2)!).choices[0].finish_reason, 'stop', 'no usage chunk: the client did not ask for one');
  assert.equal(groq.requests[0].body.stream_options, { include_usage: true });
  const [row] = await rowsOf(res.headers.get('x-gw-request-id')!, 1);
  assert.is(row.streamed, 1);
  assert.is(row.prompt_tokens, 11);
  assert.is(row.completion_tokens, 5, 'from the last chunk, not from the usage:null of the content chunks');
  assert.is(row.usage_estimated, 0);
  assert.is(row.cost_micros, costOf(GROQ, 11, 5));
  assert.is(row.billable, 1);
  assert.ok(row.ttfb_ms !== null && row.ttfb_ms <= row.latency_ms);
});

test('a failed attempt followed by a successful failover is recorded twice but billed once, at the serving route\'s price', async () => {
  const before = balance();
  const day = istDay(Date.now());
  const dayCount = () => query(gw.dbPath, (db) => db.prepare('SELECT requests FROM key_daily_counts WHERE key_id = ? AND ist_day = ?').pluck().get(keyId, day) as number);
  const countBefore = dayCount();
  groq.enqueue({ kind: 'status', status: 500 });
  const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody() });
  assert.is(res.status, 200);
  assert.is(res.headers.get('x-gw-provider'), 'together');
  const [failed, served] = await rowsOf(res.headers.get('x-gw-request-id')!, 2);
  assert.is(failed.attempt, 0);
  assert.is(failed.provider, 'groq');
  assert.is(failed.status, 500);
  assert.ok(failed.error_code);
  assert.is(failed.billable, 0);
  assert.is(failed.cost_micros, 0);
  assert.is(served.attempt, 1);
  assert.is(served.provider, 'together');
  assert.is(served.status, 200);
  assert.is(served.billable, 1);
  assert.is(served.cost_micros, costOf(TOGETHER, 11, 7));
  assert.is(balance(), before - costOf(TOGETHER, 11, 7));
  assert.is(dayCount(), countBefore + 1, 'one request for the daily count');
});

test('a stream that fails before its first byte and fails over is billed once, from the serving stream\'s usage', async () => {
  groq.enqueue({ kind: 'cut', afterChunks: 0 });
  together.setDefault({ kind: 'stream', chunks: 4 });
  const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody({ stream: true }) });
  assert.is((await readSse(res)).at(-1), '[DONE]');
  const rows = await rowsOf(res.headers.get('x-gw-request-id')!, 2);
  assert.equal(rows.map((r) => [r.provider, r.billable, r.cost_micros, r.streamed]), [
    ['groq', 0, 0, 1],
    ['together', 1, costOf(TOGETHER, 11, 4), 1],
  ]);
});

test('a request every route fails is recorded attempt by attempt and costs nothing', async () => {
  const before = balance();
  groq.enqueue({ kind: 'status', status: 503 });
  together.enqueue({ kind: 'status', status: 500 });
  const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody({ provider: ['groq', 'together'] }) });
  assert.is(res.status, 502);
  assert.is((await errorOf(res)).code, 'all_routes_failed');
  // A 502 carries no request id: find the request by its first attempt's status, which nothing else in this file uses.
  const requestId = await waitForValue(() =>
    query(gw.dbPath, (db) => db.prepare('SELECT request_id FROM usage WHERE status = 503').pluck().get() as string | undefined), 5_000, 'the 503 attempt');
  const rows = await rowsOf(requestId, 2);
  assert.equal(rows.map((r) => [r.attempt, r.status, r.billable, r.cost_micros]), [[0, 503, 0, 0], [1, 500, 0, 0]]);
  assert.is(balance(), before);
});

test('embeddings are recorded and priced by their input tokens', async () => {
  const input = 'hello world, embeddings';
  const res = await client.embeddings.create({ model: 'text-embedding-3-small', input }).withResponse();
  const tokens = Math.ceil(input.length / 4);
  assert.is(res.data.usage.prompt_tokens, tokens);
  const [row] = await rowsOf(res.response.headers.get('x-gw-request-id')!, 1);
  assert.is(row.endpoint, 'embeddings');
  assert.is(row.model, 'text-embedding-3-small');
  assert.is(row.prompt_tokens, tokens);
  assert.is(row.cost_micros, costOf(EMBED, tokens, 0));
  assert.ok(row.cost_micros > 0);
});

test('balances, monthly spend and daily counts all recompute exactly from the usage rows and money events', async () => {
  await gw.cli('org', 'credit', orgId, '2.5');
  const other = await gw.orgAndKey({ credit: 1 });
  for (const k of [key, other.key]) {
    const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(k), body: chatBody() });
    assert.is(r.status, 200);
  }
  await waitForValue(() => query(gw.dbPath, (db) => db.prepare('SELECT COUNT(*) FROM usage WHERE key_id = ?').pluck().get(other.keyId)) === 1, 5_000, 'the last row');
  query(gw.dbPath, (db) => {
    assert.equal(balanceMismatches(db), []);
    const usage = db.prepare('SELECT * FROM usage').all() as any[];
    const spend = new Map<string, number>();
    const days = new Map<string, number>();
    for (const u of usage) {
      if (u.billable === 0) assert.is(u.cost_micros, 0, 'an attempt that did not serve costs nothing');
      if (u.billable === 1 && u.cost_micros !== 0) {
        for (const scope of [u.key_id, u.workspace_id]) {
          const k = `${scope} ${istMonth(u.at)}`;
          spend.set(k, (spend.get(k) ?? 0) + u.cost_micros);
        }
      }
      if (u.attempt === 0) days.set(`${u.key_id} ${istDay(u.at)}`, (days.get(`${u.key_id} ${istDay(u.at)}`) ?? 0) + 1);
    }
    const stored = (sql: string) => new Map((db.prepare(sql).all() as any[]).map((r) => [r.k, r.v]));
    assert.equal(stored("SELECT scope_id || ' ' || ist_month AS k, spent_micros AS v FROM monthly_spend"), spend);
    assert.equal(stored("SELECT key_id || ' ' || ist_day AS k, requests AS v FROM key_daily_counts"), days);
    const perRequest = db.prepare('SELECT request_id, SUM(billable) AS b FROM usage GROUP BY request_id HAVING b > 1').all();
    assert.equal(perRequest, [], 'at most one billable row per request');
  });
});

test('daily counts, budgets and balances survive a graceful restart', async () => {
  const daily = await gw.orgAndKey({ keyArgs: ['--daily', '2'] });
  const budget = await gw.orgAndKey({ keyArgs: ['--budget-inr', '0.002'] });
  const broke = await gw.orgAndKey({ credit: 0.001 });
  const post = (k: string) => fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(k), body: chatBody() });
  for (const k of [daily.key, daily.key, budget.key, budget.key, broke.key]) assert.is((await post(k)).status, 200);
  assert.is((await post(daily.key)).status, 429);
  assert.is(await gw.stop('SIGTERM'), 0);
  await gw.restart();
  let e = await errorOf(await post(daily.key));
  assert.is(e.code, 'daily_limit_reached');
  e = await errorOf(await post(budget.key));
  assert.is(e.code, 'budget_exceeded');
  e = await errorOf(await post(broke.key));
  assert.is(e.code, 'insufficient_credits');
  assert.is((await post(key)).status, 200, 'the gateway serves after the restart');
  assert.equal(query(gw.dbPath, balanceMismatches), []);
});

test.run();
