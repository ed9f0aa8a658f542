// `npm run bench`, the multi-instance part (issue 19): the gateway on one box (SQLite, limits in
// process) against three instances on one PostgreSQL and one Redis (GW_STORE, GW_REDIS), with
// local leases (the default) and without (a Redis round trip in series with every request), all
// on this machine, the same mock provider behind both. Reports, in interleaved rounds:
// - one connection, one request at a time: p50 and p99 latency, and what shared limits add;
// - 48 connections (16 per instance for the three): throughput, the gateways' CPU per request
//   (summed over the instances), and what PostgreSQL and Redis spend per request.
// On a 2-core machine three instances, PostgreSQL, Redis, the mock and the load generator share
// the cores: throughput here says what one box of this size does, not what three boxes do.
//   BENCH_ROUNDS (default 2), BENCH_DURATION_S (default 5)
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { startPostgres } from '../test/support/postgres-server.js';
import { startRedis } from '../test/support/redis-server.js';
import { plainPort, startChild, stopAllChildren, type ChildServer } from './child-server.js';
import { threadTicks, TICK_US } from './cpu-time.js';
import { startGateway } from './gateway-target.js';
import { measureOneConnection } from './one-connection.js';
import { CHAT_BODY, CHAT_PATH, requestHeaders } from './payloads.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const sibling = (file: string): string => fileURLToPath(new URL(file, import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const CONNECTIONS = 48;
const log = (msg: string): void => console.error(`[bench:cluster] ${msg}`);

/** CPU ticks of every process named `comm` (PostgreSQL's postmaster and backends). */
function ticksOf(comm: string): number {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== comm) continue;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += Number(f[11]) + Number(f[12]);
    } catch { /* gone */ }
  }
  return total;
}

async function redisCpuUs(url: string): Promise<number> {
  const r = new Redis(url);
  const info = await r.info('cpu');
  r.disconnect();
  const f = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)![1]);
  return (f('used_cpu_user') + f('used_cpu_sys')) * 1e6;
}

interface Load { rps: number; gatewayUs: number; postgresUs: number; redisUs: number; non2xx: number }

/** `CONNECTIONS` connections split over the origins, as fast as they answer; CPU per request around the timed run. */
async function load(origins: string[], key: string, gatewayPids: number[], redisUrl: string | null): Promise<Load> {
  const each = (duration: number) => origins.map((origin) => autocannon({
    url: origin + CHAT_PATH, method: 'POST', headers: requestHeaders(key), body: CHAT_BODY,
    connections: CONNECTIONS / origins.length, duration, timeout: 10,
  }));
  await Promise.all(each(1));
  const g0 = gatewayPids.map((p) => threadTicks(p)!);
  const pg0 = ticksOf('postgres');
  const r0 = redisUrl ? await redisCpuUs(redisUrl) : 0;
  const results = await Promise.all(each(DURATION_S));
  const requests = results.reduce((n, r) => n + r.requests.total!, 0);
  const g1 = gatewayPids.map((p) => threadTicks(p)!);
  const gatewayTicks = g1.reduce((n, t, i) => n + t.main + t.other - g0[i].main - g0[i].other, 0);
  const per = (us: number) => us / Math.max(1, requests);
  return {
    rps: requests / DURATION_S,
    gatewayUs: per(gatewayTicks * TICK_US),
    postgresUs: per((ticksOf('postgres') - pg0) * TICK_US),
    redisUs: redisUrl ? per((await redisCpuUs(redisUrl)) - r0) : 0,
    non2xx: results.reduce((n, r) => n + r.non2xx, 0),
  };
}

/** Three instances; `leases` false turns local leases off (redis.leaseSlots 0): a Redis round trip per request. */
async function cluster(tmp: string, mockUrl: string, pgUrl: string, redisUrl: string, leases: boolean): Promise<{ servers: ChildServer[]; key: string }> {
  const env = { ...process.env, GW_STORE: pgUrl, GW_REDIS: redisUrl, GW_MASTER_KEY: randomBytes(32).toString('hex') };
  const servers: ChildServer[] = [];
  for (let i = 0; i < 3; i++) {
    const name = `${leases ? 'leased' : 'exact'}-${i}`;
    const dir = join(tmp, name);
    const configPath = join(tmp, `${name}.json`);
    writeFileSync(configPath, JSON.stringify({
      host: '127.0.0.1', port: 0, dbPath: join(dir, 'gw.db'),
      providers: { openai: { baseUrl: mockUrl, apiKey: 'sk-bench' } }, limits: { gatewayRpm: 100_000_000 },
      ...(leases ? {} : { redis: { leaseSlots: 0 } }),
    }));
    servers.push(await startChild(`gateway-${name}`, {
      args: ['dist/src/main.js', 'serve', '--config', configPath], cwd: ROOT, env,
      portFrom: (l) => (l.includes('"msg":"listening"') ? Number(/"port":(\d+)/.exec(l)?.[1]) : undefined), timeoutMs: 30_000,
    }));
  }
  const cli = async (args: string[]) => JSON.parse((await run(process.execPath, ['dist/src/main.js', '--config', join(tmp, `${leases ? 'leased' : 'exact'}-0.json`), '--json', ...args],
    { cwd: ROOT, env })).stdout.trim().split('\n').pop()!);
  const org = (await cli(['org', 'create', `bench-${leases ? 'leased' : 'exact'}`, '--credit', '100000'])).id;
  const key = (await cli(['key', 'create', '--org', org, '--name', 'bench'])).key;
  return { servers, key };
}

