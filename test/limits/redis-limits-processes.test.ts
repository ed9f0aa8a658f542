import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../support/gateway-process.js';
import type { BurstOrder, BurstResult } from '../support/limits-gate-process.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { Cluster } from './redis-limits-fixture.js';

// Three gateway processes, each with its own RedisLimitsGate and connection, on one Redis.
const CHILD = join(ROOT, 'dist', 'test', 'support', 'limits-gate-process.js');

let server: RedisServer;
let c: Cluster;
let children: ChildProcess[] = [];

test.before(async () => {
  server = await startRedis();
  c = await Cluster.on(server);
  children = await Promise.all([0, 1, 2].map(() => new Promise<ChildProcess>((resolve, reject) => {
    const child = fork(CHILD, [], { env: { ...process.env, REDIS_URL: server.url, DB_PATH: join(c.dir, 'gw.db') }, stdio: 'inherit' });
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`limits process exited with ${code}`)));
  })));
});
test.after(async () => {
  await Promise.all(children.map((ch) => new Promise((r) => { ch.once('exit', r); ch.send('exit'); })));
  await c.close();
  await server.stop();
});

/** The same order to every process at once; each runs its share concurrently. */
async function burst(keyIds: string[], total: number, hold = 0): Promise<BurstResult> {
  const results = await Promise.all(children.map((ch, i) => new Promise<BurstResult>((resolve) => {
    ch.once('message', (m) => resolve(m as BurstResult));
    const order: BurstOrder = { keyIds, n: Math.floor(total / 3) + (i < total % 3 ? 1 : 0), hold };
    ch.send(order);
  })));
  return { admitted: results.reduce((n, r) => n + r.admitted, 0), codes: [...new Set(results.flatMap((r) => r.codes))] };
}

test('3 processes, a key with rpm_limit 60, 500 concurrent requests: exactly 60 admitted', async () => {
  const k = c.key(c.org(1_000_000_000), { rpmLimit: 60 });
  const r = await burst([k.id], 500);
  assert.is(r.admitted, 60);
  assert.equal(r.codes, ['rate_limit_exceeded']);
});

test('3 processes, the gateway cap and the trial org cap: exactly 120 and 60', async () => {
  const o = c.org(1_000_000_000);
  assert.is((await burst([c.key(o).id], 500)).admitted, 120);
  const t = c.org(0);
  const trial = [c.key(t, { tier: 'trial' }).id, c.key(t, { tier: 'trial' }).id, c.key(t, { tier: 'trial' }).id];
  assert.is((await burst(trial, 500)).admitted, 60);
});

test('3 processes, a ₹5 balance under 200 concurrent requests holding ₹0.30: 17 admitted, overshoot ₹0.10 < one hold', async () => {
  const o = c.org(5_000_000);
  const keys = [c.key(o).id, c.key(o).id, c.key(o).id];
  const r = await burst(keys, 200, 300_000);
  assert.is(r.admitted, 17);
  assert.equal(r.codes, ['insufficient_credits']);
});

test.run();
