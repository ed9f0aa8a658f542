// What the shared limits cost a request: one EVALSHA round trip to a real redis-server on
// loopback at one connection, in series (each call waits for the previous answer, as one request
// waits for its admission). Reports latency (p50/p99 µs), this process's CPU per call and
// redis-server's (from INFO cpu), for PING (the floor), the gate's enter() alone, and a whole
// priced request (enter, admit with a hold, settle: three round trips; or enterAdmitted, one round
// trip in series, its settle not waited for).
//   node dist/bench/redis-limits.bench.js            (BENCH_REDIS_CALLS=20000 by default)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { connectRedis, redisReady } from '../src/cluster/redis-connection.js';
import { systemClock } from '../src/lib/clock.js';
import { asyncLimitsReader } from '../src/limits/async-limits-reader.js';
import { RedisLimitsGate } from '../src/limits/redis-limits-gate.js';
import { openDatabase } from '../src/store/database.js';
import { findKeyById, insertKey } from '../src/store/keys.js';
import { insertMoneyEvent, insertOrg } from '../src/store/orgs.js';
import { limitsReader } from '../src/store/usage.js';
import { startRedis } from '../test/support/redis-server.js';
import { spread } from './stats.js';

const CALLS = Number(process.env.BENCH_REDIS_CALLS ?? 20_000);

async function serverCpuUs(r: Redis): Promise<number> {
  const info = await r.info('cpu');
  const f = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)![1]);
  return (f('used_cpu_user') + f('used_cpu_sys')) * 1e6;
}

/** `inFlight` calls kept going at once (as many requests in flight on one instance): CPU per call and throughput. */
async function measureConcurrent(label: string, admin: Redis, inFlight: number, call: () => Promise<unknown>): Promise<void> {
  const run = async (n: number) => {
    let next = 0;
    await Promise.all(Array.from({ length: inFlight }, async () => {
      while (next++ < n) await call();
    }));
  };
  await run(2_000);
  const serverBefore = await serverCpuUs(admin);
  const cpuBefore = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await run(CALLS);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = process.cpuUsage(cpuBefore);
  const serverAfter = await serverCpuUs(admin);
  console.log(`${label.padEnd(34)} ${Math.round(CALLS / ms * 1000).toString().padStart(7)} calls/s  `
    + `client CPU ${((cpu.user + cpu.system) / CALLS).toFixed(1).padStart(5)} µs/call  redis-server CPU ${((serverAfter - serverBefore) / CALLS).toFixed(1).padStart(5)} µs/call`);
}

async function measure(label: string, admin: Redis, call: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 2_000; i++) await call(); // warm-up: JIT, script cache, seeds
  const samples: number[] = new Array(CALLS);
  const serverBefore = await serverCpuUs(admin);
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) {
    const t0 = process.hrtime.bigint();
    await call();
    samples[i] = Number(process.hrtime.bigint() - t0) / 1e3;
  }
  const cpu = process.cpuUsage(cpuBefore);
  const serverAfter = await serverCpuUs(admin);
  const s = spread(samples);
  console.log(`${label.padEnd(34)} p50 ${s.p50.toFixed(1).padStart(6)} µs  p99 ${s.p99.toFixed(1).padStart(6)} µs  `
    + `client CPU ${((cpu.user + cpu.system) / CALLS).toFixed(1).padStart(5)} µs/call  redis-server CPU ${((serverAfter - serverBefore) / CALLS).toFixed(1).padStart(5)} µs/call`);
}

async function main(): Promise<void> {
  const server = await startRedis();
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-redis-'));
  const db = openDatabase(join(dir, 'gw.db'));
  try {
    const o = insertOrg(db, 'bench', { now: Date.now() });
    insertMoneyEvent(db, o.orgId, 'operator_credit', 1e15, { now: Date.now() });
    const { id } = insertKey(db, { orgId: o.orgId, workspaceId: o.workspaceId, name: 'k', tier: 'standard', monthlyBudgetMicros: 1e15 }, Date.now());
    const { hash: _hash, ...key } = findKeyById(db, id)!;
    const redis = connectRedis(server.url);
    const admin = connectRedis(server.url);
    await Promise.all([redisReady(redis), redisReady(admin)]);
    // No cap in the way: every call is admitted, the worst case for the scripts (they count).
    const gate = new RedisLimitsGate({ redis, reader: asyncLimitsReader(limitsReader(db)), gatewayRpm: 1e9, clock: systemClock, ledgerSaturated: () => false });
    console.log(`redis-server ${server.url}, one connection, ${CALLS} calls in series after 2000 warm-up`);
    await measure('PING', admin, () => redis.ping());
    await measure('enter() (1 EVALSHA)', admin, () => gate.enter(key));
    await measure('enter+admit+settle (3 EVALSHA)', admin, async () => {
      const t = await gate.enter(key);
      await gate.admit(t, 1_000);
      await gate.settle(t, 900);
    });
    // What admission.ts does with a shared gate: one decision in series, the settle after the answer.
    await measure('enterAdmitted (1 EVALSHA in series)', admin, async () => {
      const t = await gate.enterAdmitted(key, 1_000);
      void gate.settle(t, 900);
    });
    // Under load: 64 requests in flight on one instance, each one enterAdmitted (settles not waited for).
    await measureConcurrent('64 in flight, enterAdmitted+settle', admin, 64, async () => {
      const t = await gate.enterAdmitted(key, 1_000);
      void gate.settle(t, 900);
    });
    redis.disconnect();
    admin.disconnect();
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
    await server.stop();
  }
}

await main();
