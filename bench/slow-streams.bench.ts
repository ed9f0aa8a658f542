// `node dist/bench/slow-streams.bench.js` (part of `npm run bench`): thousands of concurrent
// slow streams, as coding agents hold them. The mock provider (its own process) answers every
// stream with one chunk a second, the first at once, then the usage chunk and `data: [DONE]`;
// the bench opens 2,000 and then 8,000 of them at once through each target, ramped, over raw
// sockets (slow-stream-client.ts), and checks every stream to its last byte.
//
// The gateway runs with its DEFAULT upstream settings (connectionsPerOrigin derived from
// `ulimit -n` and memory, src/lib/stream-capacity.ts; the default queue bounds): the point is
// that under the defaults no stream waits for a connection. Only the per-key request cap
// (limits.gatewayRpm) and the per-IP cap on public reads (limits.publicRpmPerIp, for the /health
// polls) are lifted, so that rate limits do not refuse the load. The run fails (exit 1) if any
// stream does not complete, if the streams were never all open at once, or if any gateway request
// waited for an upstream connection (/health `upstream.queued`, the ledger's `queue_ms`).
//
// Each target starts fresh for each count and is warmed up with fast streams first. Reported per
// target: time to first byte, the server's RSS and open descriptors before and while every
// stream is open, and its CPU (main thread + other threads, /proc/PID/task/*/stat) per stream
// opened and per chunk relayed while all are held.
//   BENCH_SLOW_STREAMS   counts, comma-separated (default 2000,8000)
//   BENCH_SLOW_TARGETS   default direct,nginx,bare-proxy,gateway (nginx is skipped when not installed); also floor
//   BENCH_SLOW_CHUNKS    content chunks per stream, one a second (default 10)
//   BENCH_SLOW_BATCH, BENCH_SLOW_GAP_MS   the ramp: streams started together, and how often (100, 100)
//   BENCH_SLOW_TLS=1     the provider over TLS, as real ones are (the tests' certificate, trusted through
//                        NODE_EXTRA_CA_CERTS); the clients still reach each target in clear; direct is skipped
//   BENCH_SLOW_BODY_KB   request body size (default 1: the chat turn of gateway.bench; an agent's turn is 50-500)
//   BENCH_SLOW_NODE_ARGS Node flags for the gateway (`--cpu-prof --cpu-prof-dir=/tmp/prof`)
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { Behavior } from '../test/support/mock-provider.js';
import { plainPort, startChild, stopAllChildren, type ChildServer } from './child-server.js';
import { threadTicks, TICK_US, type Ticks } from './cpu-time.js';
import { startGateway } from './gateway-target.js';
import { nginxBinary, startNginx } from './nginx-target.js';
import { CHAT_PATH, requestHeaders, STREAM_BODY } from './payloads.js';
import { runRamp, type RampResult } from './slow-load.js';
import { streamRequest } from './slow-stream-client.js';
import { percentile } from './stats.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const sibling = (file: string): string => fileURLToPath(new URL(file, import.meta.url));

const COUNTS = (process.env.BENCH_SLOW_STREAMS ?? '2000,8000').split(',').map(Number);
const TARGETS = (process.env.BENCH_SLOW_TARGETS ?? 'direct,nginx,bare-proxy,gateway').split(',');
const CHUNKS = Number(process.env.BENCH_SLOW_CHUNKS ?? 10);
const BATCH = Number(process.env.BENCH_SLOW_BATCH ?? 100);
const GAP_MS = Number(process.env.BENCH_SLOW_GAP_MS ?? 100);
const BODY_KB = Number(process.env.BENCH_SLOW_BODY_KB ?? 1);
const TLS = process.env.BENCH_SLOW_TLS === '1';
const CA_FILE = fileURLToPath(new URL('../../test/fixtures/localhost-cert.pem', import.meta.url));
/** Every server's environment: with TLS, the mock's certificate trusted. */
const CHILD_ENV: NodeJS.ProcessEnv = TLS ? { ...process.env, NODE_EXTRA_CA_CERTS: CA_FILE } : process.env;
const INTERVAL_MS = 1000;
/** Content chunks, the usage chunk and [DONE]. */
const EVENTS = CHUNKS + 2;
const SLOW: Behavior = { kind: 'stream', chunks: CHUNKS, intervalMs: INTERVAL_MS };
const FAST: Behavior = { kind: 'stream', chunks: CHUNKS };
const WARMUP_STREAMS = 1000;
const WARMUP_CONCURRENCY = 10;

