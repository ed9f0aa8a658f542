import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { cliOn, costOf, errorOf, GROQ, query, waitForValue } from '../support/ledger.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { bearer, chatBody, waitFor } from '../support/wait.js';
import { istDay, istMonth } from '../../src/lib/ist.js';

// The gateway's clock is shifted (GW_CLOCK_START) to read a few seconds before an IST midnight
// and then runs in real time, so the boundary is crossed for real while the test watches.
const LEAD_MS = 4_000;
const COST = costOf(GROQ, 11, 7); // 1 059: a ₹0.001 budget allows one request

let mock: MockProvider;
const cleanups: (() => Promise<void> | void)[] = [];

test.before(async () => {
  mock = await startMockProvider();
});
test.after(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await mock.close();
});

interface Shifted {
  gw: GatewayProcess;
  dbPath: string;
  daily: { key: string; id: string };
  budget: { key: string; id: string };
  workspaceId: string;
  /** The gateway's clock at a real instant lies within these bounds (it was set somewhere during start-up). */
  gwNow(real: number): { lo: number; hi: number };
}

/** Sets up an org and two keys with the real CLI, then starts the gateway with its clock at `start`. */
async function shifted(start: number): Promise<Shifted> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-ist-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const dbPath = join(dir, 'gw.db');
  const org = await cliOn(dbPath, 'org', 'create', 'ist', '--credit', '10');
  const daily = await cliOn(dbPath, 'key', 'create', '--org', org.id, '--name', 'daily', '--daily', '2');
  const budget = await cliOn(dbPath, 'key', 'create', '--org', org.id, '--name', 'budget', '--budget-inr', '0.001');
  const spawned = Date.now();
  const gw = await startGateway({ dbPath, providers: { groq: { baseUrl: mock.url, apiKey: 'k' } } }, { GW_CLOCK_START: new Date(start).toISOString() });
  const listening = Date.now();
  cleanups.push(() => gw.cleanup());
  // Everything before the boundary must happen before it: start-up may use at most half the lead.
  assert.ok(listening - spawned < LEAD_MS / 2, `the gateway took ${listening - spawned} ms to start; the test needs it under ${LEAD_MS / 2} ms`);
  return {
    gw, dbPath, workspaceId: org.workspace_id,
    daily: { key: daily.key, id: daily.id }, budget: { key: budget.key, id: budget.id },
    gwNow: (real) => ({ lo: start + (real - listening), hi: start + (real - spawned) }),
  };
}

const post = (s: Shifted, key: string) => fetch(`${s.gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody() });

/** A refusal whose retry-after must point at `boundary` as seen from the gateway's clock during the request. */
async function refusedUntil(s: Shifted, key: string, code: string, boundary: number): Promise<number> {
  const sent = Date.now();
  const r = await post(s, key);
  const received = Date.now();
  assert.is(r.status, 429);
  const e = await errorOf(r);
  assert.is(e.code, code);
  const earliest = s.gwNow(sent).lo;
  const latest = s.gwNow(received).hi;
  const min = Math.max(1, Math.ceil((boundary - latest) / 1000));
  const max = Math.ceil((boundary - earliest) / 1000);
  assert.ok(e.retryAfter >= min && e.retryAfter <= max, `${code}: retry-after ${e.retryAfter}, expected ${min}..${max}`);
  return e.retryAfter;
}

/** Polls until the key is served again; a client honouring retry-after must not wait longer than it said. */
async function servedAgainWithin(s: Shifted, key: string, retryAfter: number): Promise<void> {
  const from = Date.now();
  await waitFor(async () => {
    const r = await post(s, key);
    await r.arrayBuffer();
    return r.status === 200;
  }, retryAfter * 1000 + 1_000, 'the request to pass after the boundary');
  assert.ok(Date.now() - from <= retryAfter * 1000 + 1_000);
}

const usageAt = (s: Shifted, keyId: string) => query(s.dbPath, (db) => db.prepare('SELECT at FROM usage WHERE key_id = ? ORDER BY id').pluck().all(keyId) as number[]);

test('at IST midnight on 31 December the day, month and year turn together: daily counts and budgets reset', async () => {
  const newYear = Date.parse('2026-12-31T18:30:00.000Z'); // 00:00 IST, 1 January 2027
  const s = await shifted(newYear - LEAD_MS);
  for (const k of [s.daily.key, s.daily.key, s.budget.key]) assert.is((await post(s, k)).status, 200);
  const dailyWait = await refusedUntil(s, s.daily.key, 'daily_limit_reached', newYear);
  await refusedUntil(s, s.budget.key, 'budget_exceeded', newYear);
  await servedAgainWithin(s, s.daily.key, dailyWait);
  assert.is((await post(s, s.budget.key)).status, 200, 'January has a fresh budget');
  assert.is((await post(s, s.daily.key)).status, 200);
  // Full again, now until the next IST midnight and the next IST month.
  await refusedUntil(s, s.daily.key, 'daily_limit_reached', newYear + 86_400_000);
  await refusedUntil(s, s.budget.key, 'budget_exceeded', Date.parse('2027-01-31T18:30:00.000Z'));

  assert.is(await s.gw.stop('SIGTERM'), 0);
  const dailyAt = usageAt(s, s.daily.id);
  assert.equal(dailyAt.map(istDay), ['2026-12-31', '2026-12-31', '2027-01-01', '2027-01-01'], 'rows are stamped with the gateway clock');
  assert.ok(dailyAt[1] < newYear && dailyAt[2] >= newYear);
  assert.equal(usageAt(s, s.budget.id).map(istMonth), ['2026-12', '2027-01']);
  query(s.dbPath, (db) => {
    const counts = db.prepare('SELECT ist_day, requests FROM key_daily_counts WHERE key_id = ? ORDER BY ist_day').all(s.daily.id);
    assert.equal(counts, [{ ist_day: '2026-12-31', requests: 2 }, { ist_day: '2027-01-01', requests: 2 }]);
    const spend = (scope: string) => db.prepare('SELECT ist_month, spent_micros FROM monthly_spend WHERE scope_id = ? ORDER BY ist_month').all(scope);
    assert.equal(spend(s.budget.id), [{ ist_month: '2026-12', spent_micros: COST }, { ist_month: '2027-01', spent_micros: COST }]);
    assert.equal(spend(s.workspaceId), [{ ist_month: '2026-12', spent_micros: 3 * COST }, { ist_month: '2027-01', spent_micros: 3 * COST }]);
  });
});

test('a mid-month IST midnight (18:30 UTC) resets the daily count but not the monthly budget', async () => {
  const midnight = Date.parse('2026-11-15T18:30:00.000Z'); // 00:00 IST, 16 November
  const s = await shifted(midnight - LEAD_MS);
  for (const k of [s.daily.key, s.daily.key, s.budget.key]) assert.is((await post(s, k)).status, 200);
  const dailyWait = await refusedUntil(s, s.daily.key, 'daily_limit_reached', midnight);
  // The budget waits for 1 December IST: 14 days and a few seconds away, not the midnight.
  await refusedUntil(s, s.budget.key, 'budget_exceeded', Date.parse('2026-11-30T18:30:00.000Z'));
  await servedAgainWithin(s, s.daily.key, dailyWait);
  await refusedUntil(s, s.budget.key, 'budget_exceeded', Date.parse('2026-11-30T18:30:00.000Z'));
  const rows = await waitForValue(() => { const at = usageAt(s, s.daily.id); return at.length === 3 && at; }, 5_000, 'the rows');
  assert.equal(rows.map(istDay), ['2026-11-15', '2026-11-15', '2026-11-16']);
});

test.run();
