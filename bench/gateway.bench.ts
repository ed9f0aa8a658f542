// `npm run bench`: the gateway against the mock provider called directly and against three
// proxies that do none of its work: a bare node:http + undici pass-through (the baseline the
// targets name), the floor (uWebSockets.js and the gateway's own upstream pool, no logic) and
// nginx (when installed). Every server runs in its own process, the load generator in this one.
// BENCH_DURATION_S shortens the load runs for a quick check (default 8 s); BENCH_TARGETS picks
// targets by name (comma list).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Behavior } from '../test/support/mock-provider.js';
import { plainPort, startChild, stopAllChildren, type ChildServer } from './child-server.js';
import { startGateway } from './gateway-target.js';
import { startNginx } from './nginx-target.js';
import { CpuProbe } from './cpu-time.js';
import { measureOneConnection } from './one-connection.js';
import { CHAT_BODY, CHAT_PATH, requestHeaders, STREAM_BODY, STREAM_CHUNKS } from './payloads.js';
import { printReport, type TargetResult } from './report.js';
import { measureStreams } from './streams.js';
import { measureThroughput } from './throughput.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const sibling = (file: string): string => fileURLToPath(new URL(file, import.meta.url));

const SETTINGS = Object.freeze({
  connections: 50,
  durationS: Number(process.env.BENCH_DURATION_S ?? 8),
  warmupS: 1,
  oneConnectionRequests: 3000,
  oneConnectionWarmupMs: 1000,
  streamConcurrency: 10,
  streams: 200,
  streamWarmupMs: 1000,
});

interface Started {
  origin: string;
  headers: Record<string, string>;
  /** The process whose memory is reported; null when it is the mock itself. */
  server: ChildServer | null;
}

interface Target {
  name: string;
  start(): Promise<Started>;
}

const log = (msg: string): void => console.error(`[bench] ${msg}`);

async function setMockDefault(mock: ChildServer, behavior: Behavior): Promise<void> {
  const ack = mock.waitForLine((line) => line.includes('"default"'), 5000);
  mock.send({ default: behavior });
  await ack;
}

// One request before the load: a target that answers 401 or 404 would otherwise produce a
// splendid and meaningless req/s figure.
async function preflight(t: Started): Promise<void> {
  const res = await fetch(t.origin + CHAT_PATH, { method: 'POST', headers: t.headers, body: CHAT_BODY });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`preflight got ${res.status}: ${text.slice(0, 300)}`);
}

async function measure(name: string, t: Started, mock: ChildServer): Promise<TargetResult> {
  await preflight(t);
  log(`${name}: ${SETTINGS.connections} connections for ${SETTINGS.durationS}s (+${SETTINGS.warmupS}s warm-up)`);
  const throughput = await measureThroughput({
    url: t.origin + CHAT_PATH, headers: t.headers, body: CHAT_BODY,
    connections: SETTINGS.connections, durationS: SETTINGS.durationS, warmupS: SETTINGS.warmupS,
    cpu: new CpuProbe(t.server?.pid ?? null, mock.pid),
  });
  log(`${name}: one connection, ${SETTINGS.oneConnectionRequests} sequential requests`);
  const oneConnection = await measureOneConnection({
    origin: t.origin, path: CHAT_PATH, headers: t.headers, body: CHAT_BODY,
    requests: SETTINGS.oneConnectionRequests, warmupMs: SETTINGS.oneConnectionWarmupMs,
  });
  log(`${name}: ${SETTINGS.streams} streams of ${STREAM_CHUNKS} chunks, ${SETTINGS.streamConcurrency} at a time`);
  await setMockDefault(mock, { kind: 'stream', chunks: STREAM_CHUNKS });
  try {
    const streams = await measureStreams({
      origin: t.origin, path: CHAT_PATH, headers: t.headers, body: STREAM_BODY,
      concurrency: SETTINGS.streamConcurrency, streams: SETTINGS.streams, warmupMs: SETTINGS.streamWarmupMs,
    });
    const rssMiB = (t.server ?? mock).rssMiB();
    return { name, skipped: null, throughput, oneConnection, streams, rssMiB };
  } finally {
    await setMockDefault(mock, { kind: 'ok' });
  }
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'gw-bench-'));
  const results: TargetResult[] = [];
  try {
    const mock = await startChild('mock', { args: [sibling('./mock-server.js'), '{"kind":"ok"}'], portFrom: plainPort });
    const targets: Target[] = [
      { name: 'direct', start: async () => ({ origin: mock.origin, headers: requestHeaders(), server: null }) },
      {
        name: 'bare-proxy',
        start: async () => {
          const server = await startChild('bare-proxy', { args: [sibling('./bare-proxy.js'), mock.origin], portFrom: plainPort });
          return { origin: server.origin, headers: requestHeaders(), server };
        },
      },
      {
        name: 'floor',
        start: async () => {
          const server = await startChild('floor', { args: [sibling('./floor-proxy.js'), mock.origin], portFrom: plainPort });
          return { origin: server.origin, headers: requestHeaders(), server };
        },
      },
      {
        name: 'nginx',
        start: async () => {
          const server = await startNginx(join(tmp, 'nginx'), mock.origin);
          return { origin: server.origin, headers: requestHeaders(), server };
        },
      },
      {
        name: 'gateway',
        start: async () => {
          const g = await startGateway(ROOT, tmp, `${mock.origin}/v1`);
          return { origin: g.server.origin, headers: requestHeaders(g.apiKey), server: g.server };
        },
      },
    ];

    const chosen = process.env.BENCH_TARGETS?.split(',');
    // Targets run one after another and each proxy is stopped before the next starts, so no
    // idle process competes for the machine's cores.
    for (const target of targets) {
      if (chosen && !chosen.includes(target.name)) continue;
      let started: Started;
      try {
        started = await target.start();
      } catch (err) {
        const reason = `did not start: ${(err as Error).message}`;
        log(`SKIP ${target.name} ${reason}`);
        results.push({ name: target.name, skipped: reason });
        continue;
      }
      try {
        results.push(await measure(target.name, started, mock));
      } catch (err) {
        const reason = `failed: ${(err as Error).message}`;
        log(`SKIP ${target.name} ${reason}`);
        results.push({ name: target.name, skipped: reason });
      } finally {
        await started.server?.stop();
      }
    }
    printReport(results);
  } finally {
    await stopAllChildren();
    rmSync(tmp, { recursive: true, force: true });
  }
}

process.once('SIGINT', () => process.exit(130)); // the exit hook in child-server kills the children
process.once('SIGTERM', () => process.exit(143));

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
