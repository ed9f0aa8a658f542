import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { istDay, istMonth, nextIstMidnight, nextIstMonthStart } from '../../src/lib/ist.js';
import { TRIAL_DAILY, TRIAL_RPM } from '../../src/limits/limits-gate.js';
import { insertMoneyEvent } from '../../src/store/orgs.js';
import { admitted } from '../../src/dataplane/admission.js';
import type { Ticket } from '../../src/domain/request-gate.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import type { RedisLimitsGate } from '../../src/limits/redis-limits-gate.js';
import { waitFor } from '../support/wait.js';
import { usageBatchWriter, type UsageTuple } from '../../src/store/usage.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { admittedOf, attempt, burst, Cluster, codesOf, retryAfter, type Outcome } from './redis-limits-fixture.js';

let server: RedisServer;
let c: Cluster;
test.before(async () => {
  server = await startRedis();
});
test.after(async () => {
  await server.stop();
});
test.before.each(async () => {
  c = await Cluster.on(server);
});
test.after.each(async () => {
  await c.close();
});

const refusals = (os: Outcome[]) => os.flatMap((o) => (o.ok ? [] : [o.error]));

test('a key with rpm_limit 60 under 500 concurrent requests over 3 instances: exactly 60 admitted, the rest 429 with an exact retry-after', async () => {
  const gates = await c.gatesOf(3);
  const k = c.key(c.org(1_000_000_000), { rpmLimit: 60 });
  const out = await burst(gates, [k], 500);
  assert.is(admittedOf(out), 60);
  assert.equal(codesOf(out), ['rate_limit_exceeded']);
  for (const e of refusals(out)) {
    assert.is(e.status, 429);
    assert.match(e.message, /key limit of 60 requests per minute/);
    assert.is(retryAfter(e), 60);
  }
  // 30.5 s later the same second's admissions still fill the window; at 60 s they have left it.
  c.clock.advance(30_500);
  const still = await attempt(gates[1], k);
  assert.is(still.ok, false);
  assert.is(!still.ok && retryAfter(still.error), 30);
  c.clock.advance(29_500);
  assert.is(admittedOf(await burst(gates, [k], 100)), 60);
});

test('the gateway cap holds across instances for a key with no rpm_limit, and a higher rpm_limit does not lift it', async () => {
  const gates = await c.gatesOf(3);
  const o = c.org(1_000_000_000);
  for (const k of [c.key(o), c.key(o, { rpmLimit: 500 })]) {
    const out = await burst(gates, [k], 500);
    assert.is(admittedOf(out), 120);
    for (const e of refusals(out)) assert.match(e.message, /gateway cap of 120 requests per minute per key/);
  }
});

test('trial keys: the org\'s 60 a minute is shared by all its keys over all instances, and so is its 200 a day', async () => {
  const gates = await c.gatesOf(3);
  const o = c.org(0);
  const keys = [c.key(o, { tier: 'trial' }), c.key(o, { tier: 'trial' }), c.key(o, { tier: 'trial' })];
  const first = await burst(gates, keys, 500);
  assert.is(admittedOf(first), TRIAL_RPM);
  assert.ok(refusals(first).some((e) => /trial allowance of 60 requests per minute per organisation/.test(e.message)));
  // Trial keys are free: nothing held, nothing owed, even on an empty balance.
  let total = TRIAL_RPM;
  for (let minute = 1; minute < 5; minute++) {
    c.clock.advance(61_000);
    total += admittedOf(await burst(gates, keys, 120));
  }
  assert.is(total, TRIAL_DAILY);
  c.clock.advance(61_000);
  const late = await attempt(gates[2], keys[0]);
  assert.is(!late.ok && late.error.code, 'daily_limit_reached');
  assert.match(!late.ok ? late.error.message : '', /200 per organisation on trial keys/);
  assert.is(!late.ok && retryAfter(late.error), Math.ceil((nextIstMidnight(c.clock.now()) - c.clock.now()) / 1000));
  // A new key in the org does not bring a fresh allowance.
  const fresh = await attempt(gates[0], c.key(o, { tier: 'trial' }));
  assert.is(!fresh.ok && fresh.error.code, 'daily_limit_reached');
});

