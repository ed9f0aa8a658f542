// `node dist/bench/h2-upstream.bench.js`: would HTTP/2 to providers serve held streams better than
// the gateway's HTTP/1.1 pool? A standalone prototype, not the gateway: a client process
// (h2-client.ts) holds N slow streams to a provider process (h2-mock.ts) with either
//   h1  the gateway's own pool (src/upstream/origin-pool.ts), one keep-alive socket per stream, or
//   h2  node:http2, the streams multiplexed over sessions of BENCH_H2_MAX_STREAMS (default 100)
// in clear (h2c) and over TLS (what a provider is), and reports the client's RSS and descriptors
// per held stream, its CPU per stream opened and per chunk received while all are held, and its
// CPU per short request (a non-streamed answer) at 50 concurrent requests afterwards.
//   BENCH_H2_STREAMS       counts (default 2000,8000)
//   BENCH_H2_TRANSPORTS    clear,tls (default both)
//   BENCH_H2_PROTOCOLS     h1,h2 (default both)
//   BENCH_H2_RAMP          streams opened together and ms between batches (default 100,100: 1,000 a second;
//                          at 5,000 a second one Node TLS server reset 533 of 8,000 connections)
//   BENCH_H2_CHUNKS        chunks a stream, one a second (default 45)
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { plainPort, startChild, stopAllChildren } from './child-server.js';
import type { ClientOptions, ClientResult, Usage } from './h2-client.js';

const sibling = (file: string): string => fileURLToPath(new URL(file, import.meta.url));
const COUNTS = (process.env.BENCH_H2_STREAMS ?? '2000,8000').split(',').map(Number);
const TRANSPORTS = (process.env.BENCH_H2_TRANSPORTS ?? 'clear,tls').split(',');
// Long enough for 8,000 TLS connections to open before the first stream ends: 31.9 s here over
// HTTP/1.1 (a handshake each, ~1 ms of the client's CPU and more of the server's).
const CHUNKS = Number(process.env.BENCH_H2_CHUNKS ?? 45);
const [RAMP_BATCH, RAMP_GAP_MS] = (process.env.BENCH_H2_RAMP ?? '100,100').split(',').map(Number);
const PROTOCOLS = (process.env.BENCH_H2_PROTOCOLS ?? 'h1,h2').split(',') as ('h1' | 'h2')[];
const MAX_STREAMS = Number(process.env.BENCH_H2_MAX_STREAMS ?? 100);
const SHORT_REQUESTS = 20_000;
const CONCURRENCY = 50;

const log = (msg: string): void => console.error(`[h2-upstream] ${msg}`);

interface Run {
  protocol: 'h1' | 'h2';
  tls: boolean;
  r: ClientResult;
}

function runClient(o: ClientOptions): Promise<ClientResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', sibling('./h2-client.js'), JSON.stringify(o)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.once('exit', () => {
      const line = out.trim().split('\n').pop() ?? '';
      try {
        const r = JSON.parse(line) as ClientResult & { error?: string };
        if (r.error !== undefined) reject(new Error(r.error));
        else resolve(r);
      } catch {
        reject(new Error(`client printed no result: ${out.slice(0, 300)}`));
      }
    });
  });
}

async function measure(protocol: 'h1' | 'h2', tls: boolean, streams: number): Promise<Run> {
  const mock = await startChild(`mock-${protocol}`, {
    args: [sibling('./h2-mock.js'), JSON.stringify({ protocol, tls, chunks: CHUNKS, maxStreams: MAX_STREAMS })], portFrom: plainPort,
  });
  try {
    const r = await runClient({
      protocol, tls, port: mock.port, streams, events: CHUNKS + 2, maxStreams: MAX_STREAMS, shortRequests: SHORT_REQUESTS, concurrency: CONCURRENCY,
      batch: RAMP_BATCH, gapMs: RAMP_GAP_MS,
    });
    return { protocol, tls, r };
  } finally {
    await mock.stop();
  }
}

const f1 = (v: number): string => (Number.isFinite(v) ? v.toFixed(1) : '-');
const f2 = (v: number): string => (Number.isFinite(v) ? v.toFixed(2) : '-');
const kib = (a: number, b: number, n: number): string => f1((a - b) / 1024 / n);
const mem = (u: Usage): number => u.heap + u.external;

function row(x: Run): string[] {
  const r = x.r;
  const n = r.streams;
  return [
    `${x.protocol} ${x.tls ? 'tls' : 'clear'}`,
    `${n - r.failures}/${n}`,
    `${r.peakOpen}`,
    `${r.connections}`,
    `${Math.round(r.openMs)}`,
    kib(r.allOpen.rss, r.before.rss, n),
    kib(r.allOpenGc.rss, r.before.rss, n),
    kib(mem(r.allOpenGc), mem(r.before), n),
    f2((r.allOpen.fds - r.before.fds) / n),
    f1(r.openCpuUs / n),
    f2(r.heldCpuUs / Math.max(1, r.heldEvents)),
    `${r.heldEvents}`,
    f1(r.shortCpuUs / Math.max(1, r.shortDone)),
    `${Math.round(r.shortDone / (r.shortMs / 1000))}`,
  ];
}

const HEAD = ['client', 'complete', 'peak open', 'connections', 'open ms', 'RSS KiB/stream', 'after GC', 'JS heap+external after GC', 'fds/stream',
  'CPU µs/stream opened', 'µs/chunk held', 'chunks held', 'µs/short request', 'short req/s'];

function grid(head: string[], rows: string[][]): string {
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r: string[]): string => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const runs: Run[] = [];
  try {
    for (const streams of COUNTS) {
      for (const transport of TRANSPORTS) {
        for (const protocol of PROTOCOLS) {
          log(`${protocol} ${transport}: ${streams} streams`);
          runs.push(await measure(protocol, transport === 'tls', streams));
        }
      }
    }
  } finally {
    await stopAllChildren();
  }
  console.log(`\nUpstream side only: ${CHUNKS} chunks a stream, one a second, then usage and [DONE]; h2 sessions carry at most ` +
    `${MAX_STREAMS} streams; opened ${RAMP_BATCH} every ${RAMP_GAP_MS} ms; short requests: ${SHORT_REQUESTS} at ${CONCURRENCY} ` +
    'concurrent after the streams. CPU is the client process\'s, all threads.');
  for (const streams of COUNTS) {
    console.log(`\n${streams} held streams`);
    console.log(grid(HEAD, runs.filter((x) => x.r.streams === streams).map(row)));
  }
  const failed = runs.filter((x) => x.r.failures > 0 || x.r.peakOpen < x.r.streams);
  for (const x of failed) {
    console.log(`FAILED ${x.protocol} ${x.tls ? 'tls' : 'clear'} ${x.r.streams}: ${x.r.failures} streams failed (first: ${x.r.firstFailure}), ` +
      `${x.r.peakOpen} open at once (raise BENCH_H2_CHUNKS if the first ended before the last opened)`);
  }
  if (failed.length > 0) process.exitCode = 1;
}

process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
