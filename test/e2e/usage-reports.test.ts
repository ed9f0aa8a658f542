import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { costOf, GROQ, query, TOGETHER, waitForValue, write } from '../support/ledger.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { signIn, type Browser } from '../support/session.js';
import { bearer, chatBody } from '../support/wait.js';
import { istDay, istDayStart } from '../../src/lib/ist.js';

// The gateway's clock reads 20 s past an IST midnight, so every live request of this file lands
// on TODAY; rows written straight into the ledger sit on either side of that midnight and of the
// 30-day window's first midnight.
const TODAY = '2026-03-15';
const MIDNIGHT = istDayStart(TODAY); // 2026-03-14T18:30:00.000Z
const DAY = 86_400_000;
const dayOf = (offset: number) => istDay(MIDNIGHT + offset * DAY);
const WINDOW_START = istDayStart(dayOf(-29));
const inr = (micros: number) => micros / 1e6;

let gw: GatewayProcess;
let groq: MockProvider;
let together: MockProvider;
let alice: Browser;
let bob: Browser;
let aliceOrg: string;
let bobOrg: string;
const keys: Record<'k1' | 'k2' | 'idle' | 'pager' | 'bob', { id: string; key: string; prefix: string }> = {} as any;
const liveIds: (string | null)[] = [];
const bobIds: (string | null)[] = [];
let echo: { provider: string; prompt_tokens: number; completion_tokens: number };

const json = async (r: Response) => (await r.json()) as any;
const rowsOf = (orgId: string) => query(gw.dbPath, (db) => db.prepare('SELECT COUNT(*) FROM usage WHERE org_id = ?').pluck().get(orgId) as number);
const waitForRows = (orgId: string, n: number) => waitForValue(() => rowsOf(orgId) >= n, 5_000, `${n} ledger rows for ${orgId}`);

/** Sends a chat request and returns its request id (null when the response carries none). */
async function chat(key: string, body: string): Promise<string | null> {
  const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body });
  await r.arrayBuffer();
  return r.headers.get('x-gw-request-id');
}

async function getOk(b: Browser, path: string): Promise<any> {
  const r = await b.get(path);
  const body = await json(r);
  assert.is(r.status, 200, `${path}: ${JSON.stringify(body)}`);
  return body;
}

async function createKey(orgId: string, name: string) {
  const k = await gw.cli('key', 'create', '--org', orgId, '--name', name);
  return { id: k.id as string, key: k.key as string, prefix: k.prefix as string };
}

/** Rows as another process would write them: [at, request_id, key, provider, attempt, status, prompt, completion, cost, billable]. */
function insertRows(rows: [number, string, string, string, number, number, number, number, number, 0 | 1][]): void {
  const ws = query(gw.dbPath, (db) => db.prepare('SELECT workspace_id FROM api_keys WHERE id = ?').pluck().get(keys.k2.id));
  write(gw.dbPath, (db) => {
    const ins = db.prepare(`INSERT INTO usage (at, request_id, org_id, workspace_id, key_id, endpoint, model, provider, route, attempt, status,
      error_code, prompt_tokens, completion_tokens, cost_micros, latency_ms, ttfb_ms, streamed, byok, billable)
      VALUES (?, ?, ?, ?, ?, 'chat', 'probe/ist', ?, NULL, ?, ?, ?, ?, ?, ?, 5, 1, 0, 0, ?)`);
    for (const [at, rid, key, provider, attempt, status, p, c, cost, billable] of rows) {
      ins.run(at, rid, aliceOrg, ws, key, provider, attempt, status, status === 200 ? null : 'upstream_error', p, c, cost, billable);
    }
  });
}