test('a ₹5 balance under 200 concurrent priced requests over 3 instances: overshoot below one request\'s hold', async () => {
  const gates = await c.gatesOf(3);
  const o = c.org(5_000_000);
  const k = c.key(o);
  const hold = 300_000;
  const out = await burst(gates, [c.key(o), k, c.key(o)], 200, hold);
  const ok = out.filter((x) => x.ok);
  // 16 holds leave 200 000 free, so the 17th is admitted (balance minus holds > 0) and the 18th is not.
  assert.is(ok.length, 17);
  assert.equal(codesOf(out), ['insufficient_credits']);
  for (const e of refusals(out)) assert.is(e.status, 402);
  await Promise.all(ok.map((x) => x.ok && x.gate.settle(x.ticket, hold)));
  const r = await c.peek();
  const balance = Number(await r.hget(`gw:b:${o.orgId}`, 'b'));
  assert.is(balance, 5_000_000 - 17 * hold);
  assert.ok(balance > -hold);
  // Holds are gone once settled.
  assert.is(await r.hget(`gw:ha:${o.orgId}`, 'o'), null);
  assert.is(Number(await r.get(`gw:s:${o.workspaceId}:${istMonth(c.clock.now())}`)), 17 * hold);
});

test('holds are released on settle, a failed request frees its hold, and a crashed instance\'s hold lapses after holdTtlMs', async () => {
  const [a, b] = await c.gatesOf(2, { holdTtlMs: 120_000 });
  const o = c.org(1_000_000);
  const k = c.key(o);
  const held = await attempt(a, k, 1_000_000);
  assert.ok(held.ok);
  const blocked = await attempt(b, k, 1);
  assert.is(!blocked.ok && blocked.error.code, 'insufficient_credits');
  // Settled with cost 0 (the request failed): the balance is whole again.
  await a.settle(held.ok ? held.ticket : (null as never), 0);
  const again = await attempt(b, k, 1_000_000);
  assert.ok(again.ok);
  // Instance b "crashes" holding everything: a is blocked until the hold expires.
  assert.is((await attempt(a, k, 1)).ok, false);
  c.clock.advance(119_000);
  assert.is((await attempt(a, k, 1)).ok, false);
  c.clock.advance(1_000);
  assert.ok((await attempt(a, k, 1)).ok);
  // The lapsed hold's late settle releases nothing twice and still charges the cost.
  await b.settle(again.ok ? again.ticket : (null as never), 400_000);
  const r = await c.peek();
  assert.is(Number(await r.hget(`gw:b:${o.orgId}`, 'b')), 600_000);
  assert.is(Number(await r.hget(`gw:ha:${o.orgId}`, 'o')), 1);
});