const log = (msg: string): void => console.error(`[slow-streams] ${msg}`);

interface Target {
  name: string;
  port: number;
  headers: Record<string, string>;
  /** The process measured; null for the mock itself. */
  pid: number | null;
  /** The gateway's ledger, to read queue_ms from. */
  dbPath?: string;
  stop(): Promise<void>;
}

interface Sample {
  rssKiB: number;
  fds: number;
  ticks: Ticks;
}

interface Measured {
  target: string;
  streams: number;
  ramp: RampResult;
  before: Sample | null;
  allOpen: Sample | null;
  peakHeldRssKiB: number;
  firstEnd: Ticks | null;
  end: Ticks | null;
  gateway: GatewayQueue | null;
}

interface GatewayQueue {
  connectionsPerOrigin: number;
  maxQueued: number;
  maxBusy: number;
  polls: number;
  ledgerRows: number;
  maxQueueMs: number;
  waitedRows: number;
  ledgerTtfb: Float64Array;
}

function sample(pid: number): Sample {
  const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return { rssKiB, fds: readdirSync(`/proc/${pid}/fd`).length, ticks: threadTicks(pid) ?? { main: 0, other: 0 } };
}

async function setMockDefault(mock: ChildServer, behavior: Behavior): Promise<void> {
  const ack = mock.waitForLine((line) => line.includes('"default"'), 5000);
  mock.send({ default: behavior });
  await ack;
}

async function startTarget(name: string, mock: ChildServer, tmp: string, streams: number): Promise<Target> {
  const child = (c: ChildServer, headers = requestHeaders(), dbPath?: string): Target =>
    ({ name, port: c.port, headers, pid: c.pid, dbPath, stop: () => c.stop() });
  const upstream = `${TLS ? 'https' : 'http'}://127.0.0.1:${mock.port}`;
  const proxy = (file: string): Promise<ChildServer> =>
    startChild(name, { args: [sibling(file), upstream, String(streams + 1024)], portFrom: plainPort, env: CHILD_ENV });
  switch (name) {
    case 'direct':
      return { name, port: mock.port, headers: requestHeaders(), pid: null, stop: async () => {} };
    case 'nginx':
      // Each proxied stream holds two connections in the one worker.
      return child(await startNginx(join(tmp, 'nginx'), upstream, 2 * streams + 3000));
    case 'bare-proxy':
      return child(await proxy('./bare-proxy.js'));
    case 'floor':
      return child(await proxy('./floor-proxy.js'));
    case 'gateway': {
      const dir = join(tmp, `gateway-${streams}`);
      mkdirSync(dir, { recursive: true });
      const nodeArgs = process.env.BENCH_SLOW_NODE_ARGS?.split(' ').filter((a) => a !== '');
      const g = await startGateway(ROOT, dir, `${upstream}/v1`, { limits: { publicRpmPerIp: 1_000_000 }, nodeArgs, env: CHILD_ENV });
      return child(g.server, requestHeaders(g.apiKey), g.dbPath);
    }
    default:
      throw new Error(`unknown target ${name}`);
  }
}

interface Health {
  upstream: { connections_per_origin: number; open: number; busy: number; queued: number };
}

async function health(port: number): Promise<Health> {
  const res = await fetch(`http://127.0.0.1:${port}/health`);
  if (res.status !== 200) throw new Error(`/health answered ${res.status}`);
  return (await res.json()) as Health;
}

function ledgerMark(dbPath: string): number {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT COALESCE(MAX(rowid), 0) AS m FROM usage').get() as { m: number }).m;
  } finally {
    db.close();
  }
}