const fmt = (n: number, d = 0) => n.toFixed(d);

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'gw-bench-cluster-'));
  const [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  try {
    const mock = await startChild('mock', { args: [sibling('./mock-server.js'), '{"kind":"ok"}'], portFrom: plainPort });
    const single = await startGateway(ROOT, tmp, `${mock.origin}/v1`);
    const leased = await cluster(tmp, `${mock.origin}/v1`, pg.url, redis.url, true);
    const exact = await cluster(tmp, `${mock.origin}/v1`, pg.url, redis.url, false);
    log(`single box on ${single.server.origin}; three instances with leases on ${leased.servers.map((s) => s.origin).join(', ')}, without on ${exact.servers.map((s) => s.origin).join(', ')}`);
    const SINGLE = 'single box (SQLite)';
    const LEASED = '3 instances, local leases (default)';
    const EXACT = '3 instances, a Redis round trip per request (leaseSlots 0)';
    const rows: { target: string; p50: number; p99: number; load: Load }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const target of [SINGLE, LEASED, EXACT]) {
        const isSingle = target === SINGLE;
        const shared = target === LEASED ? leased : exact;
        const origins = isSingle ? [single.server.origin] : shared.servers.map((s) => s.origin);
        const key = isSingle ? single.apiKey : shared.key;
        log(`round ${round}: ${target}`);
        const one = await measureOneConnection({ origin: origins[0], path: CHAT_PATH, headers: requestHeaders(key), body: CHAT_BODY, requests: 2_000, warmupMs: 500 });
        const l = await load(origins, key, isSingle ? [single.server.pid] : shared.servers.map((s) => s.pid), isSingle ? null : redis.url);
        if (one.failures > 0 || l.non2xx > 0) throw new Error(`${target}: ${one.failures} of the one-connection requests and ${l.non2xx} under load were not 200`);
        rows.push({ target, p50: one.latency.p50, p99: one.latency.p99, load: l });
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log('\n## Multi-instance (issue 19): one box against three instances on PostgreSQL + Redis\n');
    console.log(`${ROUNDS} interleaved rounds, medians; one connection: 2,000 requests of the 1 KB chat body; load: ${CONNECTIONS} connections for ${DURATION_S} s.\n`);
    console.log('| target | one-connection p50 | p99 | throughput | gateway CPU / request | PostgreSQL CPU / request | Redis CPU / request | non-2xx |');
    console.log('|---|---|---|---|---|---|---|---|');
    const summary: Record<string, { p50: number; cpu: number }> = {};
    for (const target of [...new Set(rows.map((r) => r.target))]) {
      const rs = rows.filter((r) => r.target === target);
      const m = (f: (r: typeof rs[number]) => number) => median(rs.map(f));
      summary[target] = { p50: m((r) => r.p50), cpu: m((r) => r.load.gatewayUs) };
      console.log(`| ${target} | ${fmt(m((r) => r.p50), 3)} ms | ${fmt(m((r) => r.p99), 3)} ms | ${fmt(m((r) => r.load.rps))} req/s | ${fmt(m((r) => r.load.gatewayUs))} µs | `
        + `${fmt(m((r) => r.load.postgresUs))} µs | ${fmt(m((r) => r.load.redisUs))} µs | ${rs.reduce((n, r) => n + r.load.non2xx, 0)} |`);
    }
    const a = summary[SINGLE];
    for (const t of [LEASED, EXACT]) {
      const b = summary[t];
      console.log(`\n${t}: adds ${fmt((b.p50 - a.p50) * 1000)} µs at p50 on one connection and ${fmt(b.cpu - a.cpu)} µs of gateway CPU per request (three processes summed) to the single box.`);
    }
  } finally {
    await stopAllChildren();
    await redis.stop();
    pg.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
