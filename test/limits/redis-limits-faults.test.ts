import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Redis } from 'ioredis';
import { istMonth } from '../../src/lib/ist.js';
import { LimitsGate } from '../../src/limits/limits-gate.js';
import { SpendBook } from '../../src/limits/spend-book.js';
import { limitsReader } from '../../src/store/usage.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { waitFor } from '../support/wait.js';
import { admittedOf, attempt, burst, Cluster, codesOf, retryAfter } from './redis-limits-fixture.js';

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

const ready = (conns: Redis[]) => waitFor(() => conns.every((x) => x.status === 'ready'), 10_000, 'the gates to reconnect');

test('fail_closed: Redis killed mid-run answers 503 unavailable at once, never hangs or over-admits, and serves again when it is back', async () => {
  const gates = await c.gatesOf(3);
  const k = c.key(c.org(1_000_000_000), { rpmLimit: 60 });
  assert.is(admittedOf(await burst(gates, [k], 10)), 10);
  // 300 in flight while the server dies: each one is admitted or refused, by the limit or 503.
  const inFlight = burst(gates, [k], 300);
  await server.kill();
  const out = await inFlight;
  assert.ok(admittedOf(out) <= 50);
  for (const code of codesOf(out)) assert.ok(['rate_limit_exceeded', 'unavailable'].includes(code), code);
  const started = Date.now();
  const down = await attempt(gates[1], k);
  assert.ok(Date.now() - started < 200, 'refused without waiting for a timeout');
  assert.is(!down.ok && down.error.status, 503);
  assert.is(!down.ok && down.error.code, 'unavailable');
  assert.is(!down.ok && retryAfter(down.error), 1);
  assert.ok(gates[1].degraded);

  await server.restart();
  await ready(c.conns);
  // An empty Redis: the minute starts again, exact as ever.
  assert.is(admittedOf(await burst(gates, [k], 100)), 60);
  assert.is(gates[1].degraded, false);
});

test('local: while Redis is down each instance serves on its own limits for localForMs, then fails closed; back on Redis when it returns', async () => {
  const local = () => new LimitsGate({ gatewayRpm: 120, clock: c.clock, book: new SpendBook(limitsReader(c.db)), ledgerSaturated: () => false });
  const [a] = await c.gatesOf(1, { outage: { mode: 'local', gate: local(), localForMs: 30_000 } });
  const [b] = await c.gatesOf(1, { outage: { mode: 'local', gate: local(), localForMs: 30_000 } });
  const o = c.org(1_000_000);
  const k = c.key(o, { rpmLimit: 20 });
  assert.is(admittedOf(await burst([a, b], [k], 5)), 5);
  await server.kill();
  // Each instance's local gate knows nothing of the 5 Redis counted nor of the other instance:
  // the bound of this mode is the key's limit per instance.
  const out = await burst([a, b], [k], 60, 10_000);
  assert.is(admittedOf(out), 40);
  assert.equal(codesOf(out), ['rate_limit_exceeded']);
  for (const x of out) if (x.ok) await x.gate.settle(x.ticket, 10_000);
  c.clock.advance(29_000);
  const stillLocal = await attempt(a, c.key(o));
  assert.ok(stillLocal.ok);
  c.clock.advance(1_000);
  const closed = await attempt(a, c.key(o));
  assert.is(!closed.ok && closed.error.code, 'unavailable');
  // A request served locally that ends after the deadline still settles (locally).
  if (stillLocal.ok) await a.settle(stillLocal.ticket, 0);

  await server.restart();
  await ready(c.conns);
  await waitFor(() => a.owedCount === 0 && b.owedCount === 0, 5_000, 'the owed costs to be handled');
  c.clock.advance(60_000);
  // Redis lost its data, so its figures come again from the database (the ledger has the costs).
  assert.is(admittedOf(await burst([a, b], [k], 40)), 20);
  assert.is(a.degraded || b.degraded, false);
});

test('a hung Redis (paused) times out into the outage policy; costs served locally meanwhile are added to the figures Redis kept', async () => {
  const local = new LimitsGate({ gatewayRpm: 120, clock: c.clock, book: new SpendBook(limitsReader(c.db)), ledgerSaturated: () => false });
  const [a] = await c.gatesOf(1, { outage: { mode: 'local', gate: local, localForMs: 60_000 } });
  // The fixture's gates time out after the connection's default 1 s.
  const o = c.org(1_000_000);
  const k = c.key(o);
  const first = await attempt(a, k, 100_000);
  assert.ok(first.ok);
  if (first.ok) await a.settle(first.ticket, 100_000);
  const admin = await c.peek();
  await admin.call('CLIENT', 'PAUSE', '1500', 'WRITE');
  const started = Date.now();
  const slow = await attempt(a, k, 50_000);
  assert.ok(slow.ok, 'served locally');
  assert.ok(Date.now() - started < 1_400, 'within the command timeout');
  assert.ok(a.degraded);
  if (slow.ok) await a.settle(slow.ticket, 50_000);
  assert.is(a.owedCount, 1);
  await waitFor(async () => (await attempt(a, k)).ok && !a.degraded, 5_000, 'Redis to answer again');
  await waitFor(() => a.owedCount === 0, 5_000, 'the owed cost to be added');
  await waitFor(async () => Number(await admin.hget(`gw:b:${o.orgId}`, 'b')) === 850_000, 5_000, 'the balance to carry the local cost');
  assert.is(Number(await admin.get(`gw:s:${k.id}:${istMonth(c.clock.now())}`)), 150_000);
});

test.run();