/** The run's ledger rows (after `mark`), once the writer has committed `expected` of them. */
async function ledgerQueue(dbPath: string, mark: number, expected: number): Promise<LedgerFigures> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const db = new Database(dbPath, { readonly: true, fileMustExist: true });
    try {
      const r = db.prepare('SELECT COUNT(*) AS rows, MAX(queue_ms) AS maxQueueMs, SUM(queue_ms > 0) AS waited FROM usage WHERE rowid > ?')
        .get(mark) as { rows: number; maxQueueMs: number | null; waited: number | null };
      if (r.rows >= expected || Date.now() > deadline) {
        // The gateway's own time to first byte: from the attempt's start to the provider's first chunk.
        const ttfb = Float64Array.from((db.prepare('SELECT ttfb_ms AS t FROM usage WHERE rowid > ? AND ttfb_ms IS NOT NULL')
          .all(mark) as { t: number }[]).map((x) => x.t)).sort();
        return { rows: r.rows, maxQueueMs: r.maxQueueMs ?? 0, waited: r.waited ?? 0, ttfb };
      }
    } finally {
      db.close();
    }
    await new Promise((res) => setTimeout(res, 200));
  }
}

interface LedgerFigures {
  rows: number;
  maxQueueMs: number;
  waited: number;
  ttfb: Float64Array;
}

/** The streamed chat turn, padded to `kb` KiB with conversation as an agent resends it every turn. */
function streamBody(kb: number): string {
  if (kb <= 1) return STREAM_BODY;
  const body = JSON.parse(STREAM_BODY) as { messages: { role: string; content: string }[] };
  const turn = 'The tool returned these lines of the file, which the next answer must take into account. ';
  const pad = kb * 1024 - STREAM_BODY.length;
  body.messages.splice(1, 0, { role: 'user', content: turn.repeat(Math.ceil(pad / turn.length)).slice(0, pad) });
  return JSON.stringify(body);
}