test.before(async () => {
  groq = await startMockProvider();
  together = await startMockProvider();
  gw = await startGateway({
    breaker: { volumeThreshold: 100_000 },
    providers: { groq: { baseUrl: groq.url, apiKey: 'k1' }, together: { baseUrl: together.url, apiKey: 'k2' } },
  }, { GW_CLOCK_START: new Date(MIDNIGHT + 20_000).toISOString() });

  alice = await signIn(gw, 'alice@a.example');
  aliceOrg = (await getOk(alice, '/me')).org.id;
  await gw.cli('org', 'credit', aliceOrg, '100');
  keys.k1 = await createKey(aliceOrg, 'k1');
  keys.k2 = await createKey(aliceOrg, 'k2');
  keys.idle = await createKey(aliceOrg, 'idle');
  keys.pager = await createKey(aliceOrg, 'pager');
  bob = await signIn(gw, 'bob@b.example');
  bobOrg = (await getOk(bob, '/me')).org.id;
  await gw.cli('org', 'credit', bobOrg, '100');
  keys.bob = await createKey(bobOrg, 'bob-key');

  // Live traffic on k1, all of it TODAY: 7 requests, 9 attempts.
  for (let i = 0; i < 3; i++) liveIds.push(await chat(keys.k1.key, chatBody()));
  groq.enqueue({ kind: 'stream', chunks: 4 });
  liveIds.push(await chat(keys.k1.key, chatBody({ stream: true })));
  groq.enqueue({ kind: 'status', status: 500 });
  liveIds.push(await chat(keys.k1.key, chatBody()));
  groq.enqueue({ kind: 'status', status: 500 });
  together.enqueue({ kind: 'status', status: 500 });
  liveIds.push(await chat(keys.k1.key, chatBody())); // 502 all_routes_failed: no x-gw-request-id, so null here
  liveIds.push(await chat(keys.k1.key, chatBody({ model: 'sandbox/echo' })));
  for (let i = 0; i < 2; i++) bobIds.push(await chat(keys.bob.key, chatBody({ model: 'sandbox/echo' })));
  await waitForRows(aliceOrg, 9);
  await waitForRows(bobOrg, 2);
  echo = query(gw.dbPath, (db) => db.prepare('SELECT provider, prompt_tokens, completion_tokens FROM usage WHERE request_id = ?').get(liveIds[6])) as any;

  // k2, straight into the ledger: A the last millisecond of yesterday (IST), B+C one request
  // that failed over just after midnight, D the first millisecond of the 30-day window, E the
  // millisecond before it.
  insertRows([
    [MIDNIGHT - 1, 'ist-a', keys.k2.id, 'together', 0, 200, 100, 10, 1_000_000, 1],
    [MIDNIGHT, 'ist-b', keys.k2.id, 'groq', 0, 502, 0, 0, 0, 0],
    [MIDNIGHT + 5, 'ist-b', keys.k2.id, 'groq', 1, 200, 200, 20, 2_500_000, 1],
    [WINDOW_START, 'ist-d', keys.k2.id, 'groq', 0, 200, 1, 1, 10, 1],
    [WINDOW_START - 1, 'ist-e', keys.k2.id, 'groq', 0, 200, 1_000, 1_000, 7_000_000, 1],
  ]);
});
test.after(async () => {
  await gw.cleanup();
  await groq.close();
  await together.close();
});

// k1's live traffic: 3 plain groq answers, a groq stream of 4 chunks, a groq 500 served by
// together, a request both routes failed, and one sandbox echo.
/** No cached, cache-write or reasoning tokens: neither mock provider reports any. */
const NO_PARTS = { cached_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 };
const K1_COST = 3 * costOf(GROQ, 11, 7) + costOf(GROQ, 11, 4) + costOf(TOGETHER, 11, 7);
const k1Volume = () => ({
  requests: 7, prompt_tokens: 5 * 11 + echo.prompt_tokens, completion_tokens: 3 * 7 + 4 + 7 + echo.completion_tokens, ...NO_PARTS, cost: inr(K1_COST),
});
const zero = { requests: 0, prompt_tokens: 0, completion_tokens: 0, ...NO_PARTS, cost: 0 };

test('the live traffic reached the ledger as 9 attempts for 7 requests', () => {
  assert.is(rowsOf(aliceOrg), 9 + 5);
  assert.is(K1_COST, 3 * 1_059 + 850 + 1_393);
});

