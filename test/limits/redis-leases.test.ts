// Local leases on a real Redis: most requests of a busy key are admitted without a round trip,
// and the bounds of the exact path still hold across instances (nothing admitted that Redis has
// not counted); what a lease costs is under-admission, bounded by its period and idle time.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Redis } from 'ioredis';
import type { KeyRecord } from '../../src/domain/key-record.js';
import type { Ticket } from '../../src/domain/request-gate.js';
import { istDay, istMonth } from '../../src/lib/ist.js';
import type { RedisLimitsGate } from '../../src/limits/redis-limits-gate.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { waitFor } from '../support/wait.js';
import { Cluster } from './redis-limits-fixture.js';

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

const LEASE = { slots: 16, periodMs: 1_000, moneyRequests: 16 };
type Tried = { ok: true; t: Ticket; g: RedisLimitsGate } | { ok: false; code: string };

const tryAt = (g: RedisLimitsGate, k: KeyRecord, micros: number): Promise<Tried> =>
  g.enterAdmitted(k, micros).then((t) => ({ ok: true as const, t, g }), (e: { code: string }) => ({ ok: false as const, code: e.code }));
const burstOf = (gates: RedisLimitsGate[], k: KeyRecord, n: number, micros = 0) =>
  Promise.all(Array.from({ length: n }, (_, i) => tryAt(gates[i % gates.length], k, micros)));
const okOf = (xs: Tried[]) => xs.filter((x): x is Tried & { ok: true } => x.ok);
const codes = (xs: Tried[]) => [...new Set(xs.flatMap((x) => (x.ok ? [] : [x.code])))];

async function evalCalls(r: Redis): Promise<number> {
  const info = await r.info('commandstats');
  let n = 0;
  for (const m of info.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g)) n += Number(m[1]);
  return n;
}

test('a busy key is admitted from its lease: 200 requests take fewer than one script in 6 (claims and batched costs), every figure exact afterwards', async () => {
  const [g] = await c.gatesOf(1, { gatewayRpm: 1_000_000, lease: LEASE });
  const o = c.org(1_000_000_000);
  const k = c.key(o);
  const r = await c.peek();
  const before = await evalCalls(r);
  const settled: Promise<void>[] = [];
  for (let i = 0; i < 200; i++) {
    const t = await g.enterAdmitted(k, 1_000);
    settled.push(g.settle(t, 800) as unknown as Promise<void>);
  }
  await Promise.all(settled);
  const calls = await evalCalls(r) - before;
  assert.ok(calls <= 34, `${calls} scripts for 200 requests`); // 29 measured: claims of 16 and costs sent in batches
  // Every admission is counted in the minute and the day; what the lease did not use goes back.
  await g.close();
  assert.is(await r.zcard(`gw:m:${k.id}`), 200);
  assert.is(Number(await r.get(`gw:d:${k.id}:${istDay(c.clock.now())}`)), 200);
  assert.is(Number(await r.hget(`gw:b:${o.orgId}`, 'b')), 1_000_000_000 - 200 * 800);
  assert.is(Number(await r.get(`gw:s:${k.id}:${istMonth(c.clock.now())}`)), 200 * 800);
  assert.is(await r.hget(`gw:ha:${o.orgId}`, 'o'), null, 'no hold left');
  assert.is(g.leases!.size, 0);
});

test('with leases, rpm 60 under 500 concurrent requests over 3 instances: exactly 60; the gateway cap exactly 120', async () => {
  const gates = await c.gatesOf(3, { lease: LEASE });
  const o = c.org(1_000_000_000);
  const out = await burstOf(gates, c.key(o, { rpmLimit: 60 }), 500);
  assert.is(okOf(out).length, 60);
  assert.equal(codes(out), ['rate_limit_exceeded']);
  const capped = await burstOf(gates, c.key(o), 500);
  assert.is(okOf(capped).length, 120);
});

