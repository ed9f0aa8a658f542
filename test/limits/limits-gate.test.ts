import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KeyRecord } from '../../src/domain/key-record.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { manualClock } from '../../src/lib/clock.js';
import { istDay, istMonth, nextIstMidnight, nextIstMonthStart } from '../../src/lib/ist.js';
import { ipLimiter } from '../../src/limits/ip-limiter.js';
import { publicGate } from '../../src/limits/public-gate.js';
import { LimitsGate, TRIAL_DAILY, TRIAL_RPM } from '../../src/limits/limits-gate.js';
import { SpendBook } from '../../src/limits/spend-book.js';
import { openDatabase, type Db } from '../../src/store/database.js';
import { findKeyById, insertKey, revokeKey, updateKeyLimits, type NewKey } from '../../src/store/keys.js';
import { insertMoneyEvent, insertOrg } from '../../src/store/orgs.js';
import { limitsReader, usageBatchWriter, type UsageTuple } from '../../src/store/usage.js';

// 11:30 IST on 15 Nov 2026: far from any day or month boundary unless a test moves there.
const MID_MONTH = Date.parse('2026-11-15T06:00:00.000Z');

let dir: string;
let db: Db;
let clock: ReturnType<typeof manualClock>;
let saturated = false;
let seq = 0;