test('GET /me/usage: per key today and 30 days, requests from first attempts, tokens and ₹ from billable rows, idle keys included', async () => {
  const body = await getOk(alice, '/me/usage');
  assert.is(body.today, TODAY);
  assert.is(body.from, dayOf(-29));
  const byName = Object.fromEntries(body.data.map((k: any) => [k.name, k]));
  assert.equal(Object.keys(byName).sort(), ['idle', 'k1', 'k2', 'pager']);
  assert.equal(byName.k1, { id: keys.k1.id, prefix: keys.k1.prefix, name: 'k1', status: 'active', today: k1Volume(), last_30_days: k1Volume() });
  // k2: B+C is today (one request, C's tokens and cost); A is yesterday; D opens the window; E is outside it.
  assert.equal(byName.k2.today, { requests: 1, prompt_tokens: 200, completion_tokens: 20, ...NO_PARTS, cost: 2.5 });
  assert.equal(byName.k2.last_30_days, { requests: 3, prompt_tokens: 301, completion_tokens: 31, ...NO_PARTS, cost: inr(3_500_010) });
  assert.equal(byName.idle.today, zero);
  assert.equal(byName.idle.last_30_days, zero);
});

test('GET /me/usage/daily: the last 30 IST days by day and model, split at 18:30 UTC', async () => {
  const body = await getOk(alice, '/me/usage/daily');
  assert.equal({ from: body.from, to: body.to }, { from: dayOf(-29), to: TODAY });
  const llama = k1Volume();
  assert.equal(body.data, [
    { day: dayOf(-29), model: 'probe/ist', requests: 1, prompt_tokens: 1, completion_tokens: 1, ...NO_PARTS, cost: inr(10) },
    { day: dayOf(-1), model: 'probe/ist', requests: 1, prompt_tokens: 100, completion_tokens: 10, ...NO_PARTS, cost: 1 },
    {
      day: TODAY, model: 'llama-3.3-70b-instruct', requests: 6, prompt_tokens: llama.prompt_tokens - echo.prompt_tokens,
      completion_tokens: llama.completion_tokens - echo.completion_tokens, ...NO_PARTS, cost: inr(K1_COST),
    },
    { day: TODAY, model: 'probe/ist', requests: 1, prompt_tokens: 200, completion_tokens: 20, ...NO_PARTS, cost: 2.5 },
    { day: TODAY, model: 'sandbox/echo', requests: 1, prompt_tokens: echo.prompt_tokens, completion_tokens: echo.completion_tokens, ...NO_PARTS, cost: 0 },
  ]);
});

test('GET /me/activity: totals, top models and keys by spend, and the per-provider cost split over the default 30 days', async () => {
  const body = await getOk(alice, '/me/activity');
  assert.equal({ from: body.from, to: body.to }, { from: dayOf(-29), to: TODAY });
  const k1 = k1Volume();
  assert.equal(body.totals, {
    requests: 10, prompt_tokens: k1.prompt_tokens + 301, completion_tokens: k1.completion_tokens + 31, ...NO_PARTS, cost: inr(K1_COST + 3_500_010),
  });
  assert.is(body.daily.length, 5);
  assert.is(body.events, 9 + 4, 'every ledger row of the window: the live attempts and four of the five written ones');
  assert.equal(body.top_models.map((m: any) => [m.model, m.requests, m.cost]), [
    ['probe/ist', 3, inr(3_500_010)], ['llama-3.3-70b-instruct', 6, inr(K1_COST)], ['sandbox/echo', 1, 0],
  ]);
  assert.equal(body.top_keys.map((k: any) => [k.id, k.prefix, k.name, k.requests, k.cost]), [
    [keys.k2.id, keys.k2.prefix, 'k2', 3, inr(3_500_010)], [keys.k1.id, keys.k1.prefix, 'k1', 7, inr(K1_COST)],
  ]);
  const groqCost = 3 * 1_059 + 850 + 2_500_000 + 10;
  const togetherCost = 1_393 + 1_000_000;
  const total = groqCost + togetherCost;
  assert.equal(body.providers.map((p: any) => [p.provider, p.requests, p.cost]), [
    ['groq', 6, inr(groqCost)], ['together', 2, inr(togetherCost)], [echo.provider, 1, 0],
  ]);
  assert.ok(Math.abs(body.providers[0].share - groqCost / total) < 1e-4);
  assert.ok(Math.abs(body.providers[1].share - togetherCost / total) < 1e-4);
  assert.is(body.providers[2].share, 0);
});