async function measure(t: Target, mock: ChildServer, streams: number): Promise<Measured> {
  const request = streamRequest(t.port, CHAT_PATH, t.headers, streamBody(BODY_KB));
  const timeoutMs = (CHUNKS + 2) * INTERVAL_MS + 60_000;

  // Warm-up: fast streams through the same path, so JIT, buffers and pools reach their working size.
  // Few at a time, so that few idle upstream sockets are left for the measured streams to reuse
  // (each would hide a descriptor and a socket's memory from the per-stream figures).
  await setMockDefault(mock, FAST);
  const warm = await runRamp({ port: t.port, request, streams: WARMUP_STREAMS, batch: WARMUP_CONCURRENCY, gapMs: 1,
    maxOpening: WARMUP_CONCURRENCY, events: EVENTS, timeoutMs });
  if (warm.failures > 0) throw new Error(`warm-up failed: ${[...warm.reasons.keys()][0]}`);
  await setMockDefault(mock, SLOW);
  await new Promise((r) => setTimeout(r, 500));

  const pid = t.pid;
  const mark = t.dbPath === undefined ? 0 : ledgerMark(t.dbPath);
  const queue: GatewayQueue | null = t.dbPath === undefined ? null
    : { connectionsPerOrigin: (await health(t.port)).upstream.connections_per_origin, maxQueued: 0, maxBusy: 0, polls: 0, ledgerRows: 0, maxQueueMs: 0, waitedRows: 0,
      ledgerTtfb: new Float64Array(0) };
  const before = pid === null ? null : sample(pid);
  let allOpen: Sample | null = null;
  let firstEnd: Ticks | null = null;
  let holding = false;
  let peak = 0;

  // While the streams run: the server's RSS every 250 ms (its peak while all are held), and the
  // gateway's upstream pool every 500 ms.
  const rssTimer = pid === null ? null : setInterval(() => {
    if (!holding) return;
    const kib = sample(pid).rssKiB;
    if (kib > peak) peak = kib;
  }, 250);
  let polling = queue !== null;
  const poller = (async () => {
    while (polling && queue !== null) {
      try {
        const h = await health(t.port);
        queue.polls++;
        queue.maxQueued = Math.max(queue.maxQueued, h.upstream.queued);
        queue.maxBusy = Math.max(queue.maxBusy, h.upstream.busy);
      } catch (e) {
        log(`/health: ${(e as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  })();

  let ramp: RampResult;
  try {
    ramp = await runRamp({
      port: t.port, request, streams, batch: BATCH, gapMs: GAP_MS, maxOpening: BATCH * 5, events: EVENTS, timeoutMs,
      allOpen: () => {
        if (pid !== null) {
          allOpen = sample(pid);
          peak = allOpen.rssKiB;
          // With BENCH_SLOW_NODE_ARGS="--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=DIR": what every held stream keeps.
          if (process.env.BENCH_SLOW_SNAPSHOT && t.dbPath !== undefined) process.kill(pid, 'SIGUSR2');
        }
        holding = true;
      },
      firstEnded: () => {
        holding = false;
        if (pid !== null) firstEnd = threadTicks(pid);
      },
    });
  } finally {
    if (rssTimer !== null) clearInterval(rssTimer);
    polling = false;
    await poller;
  }
  const end = pid === null ? null : threadTicks(pid);
  if (queue !== null && t.dbPath !== undefined) {
    const l = await ledgerQueue(t.dbPath, mark, streams);
    queue.ledgerRows = l.rows;
    queue.maxQueueMs = l.maxQueueMs;
    queue.waitedRows = l.waited;
    queue.ledgerTtfb = l.ttfb;
  }
  return { target: t.name, streams, ramp, before, allOpen, peakHeldRssKiB: peak, firstEnd, end, gateway: queue };
}

const f1 = (v: number): string => (Number.isFinite(v) ? v.toFixed(1) : '-');
const f2 = (v: number): string => (Number.isFinite(v) ? v.toFixed(2) : '-');
const us = (ticks: number, per: number): number => (ticks * TICK_US) / Math.max(1, per);

function row(m: Measured): string[] {
  const r = m.ramp;
  const b = m.before;
  const a = m.allOpen as Sample | null;
  const cpu = (from: Ticks | null, to: Ticks | null, per: number): string =>
    from === null || to === null ? '-' : `${f1(us(to.main - from.main, per))} + ${f1(us(to.other - from.other, per))}`;
  return [
    m.target,
    `${r.completed}/${m.streams}`,
    `${r.peakOpen}`,
    `${Math.round(r.rampMs)}`,
    f1(r.allOpenMs),
    f2(percentile(r.ttfb, 50)),
    f2(percentile(r.ttfb, 99)),
    f2(r.ttfb.length > 0 ? r.ttfb[r.ttfb.length - 1] : NaN),
    b === null || a === null ? '-' : `${f1(b.rssKiB / 1024)} → ${f1(a.rssKiB / 1024)} (${f1(m.peakHeldRssKiB / 1024)})`,
    b === null || a === null ? '-' : `${f1((a.rssKiB - b.rssKiB) / m.streams)} (${f1((m.peakHeldRssKiB - b.rssKiB) / m.streams)})`,
    b === null || a === null ? '-' : `${b.fds} → ${a.fds}: ${f2((a.fds - b.fds) / m.streams)}`,
    cpu(b?.ticks ?? null, a?.ticks ?? null, m.streams),
    cpu(a?.ticks ?? null, m.firstEnd, r.heldEvents),
    cpu(b?.ticks ?? null, m.end, m.streams),
  ];
}

const HEAD = ['target', 'complete', 'peak open', 'ramp ms', 'all open ms', 'TTFB p50', 'p99', 'max',
  'RSS MiB before → all open (peak held)', 'KiB/stream (peak)', 'fds before → open: per stream',
  'CPU µs/stream opening', 'µs/chunk held', 'µs/stream whole run'];

function grid(head: string[], rows: string[][]): string {
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r: string[]): string => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function problems(m: Measured): string[] {
  const out: string[] = [];
  const r = m.ramp;
  if (r.failures > 0) for (const [why, n] of r.reasons) out.push(`${m.target}, ${m.streams} streams: ${n} failed: ${why}`);
  if (r.peakOpen < m.streams) {
    out.push(`${m.target}, ${m.streams} streams: only ${r.peakOpen} were open at once (the first ended before the last opened: ` +
      `raise BENCH_SLOW_CHUNKS or speed the ramp)`);
  }
  const g = m.gateway;
  if (g !== null) {
    if (g.maxQueued > 0) out.push(`gateway, ${m.streams} streams: /health saw ${g.maxQueued} requests queued for an upstream connection`);
    if (g.maxQueueMs > 0) out.push(`gateway, ${m.streams} streams: ${g.waitedRows} requests waited for an upstream connection, at most ${g.maxQueueMs} ms`);
    if (g.ledgerRows < m.streams) out.push(`gateway, ${m.streams} streams: the ledger holds ${g.ledgerRows} rows for ${m.streams} requests`);
  }
  return out;
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'gw-slow-'));
  const results: Measured[] = [];
  const skipped: string[] = [];
  try {
    const mock = await startChild('mock', {
      args: [sibling('./mock-server.js'), JSON.stringify(FAST)], portFrom: plainPort, env: TLS ? { ...process.env, MOCK_TLS: '1' } : process.env,
    });
    for (const streams of COUNTS) {
      for (const name of TARGETS) {
        if (name === 'nginx' && nginxBinary() === null) {
          if (!skipped.includes(name)) skipped.push(`${name} (not installed)`);
          continue;
        }
        if (name === 'direct' && TLS) continue; // the load generator speaks plain HTTP
        log(`${name}: ${streams} streams of ${CHUNKS} chunks, one a second`);
        const t = await startTarget(name, mock, tmp, streams);
        try {
          results.push(await measure(t, mock, streams));
        } finally {
          await t.stop();
          await setMockDefault(mock, FAST);
        }
      }
    }
    print(results, skipped);
    const found = results.flatMap(problems);
    if (found.length > 0) {
      console.log(`\nFAILED:\n${found.map((p) => `  - ${p}`).join('\n')}`);
      process.exitCode = 1;
    }
  } finally {
    await stopAllChildren();
    if (process.env.BENCH_SLOW_KEEP_TMP) log(`kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}

function print(results: Measured[], skipped: string[]): void {
  console.log(`\nSlow streams: ${CHUNKS} chunks a stream, one a second (the first at once), then the usage chunk and ` +
    `[DONE]: ${EVENTS} events, ${(CHUNKS + 1) * INTERVAL_MS / 1000} s a stream; ${Math.round(Buffer.byteLength(streamBody(BODY_KB)) / 1024)} KiB ` +
    `requests; the provider ${TLS ? 'over TLS' : 'in clear'}.`);
  console.log(`Ramp: ${BATCH} streams every ${GAP_MS} ms, paused while ${BATCH * 5} wait for their first byte; each target fresh ` +
    `and warmed with ${WARMUP_STREAMS} fast streams, ${WARMUP_CONCURRENCY} at a time. Raw sockets, one connection per stream (Connection: close).`);
  console.log('Gateway: upstream settings at their defaults; limits.gatewayRpm and limits.publicRpmPerIp lifted so that rate ' +
    'limits do not refuse the load.');
  console.log(`Open-file limit of this process (inherited): ${/Max open files\s+(\S+)/.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1]}`);
  for (const streams of COUNTS) {
    const rows = results.filter((m) => m.streams === streams);
    if (rows.length === 0) continue;
    console.log(`\n${streams} concurrent streams (TTFB ms; CPU main + other threads)`);
    console.log(grid(HEAD, rows.map(row)));
    for (const m of rows) {
      const g = m.gateway;
      if (g === null) continue;
      console.log(`gateway upstream pool: connectionsPerOrigin ${g.connectionsPerOrigin} (default), at most ${g.maxBusy} busy and ` +
        `${g.maxQueued} queued over ${g.polls} /health polls; ledger: ${g.ledgerRows} rows, ${g.waitedRows} waited for a connection, ` +
        `max queue_ms ${g.maxQueueMs}; the gateway's own TTFB (ledger ttfb_ms: attempt start to the provider's first chunk) ` +
        `p50 ${f2(percentile(g.ledgerTtfb, 50))}, p99 ${f2(percentile(g.ledgerTtfb, 99))}, max ${f2(g.ledgerTtfb[g.ledgerTtfb.length - 1] ?? NaN)} ms`);
      console.log(`chunks relayed while all ${streams} were held: ${m.ramp.heldEvents} ` +
        `(from ${f1(m.ramp.allOpenMs / 1000)} s to ${f1(m.ramp.firstEndMs / 1000)} s)`);
    }
  }
  if (skipped.length > 0) console.log(`\nskipped: ${[...new Set(skipped)].join(', ')}`);
}

process.once('SIGINT', () => process.exit(130)); // the exit hook in child-server kills the children
process.once('SIGTERM', () => process.exit(143));

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