test.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'gw-limits-'));
  db = openDatabase(join(dir, 'gw.db'));
  clock = manualClock(MID_MONTH);
  saturated = false;
});
test.after.each(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A gate over a fresh SpendBook: what a (re)started gateway builds from the ledger. */
function newGate(gatewayRpm = 120): LimitsGate {
  return new LimitsGate({ gatewayRpm, clock, book: new SpendBook(limitsReader(db)), ledgerSaturated: () => saturated });
}

function org(creditMicros: number): { orgId: string; workspaceId: string } {
  const o = insertOrg(db, `org-${++seq}`, { now: Date.now() });
  if (creditMicros > 0) insertMoneyEvent(db, o.orgId, 'operator_credit', creditMicros, { now: Date.now() });
  return o;
}

function key(o: { orgId: string; workspaceId: string }, extra: Partial<NewKey> = {}): KeyRecord {
  const { id } = insertKey(db, { orgId: o.orgId, workspaceId: o.workspaceId, name: `k${++seq}`, tier: 'standard', ...extra }, Date.now());
  return record(id);
}

/** The key as the data plane would read it afresh (after a change-feed invalidation). */
function record(id: string): KeyRecord {
  const { hash: _hash, ...rec } = findKeyById(db, id)!;
  return rec;
}

function refusal(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (e) {
    assert.instance(e, GatewayError);
    return e as GatewayError;
  }
  assert.unreachable('expected the gate to refuse');
  throw new Error('unreachable');
}

function expectRefused(fn: () => unknown, status: number, code: string): GatewayError {
  const e = refusal(fn);
  assert.is(e.code, code);
  assert.is(e.status, status);
  return e;
}

const retryAfter = (e: GatewayError) => Number(e.headers?.['retry-after']);

/** One whole request through the gate: enter, admit with a hold, settle with the true cost. */
function request(gate: LimitsGate, k: KeyRecord, hold = 0, cost = 0): void {
  const t = gate.enter(k);
  gate.admit(t, hold);
  gate.settle(t, cost);
}

/** The row the ledger writer would commit for a served request (attempt 0, billable). */
function ledgerRow(k: KeyRecord, at: number, cost: number, attempt = 0, billable: 0 | 1 = 1): UsageTuple {
  return [at, `r${++seq}`, k.orgId, k.workspaceId, k.id, 'chat', 'llama-3.3-70b-instruct', 'groq', 'groq:llama', attempt,
    billable ? 200 : 500, billable ? null : 'upstream_error', 11, 7, billable ? cost : 0, 5, 2, 0, 0, billable, 0, 0, 0, 0, 0, 0, 0, null, 0];
}

test('the gateway cap of 120 per rolling minute applies to a key with no rpm_limit, with an exact retry-after', () => {
  const gate = newGate();
  const k = key(org(1_000_000_000));
  const first = clock.now();
  for (let i = 0; i < 120; i++) {
    request(gate, k);
    clock.advance(100);
  }
  // 12 s after the first request; it leaves the window at first + 60 s.
  const e = expectRefused(() => gate.enter(k), 429, 'rate_limit_exceeded');
  assert.is(e.type, 'rate_limit_error');
  assert.match(e.message, /gateway cap of 120/);
  assert.is(retryAfter(e), 48);
  clock.set(first + 59_999);
  assert.is(retryAfter(expectRefused(() => gate.enter(k), 429, 'rate_limit_exceeded')), 1);
  // The ten requests of the first second leave together; the next ten a second later.
  clock.set(first + 60_000);
  for (let i = 0; i < 10; i++) request(gate, k);
  assert.is(retryAfter(expectRefused(() => gate.enter(k), 429, 'rate_limit_exceeded')), 1);
});

test('a key rpm_limit below the gateway cap wins; one above it does not lift the cap', () => {
  const gate = newGate(10);
  const o = org(1_000_000_000);
  const low = key(o, { rpmLimit: 3 });
  for (let i = 0; i < 3; i++) request(gate, low);
  const e = expectRefused(() => gate.enter(low), 429, 'rate_limit_exceeded');
  assert.match(e.message, /key limit of 3/);
  assert.is(retryAfter(e), 60);
  const high = key(o, { rpmLimit: 500 });
  for (let i = 0; i < 10; i++) request(gate, high);
  assert.match(expectRefused(() => gate.enter(high), 429, 'rate_limit_exceeded').message, /gateway cap of 10/);
});

test('refused requests are not counted, so the retry-after stays true however often a client retries', () => {
  const gate = newGate();
  const k = key(org(1_000_000_000), { rpmLimit: 2 });
  request(gate, k);
  clock.advance(30_000);
  request(gate, k);
  for (let i = 0; i < 50; i++) {
    clock.advance(200);
    expectRefused(() => gate.enter(k), 429, 'rate_limit_exceeded');
  }
  // 40 s after the first request: it leaves 20 s from now.
  assert.is(retryAfter(expectRefused(() => gate.enter(k), 429, 'rate_limit_exceeded')), 20);
  clock.advance(20_000);
  request(gate, k);
});

test('trial keys are hard-capped at 60 per minute and 200 per day whatever their own limits say', () => {
  const gate = newGate();
  assert.is(TRIAL_RPM, 60);
  assert.is(TRIAL_DAILY, 200);
  // An org each: the allowance is the org's (below).
  for (const rpmLimit of [null, 100]) {
    const t = key(org(0), { tier: 'trial', rpmLimit });
    for (let i = 0; i < 60; i++) request(gate, t);
    const e = expectRefused(() => gate.enter(t), 429, 'rate_limit_exceeded');
    assert.match(e.message, /60/);
  }
  const lower = key(org(0), { tier: 'trial', rpmLimit: 5 });
  for (let i = 0; i < 5; i++) request(gate, lower);
  expectRefused(() => gate.enter(lower), 429, 'rate_limit_exceeded');

  for (const dailyLimit of [null, 500]) {
    const t = key(org(0), { tier: 'trial', dailyLimit });
    // 200 requests, 1.1 s apart (under 60 a minute), all on 15 Nov IST.
    for (let i = 0; i < 200; i++) {
      request(gate, t);
      clock.advance(1_100);
    }
    const now = clock.now();
    assert.is(istDay(now), '2026-11-15');
    const e = expectRefused(() => gate.enter(t), 429, 'daily_limit_reached');
    assert.is(e.type, 'rate_limit_error');
    assert.is(retryAfter(e), Math.ceil((nextIstMidnight(now) - now) / 1000));
  }
});

test('the trial allowance is the org\'s: more keys, or a key revoked and created again, share its minute and its day, also after a restart', () => {
  const write = usageBatchWriter(db);
  let gate = newGate();
  const o = org(0);
  const first = key(o, { tier: 'trial' });
  for (let i = 0; i < 40; i++) request(gate, first);
  const second = key(o, { tier: 'trial' });
  for (let i = 0; i < 20; i++) request(gate, second);
  const e = expectRefused(() => gate.enter(second), 429, 'rate_limit_exceeded');
  assert.match(e.message, /60 requests per minute per organisation/);
  assert.is(retryAfter(e), 60);
  // Another org's trial keys have their own allowance.
  request(gate, key(org(0), { tier: 'trial' }));

  // The day: 150 requests by the first key are in the ledger; it is revoked and a new key made.
  clock.advance(60_000);
  write(Array.from({ length: 150 }, (_, i) => ledgerRow(first, clock.now() - 1_000 + i, 0)));
  revokeKey(db, first.id, Date.now());
  gate = newGate(); // a restart: only the ledger remembers
  const fresh = key(o, { tier: 'trial' });
  for (let i = 0; i < 50; i++) {
    request(gate, fresh);
    clock.advance(1_100);
  }
  const day = expectRefused(() => gate.enter(fresh), 429, 'daily_limit_reached');
  assert.match(day.message, /200 per organisation on trial keys/);
  // A standard key of the same org (after a top-up) is not held to the trial allowance.
  insertMoneyEvent(db, o.orgId, 'operator_credit', 1_000_000, { now: Date.now() });
  request(newGate(), key(o));
});

test('trial keys are free: they hold nothing and never meet insufficient_credits on an empty balance', () => {
  const gate = newGate();
  const o = org(0);
  const t = key(o, { tier: 'trial' });
  for (let i = 0; i < 10; i++) request(gate, t, 5_000_000, 0);
  const std = key(o);
  expectRefused(() => gate.enter(std), 402, 'insufficient_credits');
});

test('a daily_limit counts admitted requests for the IST day and resets exactly at IST midnight', () => {
  const gate = newGate();
  const k = key(org(1_000_000_000), { dailyLimit: 3 });
  // Requests that never get admitted (a bad body, an unknown model) do not use the day's allowance.
  for (let i = 0; i < 5; i++) gate.settle(gate.enter(k), 0);
  for (let i = 0; i < 3; i++) request(gate, k, 1000, 500);
  const midnight = nextIstMidnight(clock.now());
  assert.is(midnight, Date.parse('2026-11-15T18:30:00.000Z'));
  const e = expectRefused(() => gate.enter(k), 429, 'daily_limit_reached');
  assert.is(e.status, 429);
  assert.match(e.message, /3/);
  assert.is(retryAfter(e), (midnight - clock.now()) / 1000, '7 h exactly, in seconds');
  clock.set(midnight - 1);
  assert.is(retryAfter(expectRefused(() => gate.enter(k), 429, 'daily_limit_reached')), 1);
  clock.set(midnight);
  for (let i = 0; i < 3; i++) request(gate, k);
  expectRefused(() => gate.enter(k), 429, 'daily_limit_reached');
});

test('a standard key needs a positive balance; holds count against it and a credit reopens it', () => {
  const gate = newGate();
  const o = org(1_000); // ₹0.001
  const k = key(o);
  const first = gate.enter(k);
  gate.admit(first, 300_000);
  // The balance minus what is held is below zero: a second request waits for the first to settle.
  const e = expectRefused(() => gate.enter(k), 402, 'insufficient_credits');
  assert.is(e.type, 'billing_error');
  gate.settle(first, 1_059);
  // Spent past zero by the one in-flight request (spec 8): 1 000 − 1 059.
  expectRefused(() => gate.enter(k), 402, 'insufficient_credits');
  const empty = key(org(0));
  expectRefused(() => gate.enter(empty), 402, 'insufficient_credits');
});

test('credits recorded by another process reach a loaded balance once, in order', () => {
  const reader = limitsReader(db);
  const book = new SpendBook(reader);
  const gate = new LimitsGate({ gatewayRpm: 120, clock, book, ledgerSaturated: () => false });
  const o = org(1_000);
  const k = key(o);
  request(gate, k, 2_000, 1_500);
  expectRefused(() => gate.enter(k), 402, 'insufficient_credits');
  insertMoneyEvent(db, o.orgId, 'operator_credit', 400, { now: Date.now() });
  const events = reader.moneyEventsSince(0).filter((m) => m.org_id === o.orgId);
  for (const m of events) book.applyMoneyEvent(m.org_id, m.id, m.amount_micros);
  // The initial credit was already in the snapshot, so only the 400 applies: 1 000 − 1 500 + 400 ≤ 0.
  expectRefused(() => gate.enter(k), 402, 'insufficient_credits');
  insertMoneyEvent(db, o.orgId, 'operator_credit', 200, { now: Date.now() });
  const last = reader.moneyEventsSince(events.at(-1)!.id);
  for (const m of [...last, ...last]) book.applyMoneyEvent(m.org_id, m.id, m.amount_micros);
  request(gate, k); // 1 000 − 1 500 + 400 + 200 = 100 > 0
});

test('a key budget admits while spent plus held is under it, refuses until the next IST month, and overshoots by less than one hold', () => {
  const gate = newGate();
  const k = key(org(1_000_000_000), { monthlyBudgetMicros: 10_000 });
  const held = [gate.enter(k), gate.enter(k), gate.enter(k)];
  for (const t of held) gate.admit(t, 4_000); // 0, 4 000 and 8 000 were under 10 000 when each entered
  // Admission is checked at enter, before the hold: the next sees 12 000 held.
  const e = expectRefused(() => gate.enter(k), 429, 'budget_exceeded');
  assert.is(e.type, 'rate_limit_error');
  assert.match(e.message, /key's monthly budget/);
  const monthStart = nextIstMonthStart(clock.now());
  assert.is(monthStart, Date.parse('2026-11-30T18:30:00.000Z'));
  assert.is(retryAfter(e), Math.ceil((monthStart - clock.now()) / 1000));
  for (const t of held) gate.settle(t, 3_000);
  // 9 000 spent: one more is admitted, costs its whole hold, and the budget is overshot by 3 000 < 4 000.
  request(gate, k, 4_000, 4_000);
  expectRefused(() => gate.enter(k), 429, 'budget_exceeded');
  clock.set(monthStart - 1);
  assert.is(retryAfter(expectRefused(() => gate.enter(k), 429, 'budget_exceeded')), 1);
  clock.set(monthStart);
  assert.is(istMonth(clock.now()), '2026-12');
  request(gate, k, 4_000, 4_000);
});

test('a failed request releases its hold: settling with cost 0 frees the budget it held', () => {
  const gate = newGate();
  const k = key(org(1_000_000_000), { monthlyBudgetMicros: 5_000 });
  const t = gate.enter(k);
  gate.admit(t, 6_000);
  expectRefused(() => gate.enter(k), 429, 'budget_exceeded');
  gate.settle(t, 0);
  request(gate, k, 100, 100);
});

test('a workspace budget is shared by every key in it and is reloaded when it changes', () => {
  const reader = limitsReader(db);
  const book = new SpendBook(reader);
  const gate = new LimitsGate({ gatewayRpm: 120, clock, book, ledgerSaturated: () => false });
  const write = usageBatchWriter(db);
  const o = org(1_000_000_000);
  const a = key(o);
  const b = key(o);
  // Spent before any budget existed, and already in the ledger.
  request(gate, a, 2_000, 2_000);
  write([ledgerRow(a, clock.now(), 2_000)]);
  db.prepare('UPDATE workspaces SET monthly_budget_micros = 5000 WHERE id = ?').run(o.workspaceId);
  book.reloadWorkspace(o.workspaceId);
  request(gate, b, 2_000, 2_000); // 2 000 spent < 5 000
  request(gate, a, 2_000, 2_000); // 4 000 < 5 000
  const e = expectRefused(() => gate.enter(b), 429, 'budget_exceeded');
  assert.match(e.message, /workspace's monthly budget/);
  assert.is(retryAfter(e), Math.ceil((nextIstMonthStart(clock.now()) - clock.now()) / 1000));
  expectRefused(() => gate.enter(a), 429, 'budget_exceeded');
  db.prepare('UPDATE workspaces SET monthly_budget_micros = NULL WHERE id = ?').run(o.workspaceId);
  book.reloadWorkspace(o.workspaceId);
  request(gate, b);
});

test('a hold taken in one IST month and settled in the next is spent in the new month', () => {
  const gate = newGate();
  const k = key(org(1_000_000_000), { monthlyBudgetMicros: 3_000 });
  clock.set(Date.parse('2026-11-30T18:29:59.000Z'));
  request(gate, k, 3_500, 2_900); // November: 2 900 of 3 000
  const t = gate.enter(k);
  gate.admit(t, 3_500);
  clock.set(Date.parse('2026-11-30T18:30:01.000Z'));
  gate.settle(t, 3_000);
  // December has its 3 000: refused. Had it gone to November, December would be empty.
  expectRefused(() => gate.enter(k), 429, 'budget_exceeded');
});

test('daily counts, monthly spend and balance survive a restart through the ledger', () => {
  const write = usageBatchWriter(db);
  const o = org(10_000);
  const k = key(o, { dailyLimit: 3, monthlyBudgetMicros: 8_000 });
  const now = clock.now();
  // What the previous process left in the ledger: two requests today, the second failed over once.
  write([
    ledgerRow(k, now - 5_000, 3_000),
    ledgerRow(k, now - 4_000, 0, 0, 0),
    ledgerRow(k, now - 3_999, 3_500, 1, 1),
  ]);
  let gate = newGate();
  request(gate, k, 1_000, 1_000); // the third of the day: a failover's second attempt did not count twice
  expectRefused(() => gate.enter(k), 429, 'daily_limit_reached');
  write([ledgerRow(k, clock.now(), 1_000)]);

  // Restart again with the daily cap lifted: 7 500 of the 8 000 budget is spent, 2 500 of balance left.
  updateKeyLimits(db, k.id, { dailyLimit: null }, Date.now());
  const lifted = record(k.id);
  gate = newGate();
  const t = gate.enter(lifted);
  gate.admit(t, 1_000);
  expectRefused(() => gate.enter(lifted), 429, 'budget_exceeded'); // 7 500 + 1 000 held
  gate.settle(t, 600);
  expectRefused(() => gate.enter(lifted), 429, 'budget_exceeded'); // 8 100 spent
  write([ledgerRow(k, clock.now(), 600)]);

  // The org balance is 10 000 − 8 100 = 1 900 after a restart: a hold of 2 000 uses it all.
  gate = newGate();
  const other = key(o);
  const u = gate.enter(other);
  gate.admit(u, 2_000);
  expectRefused(() => gate.enter(other), 402, 'insufficient_credits');
  gate.settle(u, 1_800);
  request(gate, other); // 100 left
});

test('a new IST day at 18:30 UTC starts a fresh daily count read from the ledger', () => {
  const write = usageBatchWriter(db);
  const k = key(org(1_000_000_000), { dailyLimit: 2 });
  const midnight = Date.parse('2026-11-15T18:30:00.000Z');
  write([ledgerRow(k, midnight - 2, 10), ledgerRow(k, midnight - 1, 10)]);
  clock.set(midnight - 1);
  let gate = newGate();
  expectRefused(() => gate.enter(k), 429, 'daily_limit_reached');
  clock.set(midnight);
  gate = newGate();
  request(gate, k);
  request(gate, k);
  expectRefused(() => gate.enter(k), 429, 'daily_limit_reached');
});

test('while the ledger writer is saturated every request is refused with 503 overloaded, none dropped later', () => {
  const gate = newGate();
  const k = key(org(1_000_000_000), { dailyLimit: 1 });
  saturated = true;
  const e = expectRefused(() => gate.enter(k), 503, 'overloaded');
  assert.is(e.headers?.['retry-after'], '1');
  saturated = false;
  request(gate, k);
  expectRefused(() => gate.enter(k), 429, 'daily_limit_reached');
});

test('the rolling minute is checked before the day, the day before credit, credit before budget', () => {
  const book = new SpendBook(limitsReader(db));
  const gate = new LimitsGate({ gatewayRpm: 120, clock, book, ledgerSaturated: () => false });
  const o = org(1_000);
  const k = key(o, { rpmLimit: 1, dailyLimit: 1, monthlyBudgetMicros: 1 });
  request(gate, k, 2_000, 2_000); // now over every limit at once
  expectRefused(() => gate.enter(k), 429, 'rate_limit_exceeded');
  clock.advance(60_000);
  expectRefused(() => gate.enter(k), 429, 'daily_limit_reached');
  updateKeyLimits(db, k.id, { dailyLimit: null }, Date.now());
  expectRefused(() => gate.enter(record(k.id)), 402, 'insufficient_credits');
  const before = limitsReader(db).latestMoneyEventId();
  insertMoneyEvent(db, o.orgId, 'operator_credit', 1_000_000, { now: Date.now() });
  for (const m of limitsReader(db).moneyEventsSince(before)) book.applyMoneyEvent(m.org_id, m.id, m.amount_micros);
  expectRefused(() => gate.enter(record(k.id)), 429, 'budget_exceeded');
});

test('unauthenticated reads are limited per IP with an exact retry-after, and IPs do not share a window', () => {
  const limit = ipLimiter(3, clock);
  const start = clock.now();
  for (let i = 0; i < 3; i++) {
    limit('10.0.0.1');
    clock.advance(5_000);
  }
  const e = refusal(() => limit('10.0.0.1'));
  assert.is(e.status, 429);
  assert.is(e.code, 'rate_limit_exceeded');
  assert.is(retryAfter(e), 45);
  limit('10.0.0.2');
  clock.set(start + 60_000);
  limit('10.0.0.1');
  assert.is(refusal(() => limit('10.0.0.1')).code, 'rate_limit_exceeded');
});

test('public requests with a valid key are counted per key, anything else per IP', () => {
  const keys: Record<string, string> = { 'Bearer good-a': 'key_a', 'Bearer good-b': 'key_b' };
  const gate = publicGate(2, clock, (authorization) => keys[authorization] ?? null);
  gate('10.0.0.1', '');
  gate('10.0.0.1', 'Bearer unknown');
  assert.match(refusal(() => gate('10.0.0.1', '')).message, /per IP/);
  // The IP is spent; its keys are not, and each key has its own window whatever the IP.
  gate('10.0.0.1', 'Bearer good-a');
  gate('10.0.0.9', 'Bearer good-a');
  assert.match(refusal(() => gate('10.0.0.2', 'Bearer good-a')).message, /per API key/);
  gate('10.0.0.1', 'Bearer good-b');
  gate('10.0.0.2', '');
});

test.run();