test('GET /me/activity?from&to counts IST dates inclusively on both sides of a midnight', async () => {
  const outside = await getOk(alice, `/me/activity?from=${dayOf(-30)}&to=${dayOf(-30)}`);
  assert.equal(outside.totals, { requests: 1, prompt_tokens: 1_000, completion_tokens: 1_000, ...NO_PARTS, cost: 7 });
  assert.equal(outside.daily.map((d: any) => d.day), [dayOf(-30)]);
  assert.is(outside.events, 1);
  const yesterday = await getOk(alice, `/me/activity?from=${dayOf(-1)}&to=${dayOf(-1)}`);
  assert.equal(yesterday.totals, { requests: 1, prompt_tokens: 100, completion_tokens: 10, ...NO_PARTS, cost: 1 });
  const twoDays = await getOk(alice, `/me/activity?from=${dayOf(-1)}&to=${TODAY}`);
  assert.is(twoDays.totals.requests, 7 + 2);
  const aYear = await getOk(alice, `/me/activity?from=${dayOf(-365)}&to=${TODAY}`);
  assert.is(aYear.totals.requests, 7 + 4);
  const future = await getOk(alice, '/me/activity?from=2030-01-01&to=2030-01-31');
  assert.equal(future.totals, zero);
  assert.equal([future.daily, future.top_models, future.top_keys, future.providers], [[], [], [], []]);
});

test('GET /me/activity/events: one row per attempt, newest first, with key prefix, ₹ cost and flags', async () => {
  const body = await getOk(alice, '/me/activity/events');
  assert.is(body.data.length, 14);
  assert.is(body.next_cursor, null);
  assert.equal(body.data.slice(0, 5).map((e: any) => e.request_id), ['ist-e', 'ist-d', 'ist-b', 'ist-b', 'ist-a']);
  assert.is(body.data[4].at, new Date(MIDNIGHT - 1).toISOString());
  const failover = body.data.filter((e: any) => e.request_id === liveIds[4]);
  assert.equal(failover.map((e: any) => [e.attempt, e.provider, e.status, e.billable, e.cost]), [
    [1, 'together', 200, true, inr(costOf(TOGETHER, 11, 7))], [0, 'groq', 500, false, 0],
  ]);
  assert.ok(failover[1].error_code);
  const first = body.data.find((e: any) => e.request_id === liveIds[0]);
  assert.equal({ ...first, at: 0, latency_ms: 0, ttfb_ms: 0 }, {
    at: 0, request_id: liveIds[0], key_id: keys.k1.id, key_prefix: keys.k1.prefix, endpoint: 'chat', model: 'llama-3.3-70b-instruct',
    provider: 'groq', attempt: 0, status: 200, error_code: null, prompt_tokens: 11, completion_tokens: 7, ...NO_PARTS, cost: 0.001059,
    latency_ms: 0, ttfb_ms: 0, streamed: false, billable: true, byok: false, usage_estimated: false, units: 0, usage_clamped: false,
  });
  assert.ok(Date.parse(first.at) >= MIDNIGHT + 20_000, 'times come from the gateway clock');
  assert.ok(first.latency_ms > 0);
  assert.is(body.data.find((e: any) => e.request_id === liveIds[3]).streamed, true);
});

test('GET /me/activity/events filters by status, model and key, within the org only', async () => {
  const errorsOnly = await getOk(alice, '/me/activity/events?status=error');
  assert.equal(errorsOnly.data.map((e: any) => e.status), [502, 500, 500, 500]);
  assert.equal((await getOk(alice, '/me/activity/events?status=200')).data.length, 10);
  assert.equal((await getOk(alice, '/me/activity/events?status=ok&model=sandbox%2Fecho')).data.map((e: any) => e.request_id), [liveIds[6]]);
  assert.equal((await getOk(alice, `/me/activity/events?key_id=${keys.k2.id}`)).data.length, 5);
  const foreign = await getOk(alice, `/me/activity/events?key_id=${keys.bob.id}`);
  assert.equal(foreign, { data: [], next_cursor: null });
});