test('with leases, a ₹5 balance under 200 concurrent priced requests over 3 instances: overshoot below one request\'s hold, and the balance is ₹5 minus the costs', async () => {
  const gates = await c.gatesOf(3, { lease: LEASE });
  const o = c.org(5_000_000);
  const k = c.key(o);
  const hold = 300_000;
  const out = await burstOf(gates, k, 200, hold);
  const ok = okOf(out);
  // 16 whole holds fit in ₹5; at most one more is let in by the exact path (balance minus holds > 0).
  assert.ok(ok.length === 16 || ok.length === 17, `${ok.length} admitted`);
  assert.equal(codes(out), ['insufficient_credits']);
  await Promise.all(ok.map(({ t, g }) => g.settle(t, hold)));
  await Promise.all(gates.map((g) => g.close()));
  const r = await c.peek();
  const balance = Number(await r.hget(`gw:b:${o.orgId}`, 'b'));
  assert.is(balance, 5_000_000 - ok.length * hold);
  assert.ok(balance > -hold);
  assert.is(await r.hget(`gw:ha:${o.orgId}`, 'o'), null);
});

test('slots an instance leased and did not use hold the others back for at most the lease period, then go back', async () => {
  const [a, b] = await c.gatesOf(2, { lease: LEASE });
  const k = c.key(c.org(1_000_000_000), { rpmLimit: 60 });
  assert.ok((await tryAt(a, k, 0)).ok);
  await waitForLease(a, k);
  // a's first request waited for its lease and used one of its 16 slots: b gets the other 44.
  assert.is(okOf(await burstOf([b], k, 100)).length, 44);
  c.clock.advance(LEASE.periodMs);
  await a.leases!.sweep(c.clock.now());
  assert.is(okOf(await burstOf([b], k, 100)).length, 15, 'a\'s 15 unused slots went back');
});

test('money an instance leased is released when the lease is idle, and a changed key record drops its lease', async () => {
  const [a, b] = await c.gatesOf(2, { lease: { ...LEASE, idleMs: 5_000 } });
  const o = c.org(800_000);
  const k = c.key(o);
  // The lease asks for 16 requests of ₹0.05 and gets all ₹0.80; the request itself is then
  // refused by the exact path (nothing free) and admitted from the lease.
  const first = await tryAt(a, k, 50_000);
  assert.ok(first.ok);
  await a.settle((first as { t: Ticket }).t, 50_000);
  assert.equal(a.leases!.held(k.id, c.clock.now()).micros, 750_000);
  assert.equal(await tryAt(b, k, 1_000), { ok: false, code: 'insufficient_credits' });
  c.clock.advance(5_000);
  await a.leases!.sweep(c.clock.now());
  assert.is(a.leases!.size, 0);
  assert.ok((await tryAt(b, k, 600_000)).ok, 'released after 5 s idle');

  // The key is read again with an rpm_limit of 1 (already used): its lease no longer admits.
  const tight = { ...k, rpmLimit: 1 };
  const [x] = await c.gatesOf(1, { lease: LEASE });
  assert.ok((await tryAt(x, k, 0)).ok);
  await waitForLease(x, k);
  assert.equal(await tryAt(x, tight, 0), { ok: false, code: 'rate_limit_exceeded' });
});

test('Redis away: slots already leased serve out their period (counted before it went), then fail closed; the costs reach Redis when it is back', async () => {
  const [g] = await c.gatesOf(1, { gatewayRpm: 1_000_000, lease: LEASE });
  const o = c.org(1_000_000_000);
  const k = c.key(o);
  const first = await tryAt(g, k, 1_000);
  assert.ok(first.ok);
  await waitForLease(g, k);
  await server.kill();
  const during = await burstOf([g], k, 40, 1_000);
  const served = okOf(during);
  // Only what the lease held before Redis went: at most its 16 slots and 16 requests of money.
  assert.ok(served.length >= 1 && served.length <= 15, `${served.length} served`);
  assert.equal(codes(during), ['unavailable']);
  await Promise.all(served.map(({ t }) => g.settle(t, 700)));
  c.clock.advance(LEASE.periodMs);
  assert.equal(await tryAt(g, k, 1_000), { ok: false, code: 'unavailable' });
  await server.restart();
  await waitFor(() => c.conns.every((x) => x.status === 'ready'), 10_000, 'reconnected');
  // An empty Redis (no persistence): the figures are read from the ledger again; the spend
  // served during the outage was owed and is added to what Redis has once it seeds.
  await waitFor(async () => (await tryAt(g, k, 1_000)).ok, 5_000, 'serving again');
});

/** Until the lease a first request asked for has come back with slots. */
async function waitForLease(g: RedisLimitsGate, k: KeyRecord): Promise<void> {
  await waitFor(() => g.leases!.held(k.id, c.clock.now()).slots > 0, 2_000, 'the lease');
}

test.run();