test('key and workspace budgets count spend plus holds across instances; a workspace budget change is a reload', async () => {
  const [a, b, g3] = await c.gatesOf(3);
  const o = c.org(1_000_000_000);
  const k = c.key(o, { monthlyBudgetMicros: 10_000 });
  const out = await burst([a, b, g3], [k], 50, 3_000);
  // 3 holds leave 1 000 under the budget: the 4th is admitted, the rest refused.
  assert.is(admittedOf(out), 4);
  const e = refusals(out)[0];
  assert.is(e.code, 'budget_exceeded');
  assert.match(e.message, /key's monthly budget/);
  assert.is(retryAfter(e), Math.ceil((nextIstMonthStart(c.clock.now()) - c.clock.now()) / 1000));

  const w = c.key(o);
  const w2 = c.key(o);
  await Promise.all([attempt(a, w, 2_000), attempt(b, w2, 2_000)]).then((xs) => Promise.all(xs.map((x) => x.ok && x.gate.settle(x.ticket, 2_000))));
  c.db.prepare('UPDATE workspaces SET monthly_budget_micros = 20000 WHERE id = ?').run(o.workspaceId);
  // Not yet reloaded: the budget Redis has (none) still holds.
  assert.ok((await attempt(g3, w, 0)).ok);
  await b.reloadWorkspace(o.workspaceId);
  // The workspace has spent 4 000, and k's 4 requests hold 12 000: 16 000 of 20 000.
  const ws = await burst([a, b, g3], [w, w2], 30, 2_000);
  assert.is(admittedOf(ws), 2);
  assert.match(refusals(ws)[0].message, /workspace's monthly budget/);
  c.db.prepare('UPDATE workspaces SET monthly_budget_micros = NULL WHERE id = ?').run(o.workspaceId);
  await a.reloadWorkspace(o.workspaceId);
  assert.ok((await attempt(g3, w2, 2_000)).ok);
});

test('a money event is applied once however many instances deliver it, and one logged before the balance was seeded is not lost', async () => {
  const gates = await c.gatesOf(3);
  const o = c.org(0);
  const k = c.key(o);
  const refused = await attempt(gates[0], k, 1);
  assert.is(!refused.ok && refused.error.code, 'insufficient_credits');
  insertMoneyEvent(c.db, o.orgId, 'operator_credit', 2_000_000, { now: Date.now() });
  const eventId = lastMoneyEventId();
  const applied = await Promise.all(gates.flatMap((g) => [g.applyMoneyEvent(o.orgId, eventId, 2_000_000), g.applyMoneyEvent(o.orgId, eventId, 2_000_000)]));
  assert.is(applied.filter(Boolean).length, 1);
  const r = await c.peek();
  assert.is(Number(await r.hget(`gw:b:${o.orgId}`, 'b')), 2_000_000);

  // Another org's credit arrives before any instance has loaded its balance, with an id the
  // database snapshot the seed reads does not include yet (the bus was faster than the commit).
  const o2 = c.org(0);
  const k2 = c.key(o2);
  assert.ok(await gates[1].applyMoneyEvent(o2.orgId, 1_000_000, 700_000));
  assert.is(await gates[2].applyMoneyEvent(o2.orgId, 1_000_000, 700_000), false);
  assert.ok((await attempt(gates[2], k2, 1)).ok);
  assert.is(Number(await r.hget(`gw:b:${o2.orgId}`, 'b')), 700_000);
  void k;
});

test('figures Redis does not have are read from the ledger: day counts and spend survive Redis losing its data', async () => {
  const [a, b] = await c.gatesOf(2);
  const o = c.org(1_000_000);
  const k = c.key(o, { dailyLimit: 5 });
  const write = usageBatchWriter(c.db);
  const row = (cost: number): UsageTuple => [c.clock.now(), `r${Math.random()}`, k.orgId, k.workspaceId, k.id, 'chat', 'llama-3.3-70b-instruct',
    'groq', 'groq:llama', 0, 200, null, 11, 7, cost, 5, 2, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, null, 0];
  // Three requests the ledger has already recorded (an earlier run).
  write([row(100_000), row(100_000), row(100_000)]);
  const out = await burst([a, b], [k], 10);
  assert.is(admittedOf(out), 2);
  assert.equal(codesOf(out), ['daily_limit_reached']);
  const r = await c.peek();
  assert.is(Number(await r.get(`gw:d:${k.id}:${istDay(c.clock.now())}`)), 5);
  assert.is(Number(await r.hget(`gw:b:${o.orgId}`, 'b')), 700_000);

  await c.redis.kill();
  await c.redis.restart();
  await Promise.all(c.conns.map((x) => new Promise((res) => (x.status === 'ready' ? res(null) : x.once('ready', res)))));
  // Empty again: the two unflushed requests are forgotten, the ledger's three are not.
  assert.is(admittedOf(await burst([a, b], [k], 10)), 2);
});

test('a refusal at admit() takes the request back out of the minute and the day, as if refused at enter()', async () => {
  const [a, b] = await c.gatesOf(2);
  const o = c.org(100);
  const k = c.key(o, { rpmLimit: 2, dailyLimit: 2 });
  const ta = await a.enter(k);
  const tb = await b.enter(k);
  await a.admit(ta, 100);
  try {
    await b.admit(tb, 100);
    assert.unreachable('the second hold meets a balance already held');
  } catch (e) {
    assert.is((e as { code: string }).code, 'insufficient_credits');
  }
  await b.settle(tb, 0);
  const r = await c.peek();
  assert.is(await r.zcard(`gw:m:${k.id}`), 1);
  assert.is(Number(await r.get(`gw:d:${k.id}:${istDay(c.clock.now())}`)), 1);
  // A request entered but never admitted (its body was refused) is not in the day either.
  await a.settle(ta, 100);
  await insertCredit(o.orgId);
  const tc = await b.enter(k);
  await b.settle(tc, 0);
  assert.is(Number(await r.get(`gw:d:${k.id}:${istDay(c.clock.now())}`)), 1);
  assert.is(await r.zcard(`gw:m:${k.id}`), 2);
});

const lastMoneyEventId = () => Number(c.db.prepare('SELECT COALESCE(MAX(id), 0) FROM money_events').pluck().get());

/** A credit delivered as a money event (the database row itself does not matter to the gate). */
async function insertCredit(orgId: string): Promise<void> {
  await c.gates[0].applyMoneyEvent(orgId, lastMoneyEventId() + 1, 1_000);
}

test('the rolling minute is checked before the day, the day before credit, credit before budget; a saturated ledger refuses first', async () => {
  const [a] = await c.gatesOf(1);
  const o = c.org(0);
  const k = c.key(o, { rpmLimit: 1, dailyLimit: 1, monthlyBudgetMicros: 0 });
  const first = await attempt(a, k);
  assert.is(!first.ok && first.error.code, 'insufficient_credits');
  c.saturated = true;
  const sat = await attempt(a, k);
  assert.is(!sat.ok && sat.error.code, 'overloaded');
  c.saturated = false;
  await insertCredit(o.orgId);
  const budget = await attempt(a, k);
  assert.is(!budget.ok && budget.error.code, 'budget_exceeded');
  const free = c.key(o, { rpmLimit: 1, dailyLimit: 1 });
  assert.ok((await attempt(a, free)).ok);
  const rpm = await attempt(a, free);
  assert.is(!rpm.ok && rpm.error.code, 'rate_limit_exceeded');
  c.clock.advance(60_000);
  const day = await attempt(a, free);
  assert.is(!day.ok && day.error.code, 'daily_limit_reached');
  c.clock.set(nextIstMidnight(c.clock.now()));
  assert.ok((await attempt(a, free)).ok);
});

test('enterAdmitted(): enter and hold in one round trip keep the same bounds (rpm 60 and a ₹5 balance over 3 instances)', async () => {
  const gates = await c.gatesOf(3);
  const o = c.org(5_000_000);
  const k = c.key(o, { rpmLimit: 60 });
  const tries = await Promise.all(Array.from({ length: 200 }, (_, i) => gates[i % 3].enterAdmitted(k, 300_000).then(
    (t) => ({ t, g: gates[i % 3] }), (e: { code: string }) => e.code)));
  const ok = tries.filter((x) => typeof x !== 'string') as { t: Ticket; g: RedisLimitsGate }[];
  assert.is(ok.length, 17);
  assert.equal([...new Set(tries.filter((x) => typeof x === 'string'))], ['insufficient_credits']);
  await Promise.all(ok.map(({ t, g }) => g.settle(t, 0)));
  const more = await Promise.all(Array.from({ length: 200 }, (_, i) => gates[i % 3].enterAdmitted(k, 0).then(() => 'ok', (e: { code: string }) => e.code)));
  assert.is(more.filter((x) => x === 'ok').length, 60 - 17);
  const r = await c.peek();
  assert.is(Number(await r.get(`gw:d:${k.id}:${istDay(c.clock.now())}`)), 60);
  assert.is(await r.hget(`gw:ha:${o.orgId}`, 'o'), null);
});

test('admission with a shared gate: parsed first, one decision; a request over its limit hears 429 even when its body is bad', async () => {
  const [g] = await c.gatesOf(1);
  const o = c.org(1_000_000);
  const k = c.key(o, { rpmLimit: 2 });
  const plan = () => ({ plan: [] });
  let charged = 0;
  await admitted(k, g, 'r1', plan, () => 5_000, async () => 4_000);
  const bad = () => { throw new GatewayError(400, 'invalid_request_error', 'bad_request', 'bad body'); };
  const e1 = await admitted(k, g, 'r2', bad, () => 0, async () => 0).catch((e: GatewayError) => e);
  assert.is((e1 as GatewayError).code, 'bad_request');
  const e2 = await admitted(k, g, 'r3', plan, () => 5_000, async () => { charged++; return 0; }).catch((e: GatewayError) => e);
  assert.is((e2 as GatewayError).code, 'rate_limit_exceeded');
  const e3 = await admitted(k, g, 'r4', bad, () => 0, async () => 0).catch((e: GatewayError) => e);
  assert.is((e3 as GatewayError).code, 'rate_limit_exceeded');
  assert.is(charged, 0);
  const r = await c.peek();
  // The bad request counted in the minute, not in the day; the served one spent its cost.
  await waitFor(async () => Number(await r.hget(`gw:b:${o.orgId}`, 'b')) === 996_000, 2_000, 'the settle');
  assert.is(Number(await r.get(`gw:d:${k.id}:${istDay(c.clock.now())}`)), 1);
  assert.is(await r.zcard(`gw:m:${k.id}`), 2);
});

test.run();