test('GET /me/activity/events?request_id= gives one request\'s rows (each attempt), and nothing for another org\'s request', async () => {
  const all = (await getOk(alice, '/me/activity/events?limit=200')).data as { request_id: string; attempt: number }[];
  const failedOver = all.find((e) => e.attempt === 1)!;
  const mine = await getOk(alice, `/me/activity/events?request_id=${encodeURIComponent(failedOver.request_id)}`);
  assert.equal(mine.data.map((e: any) => [e.request_id, e.attempt]), [[failedOver.request_id, 1], [failedOver.request_id, 0]]);
  assert.is(mine.next_cursor, null);
  const bobs = (await getOk(bob, '/me/activity/events')).data as { request_id: string }[];
  if (bobs.length > 0) assert.equal(await getOk(alice, `/me/activity/events?request_id=${encodeURIComponent(bobs[0].request_id)}`), { data: [], next_cursor: null });
  assert.is((await alice.get('/me/activity/events?request_id=')).status, 400);
});

test('a filtered walk with limit=1 visits each matching row once and ends with next_cursor null', async () => {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await getOk(alice, `/me/activity/events?status=error&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
    seen.push(...page.data.map((e: any) => `${e.request_id}/${e.attempt}`));
    cursor = page.next_cursor;
  } while (cursor !== null && seen.length < 10);
  assert.equal(seen, (await getOk(alice, '/me/activity/events?status=error')).data.map((e: any) => `${e.request_id}/${e.attempt}`));
});

test('another org\'s usage never appears: each signed-in user sees only their own org', async () => {
  const bobUsage = await getOk(bob, '/me/usage');
  assert.equal(bobUsage.data.map((k: any) => [k.id, k.today.requests]), [[keys.bob.id, 2]]);
  assert.is((await getOk(bob, '/me/activity')).totals.requests, 2);
  assert.equal((await getOk(bob, '/me/activity/events')).data.map((e: any) => e.request_id).sort(), [...bobIds].sort());
  assert.equal((await getOk(bob, '/me/usage/daily')).data.map((d: any) => [d.model, d.requests]), [['sandbox/echo', 2]]);
  const paths = ['/me/usage', '/me/usage/daily', '/me/activity', '/me/activity/events?limit=200'];
  for (const path of paths) {
    const aliceText = JSON.stringify(await getOk(alice, path));
    for (const s of [keys.bob.id, keys.bob.prefix, ...bobIds as string[]]) assert.not.ok(aliceText.includes(s), `alice's ${path} shows ${s}`);
    const bobText = JSON.stringify(await getOk(bob, path));
    for (const s of [keys.k1.id, keys.k1.prefix, keys.k2.id, ...liveIds.filter((id): id is string => id !== null), 'probe/ist']) assert.not.ok(bobText.includes(s), `bob's ${path} shows ${s}`);
  }
});

