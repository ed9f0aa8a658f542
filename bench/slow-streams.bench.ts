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
//   BENCH_SLOW_H2=0      with TLS, a provider that offers only HTTP/1.1 (default: h2 and HTTP/1.1 in ALPN, as
//                        hosted providers do, so the gateway's streams go over HTTP/2: upstream.http2)
//   BENCH_SLOW_BODY_KB   request body size (default 1: the chat turn of gateway.bench; an agent's turn is 50-500)
//   BENCH_SLOW_NODE_ARGS Node flags for the gateway (`--cpu-prof --cpu-prof-dir=/tmp/prof`)
//   BENCH_SLOW_SNAPSHOT=1 with BENCH_SLOW_NODE_ARGS="--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=DIR":
//                        a heap snapshot of the gateway once every stream is open
//   BENCH_SLOW_KEEP_TMP=1 keep the targets' folders (nginx's error log, the gateway's database)
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Behavior } from '../test/support/mock-provider.js';
import { plainPort, startChild, stopAllChildren, type ChildServer } from './child-server.js';
import { threadTicks, type Ticks } from './cpu-time.js';
import { QueueWatch } from './gateway-queue.js';
import { startGateway } from './gateway-target.js';
import { nginxBinary, startNginx } from './nginx-target.js';
import { CHAT_PATH, requestHeaders, STREAM_BODY } from './payloads.js';
import { runRamp, type RampResult } from './slow-load.js';
import { streamRequest } from './slow-stream-client.js';
import { printReport, problems, type Measured, type Sample } from './slow-streams-report.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const sibling = (file: string): string => fileURLToPath(new URL(file, import.meta.url));

const COUNTS = (process.env.BENCH_SLOW_STREAMS ?? '2000,8000').split(',').map(Number);
const TARGETS = (process.env.BENCH_SLOW_TARGETS ?? 'direct,nginx,bare-proxy,gateway').split(',');
const CHUNKS = Number(process.env.BENCH_SLOW_CHUNKS ?? 10);
const BATCH = Number(process.env.BENCH_SLOW_BATCH ?? 100);
const GAP_MS = Number(process.env.BENCH_SLOW_GAP_MS ?? 100);
const BODY_KB = Number(process.env.BENCH_SLOW_BODY_KB ?? 1);
const TLS = process.env.BENCH_SLOW_TLS === '1';
const H2 = TLS && process.env.BENCH_SLOW_H2 !== '0';
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
  const watch = t.dbPath === undefined ? null : await QueueWatch.start(t.port, t.dbPath, log);
  const before = pid === null ? null : sample(pid);
  let allOpen: Sample | null = null;
  let firstEnd: Ticks | null = null;
  let holding = false;
  let peak = 0;

  // While every stream is held, the server's RSS every 250 ms, for its peak.
  const rssTimer = pid === null ? null : setInterval(() => {
    if (!holding) return;
    const kib = sample(pid).rssKiB;
    if (kib > peak) peak = kib;
  }, 250);

  let ramp: RampResult;
  try {
    ramp = await runRamp({
      port: t.port, request, streams, batch: BATCH, gapMs: GAP_MS, maxOpening: BATCH * 5, events: EVENTS, timeoutMs,
      allOpen: () => {
        if (pid !== null) {
          allOpen = sample(pid);
          peak = allOpen.rssKiB;
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
  }
  const end = pid === null ? null : threadTicks(pid);
  const gateway = watch === null ? null : await watch.stop(streams);
  return { target: t.name, streams, ramp, before, allOpen, peakHeldRssKiB: peak, firstEnd, end, gateway };
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'gw-slow-'));
  const results: Measured[] = [];
  const skipped: string[] = [];
  try {
    const mock = await startChild('mock', {
      args: [sibling('./mock-server.js'), JSON.stringify(FAST)], portFrom: plainPort, env: TLS ? { ...process.env, MOCK_TLS: '1', MOCK_H2: H2 ? '1' : '0' } : process.env,
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
    printReport(header(), COUNTS, results, skipped);
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

function header(): string[] {
  const kib = Math.round(Buffer.byteLength(streamBody(BODY_KB)) / 1024);
  return [
    `Slow streams: ${CHUNKS} chunks a stream, one a second (the first at once), then the usage chunk and [DONE]: ${EVENTS} events, ` +
      `${(CHUNKS + 1) * INTERVAL_MS / 1000} s a stream; ${kib} KiB requests; the provider ${TLS ? `over TLS${H2 ? ', offering h2' : ', HTTP/1.1 only'}` : 'in clear'}.`,
    `Ramp: ${BATCH} streams every ${GAP_MS} ms, paused while ${BATCH * 5} wait for their first byte; each target fresh and warmed ` +
      `with ${WARMUP_STREAMS} fast streams, ${WARMUP_CONCURRENCY} at a time. Raw sockets, one connection per stream (Connection: close).`,
    'Gateway: upstream settings at their defaults; limits.gatewayRpm and limits.publicRpmPerIp lifted so that rate limits do not ' +
      'refuse the load.',
    `Open-file limit (inherited by every server): ${/Max open files\s+(\S+)/.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1]}`,
  ];
}

process.once('SIGINT', () => process.exit(130)); // the exit hook in child-server kills the children
process.once('SIGTERM', () => process.exit(143));

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