test('keyset pages walked while new requests land have no duplicates and no gaps', async () => {
  const top = query(gw.dbPath, (db) => db.prepare('SELECT MAX(id) FROM usage WHERE org_id = ?').pluck().get(aliceOrg) as number);
  const walked: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  let expectRows = rowsOf(aliceOrg);
  do {
    const page: any = await getOk(alice, `/me/activity/events?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.ok(page.data.length === 3 || page.next_cursor === null, 'only the last page is short');
    walked.push(...page.data.map((e: any) => `${e.request_id}/${e.attempt}`));
    cursor = page.next_cursor;
    pages++;
    // Two new requests land (committed) before the next page is read.
    await Promise.all([chat(keys.pager.key, chatBody({ model: 'sandbox/echo' })), chat(keys.pager.key, chatBody({ model: 'sandbox/echo' }))]);
    expectRows += 2;
    await waitForRows(aliceOrg, expectRows);
  } while (cursor !== null);
  assert.is(pages, 5);
  const expected = query(gw.dbPath, (db) => db.prepare('SELECT request_id, attempt FROM usage WHERE org_id = ? AND id <= ? ORDER BY id DESC')
    .all(aliceOrg, top) as { request_id: string; attempt: number }[]).map((r) => `${r.request_id}/${r.attempt}`);
  assert.is(new Set(walked).size, walked.length, 'no duplicates');
  assert.equal(walked, expected, 'every row that existed when the walk began, in order');
  const fresh = await getOk(alice, '/me/activity/events?limit=10');
  assert.ok(fresh.data.every((e: any) => e.key_id === keys.pager.id), 'a new first page starts with the rows added meanwhile');
  assert.is((await getOk(alice, '/me/usage')).data.find((k: any) => k.name === 'pager').today.requests, 10);
});

for (const [path, why] of [
  ['/me/activity/events?cursor=abc', 'a cursor that is not base64url of an id'],
  ['/me/activity/events?cursor=!!!', 'a cursor with characters outside base64url'],
  [`/me/activity/events?cursor=${Buffer.from('0').toString('base64url')}`, 'a cursor of id 0'],
  [`/me/activity/events?cursor=${Buffer.from('12a').toString('base64url')}`, 'a cursor of a non-number'],
  ['/me/activity/events?cursor=MTI=', 'a padded cursor'],
  ['/me/activity/events?cursor=', 'an empty cursor'],
  ['/me/activity/events?cursor=%E0%A4%A', 'a cursor with a malformed %-escape'],
  ['/me/activity?from=%ZZ', 'a date with a malformed %-escape'],
  ['/me/activity/events?limit=0', 'limit 0'],
  ['/me/activity/events?limit=201', 'limit 201'],
  ['/me/activity/events?limit=1.5', 'a fractional limit'],
  ['/me/activity/events?limit=ten', 'a limit that is not a number'],
  ['/me/activity/events?limit=5&limit=6', 'a repeated parameter'],
  ['/me/activity/events?status=broken', 'an unknown status'],
  ['/me/activity/events?model=', 'an empty model'],
  ['/me/activity/events?sort=asc', 'an unknown parameter'],
  ['/me/activity?from=2026-02-30', 'a date that does not exist'],
  ['/me/activity?from=2026-3-01', 'a date not in YYYY-MM-DD'],
  ['/me/activity?to=yesterday', 'a to that is not a date'],
  ['/me/activity?from=2026-03-10&to=2026-03-09', 'from after to'],
  ['/me/activity?from=2025-03-14&to=2026-03-15', 'a span of 367 days'],
  ['/me/usage?days=7', 'a parameter /me/usage does not take'],
  ['/me/usage/daily?from=2026-01-01', 'a parameter /me/usage/daily does not take'],
]) {
  test(`refuses ${why} with 400 bad_request in the error envelope`, async () => {
    const r = await alice.get(path);
    const body = await json(r);
    assert.is(r.status, 400, `${path} answered ${r.status}`);
    assert.equal(Object.keys(body.error).sort(), ['code', 'message', 'type']);
    assert.is(body.error.code, 'bad_request');
    assert.is(body.error.type, 'invalid_request_error');
  });
}

test('a span of exactly 366 days is allowed', async () => {
  const r = await alice.get('/me/activity?from=2025-03-15&to=2026-03-15');
  assert.is(r.status, 200);
});

test('every usage endpoint needs a session: 401 no_session without one', async () => {
  for (const path of ['/me/usage', '/me/usage/daily', '/me/activity', '/me/activity/events']) {
    const r = await fetch(gw.url + path);
    assert.is(r.status, 401);
    assert.is((await json(r)).error.code, 'no_session');
  }
});

test('GET /me/activity/events?from&to keeps the rows of those IST days, late rows for past days included', async () => {
  const ids = async (q: string) => (await getOk(alice, `/me/activity/events?limit=200&${q}`)).data.map((e: any) => e.request_id);
  // ist-e was written after every other row, for the day before the window.
  assert.equal(await ids(`from=${dayOf(-30)}&to=${dayOf(-30)}`), ['ist-e']);
  assert.equal(await ids(`from=${dayOf(-1)}&to=${dayOf(-1)}`), ['ist-a']);
  assert.equal(await ids(`to=${dayOf(-1)}`), ['ist-e', 'ist-d', 'ist-a'], 'from defaults to 29 days before to');
  assert.equal(await ids(`to=${dayOf(-2)}`), ['ist-e', 'ist-d']);
  assert.equal(await ids(`from=${dayOf(-40)}&to=${dayOf(-31)}`), []);
  const today = await getOk(alice, `/me/activity/events?limit=200&from=${TODAY}`);
  assert.ok(today.data.length > 10 && today.data.every((e: any) => Date.parse(e.at) >= MIDNIGHT), 'today only');
  const all = await getOk(alice, '/me/activity/events?limit=200');
  assert.is(today.data.length, all.data.filter((e: any) => Date.parse(e.at) >= MIDNIGHT).length);
  const errs = await getOk(alice, `/me/activity/events?status=error&from=${dayOf(-29)}&to=${TODAY}`);
  assert.equal(errs.data.map((e: any) => e.status), [502, 500, 500, 500]);
});

/** RFC 4180 records of a CSV text (quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const out: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (c === '"') quoted = false; else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(field); field = ''; } else if (c === '\r' && text[i + 1] === '\n') { row.push(field); out.push(row); row = []; field = ''; i++; } else field += c;
  }
  assert.is(field + row.join(''), '', 'the text ends with CRLF');
  return out;
}

async function csvOf(path: string): Promise<{ res: Response; text: string; rows: Record<string, string>[] }> {
  const res = await alice.get(path);
  const text = await res.text();
  assert.is(res.status, 200, text);
  const [head, ...rest] = parseCsv(text);
  return { res, text, rows: rest.map((r) => { assert.is(r.length, head.length); return Object.fromEntries(head.map((h, i) => [h, r[i]])); }) };
}

test('GET /me/activity/events.csv: the events of the last 30 days as an attachment, one record per event, newest first', async () => {
  const { res, rows } = await csvOf('/me/activity/events.csv');
  assert.match(res.headers.get('content-type')!, /^text\/csv; charset=utf-8/);
  assert.is(res.headers.get('content-disposition'), `attachment; filename="activity-${dayOf(-29)}-to-${TODAY}.csv"`);
  const events = await getOk(alice, `/me/activity/events?limit=200&from=${dayOf(-29)}`);
  assert.ok(events.data.length > 20 && events.next_cursor === null);
  assert.equal(rows.map((r) => `${r.request_id}/${r.attempt}`), events.data.map((e: any) => `${e.request_id}/${e.attempt}`));
  assert.not.ok(rows.some((r) => r.request_id === 'ist-e'), 'the day before the window is left out');
  const first = events.data.find((e: any) => e.request_id === liveIds[0]);
  const row = rows.find((r) => r.request_id === liveIds[0])!;
  assert.equal(row, {
    time_ist: new Date(Date.parse(first.at) + 19_800_000).toISOString().slice(0, 19).replace('T', ' '), at: first.at, request_id: liveIds[0]!,
    key_id: keys.k1.id, key_prefix: keys.k1.prefix, key_name: 'k1', endpoint: 'chat', model: 'llama-3.3-70b-instruct', provider: 'groq',
    attempt: '0', status: '200', error_code: '', prompt_tokens: '11', completion_tokens: '7', cached_tokens: '0', cache_write_tokens: '0',
    reasoning_tokens: '0', units: '0', cost_inr: '0.001059', latency_ms: String(Math.round(first.latency_ms * 1000) / 1000),
    ttfb_ms: String(Math.round(first.ttfb_ms * 1000) / 1000), streamed: 'false', billable: 'true', byok: 'false', usage_estimated: 'false',
    usage_clamped: 'false',
  });
  const d = rows.find((r) => r.request_id === 'ist-d')!;
  assert.is(d.cost_inr, '0.000010', 'exact paise from micro-rupees');
  assert.is(d.time_ist, `${dayOf(-29)} 00:00:00`, 'IST wall-clock time');
});

test('GET /me/activity/events.csv takes the events filters and a date range', async () => {
  const errorsOnly = await csvOf(`/me/activity/events.csv?status=error&from=${dayOf(-29)}&to=${TODAY}`);
  assert.equal(errorsOnly.rows.map((r) => r.status), ['502', '500', '500', '500']);
  const k2 = await csvOf(`/me/activity/events.csv?key_id=${keys.k2.id}&from=${dayOf(-40)}&to=${dayOf(-1)}`);
  assert.equal(k2.rows.map((r) => r.request_id), ['ist-e', 'ist-d', 'ist-a']);
  assert.is(k2.res.headers.get('content-disposition'), `attachment; filename="activity-${dayOf(-40)}-to-${dayOf(-1)}.csv"`);
  const echoOnly = await csvOf(`/me/activity/events.csv?model=sandbox%2Fecho&status=200&from=${TODAY}`);
  assert.ok(echoOnly.rows.length >= 1 && echoOnly.rows.every((r) => r.model === 'sandbox/echo'));
  const none = await csvOf('/me/activity/events.csv?from=2030-01-01&to=2030-01-02');
  assert.equal(none.rows, []);
  assert.match(none.text, /^time_ist,at,request_id,/);
  const foreign = await csvOf(`/me/activity/events.csv?key_id=${keys.bob.id}`);
  assert.equal(foreign.rows, [], 'another org\'s key matches nothing');
});

test('GET /me/activity/events.csv quotes by RFC 4180 and defuses cells a spreadsheet would run as formulas', async () => {
  const ws = query(gw.dbPath, (db) => db.prepare('SELECT workspace_id FROM api_keys WHERE id = ?').pluck().get(keys.k2.id));
  const nasty = { rid: '@rid, "quoted"\r\nnext line', model: '=HYPERLINK("http://evil.example","x")', code: '-2+3', provider: '+cmd' };
  write(gw.dbPath, (db) => db.prepare(`INSERT INTO usage (at, request_id, org_id, workspace_id, key_id, endpoint, model, provider, attempt, status,
    error_code, latency_ms) VALUES (?, ?, ?, ?, ?, 'chat', ?, ?, 0, 500, ?, 5)`).run(MIDNIGHT + 1_000, nasty.rid, aliceOrg, ws, keys.k2.id, nasty.model, nasty.provider, nasty.code));
  const { text, rows } = await csvOf(`/me/activity/events.csv?key_id=${keys.k2.id}&status=500&from=${TODAY}`);
  assert.is(rows.length, 1);
  assert.equal([rows[0].request_id, rows[0].model, rows[0].error_code, rows[0].provider], [`'${nasty.rid}`, `'${nasty.model}`, `'${nasty.code}`, `'${nasty.provider}`]);
  assert.ok(text.includes(`"'@rid, ""quoted""\r\nnext line"`), 'a field with a comma, quotes and a line break is quoted, its quotes doubled');
  assert.ok(text.includes(`,"'=HYPERLINK(""http://evil.example"",""x"")",`));
  assert.ok(text.split('\r\n').slice(0, -1).every((l) => !l.includes('\n')), 'records end with CRLF; a bare LF is only inside quotes');
});

test('GET /me/activity/events.csv refuses bad queries with 400 in the envelope, and needs a session', async () => {
  for (const q of ['from=2026-03-10&to=2026-03-09', 'from=2025-03-14&to=2026-03-15', 'from=yesterday', 'limit=5', 'cursor=MTI', 'status=broken', 'model=', 'x=1']) {
    const r = await alice.get(`/me/activity/events.csv?${q}`);
    const body = await json(r);
    assert.is(r.status, 400, q);
    assert.is(body.error.code, 'bad_request', q);
    assert.is(typeof body.error.message, 'string');
  }
  const r = await fetch(`${gw.url}/me/activity/events.csv`);
  assert.is(r.status, 401);
  assert.is((await json(r)).error.code, 'no_session');
  const doc = await json(await fetch(`${gw.url}/openapi.json`));
  assert.ok(doc.paths['/me/activity/events.csv'].get, 'the export is in the route table');
});

test.run();
