// Child-process entry for bench/h2-upstream.bench.ts: holds N slow streams to a provider (h2-mock.ts)
// the way the gateway's upstream side would, with one of two clients, and measures itself:
//   h1  the gateway's own HTTP/1.1 pool (src/upstream/origin-pool.ts): one socket per stream
//   h2  node:http2: streams multiplexed over sessions of at most the server's SETTINGS_MAX_CONCURRENT_STREAMS
// Nothing is relayed anywhere: the figures are the upstream side's alone. Run with --expose-gc,
// so memory can also be read after a full collection. argv[2]: JSON ClientOptions. Prints one
// JSON line, the ClientResult.
import { readdirSync, readFileSync } from 'node:fs';
import { connect as h2connect, constants, type ClientHttp2Session } from 'node:http2';
import { fileURLToPath } from 'node:url';
import { OriginPool } from '../src/upstream/origin-pool.js';
import type { ResponseSink } from '../src/upstream/response-sink.js';
import type { TransportError } from '../src/upstream/transport-error.js';

export interface ClientOptions {
  protocol: 'h1' | 'h2';
  tls: boolean;
  port: number;
  streams: number;
  /** Events each stream carries: its chunks, the usage chunk and [DONE]. */
  events: number;
  /** Streams per HTTP/2 session (the server's SETTINGS_MAX_CONCURRENT_STREAMS). */
  maxStreams: number;
  shortRequests: number;
  concurrency: number;
  /** The opening: `batch` streams every `gapMs`. */
  batch: number;
  gapMs: number;
}

export interface ClientResult {
  streams: number;
  failures: number;
  firstFailure: string | null;
  /** Most streams open at once; below `streams` the figures taken while all are open are missing. */
  peakOpen: number;
  connections: number;
  openMs: number;
  before: Usage;
  allOpen: Usage;
  /** After a full collection, while every stream is still open. */
  allOpenGc: Usage;
  /** CPU µs from the start of the opening until every stream had its first byte. */
  openCpuUs: number;
  /** CPU µs and events while every stream was held (from all open to the first end). */
  heldCpuUs: number;
  heldEvents: number;
  shortCpuUs: number;
  shortMs: number;
  shortDone: number;
}

export interface Usage {
  rss: number;
  heap: number;
  external: number;
  fds: number;
}

interface Caller {
  /** Opens a stream; `events` per blank-line-terminated event, `end` once (ok: status 200 and a clean end). */
  stream(onEvents: (n: number) => void, end: (failure: string | null) => void): void;
  short(): Promise<void>;
  connections(): number;
  close(): Promise<void>;
}

const o = JSON.parse(process.argv[2] ?? '{}') as ClientOptions;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const FIXTURES = fileURLToPath(new URL('../../test/fixtures/', import.meta.url));
const CA = readFileSync(FIXTURES + 'localhost-cert.pem');
const BODY = Buffer.from(JSON.stringify({
  model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true },
  messages: [{ role: 'user', content: 'Summarise why request latency matters for interactive chat applications. '.repeat(12) }],
}));
const SLOW_PATH = '/v1/chat/completions';
const FAST_PATH = '/v1/chat/completions?interval=0';
const SHORT_PATH = '/short';

function countEvents(b: Buffer, lastLf: { v: boolean }): number {
  let n = lastLf.v && b[0] === 0x0a ? 1 : 0;
  for (let at = b.indexOf('\n\n'); at >= 0; at = b.indexOf('\n\n', at + 2)) n++;
  lastLf.v = b[b.length - 1] === 0x0a;
  return n;
}

/** The gateway's pool: one keep-alive socket per request in flight. */
function poolCaller(): Caller {
  const origin = `${o.tls ? 'https' : 'http'}://localhost:${o.port}`;
  const pool = new OriginPool(new URL(origin), {
    connections: o.streams + o.concurrency + 64, connectTimeoutMs: 10_000, headersTimeoutMs: 60_000, bodyTimeoutMs: 60_000,
    idleTimeoutMs: 60_000, ca: o.tls ? CA : undefined,
  });
  const frame = (path: string): Buffer => Buffer.concat([Buffer.from(`POST ${path} HTTP/1.1\r\nhost: localhost:${o.port}\r\n` +
    `content-type: application/json\r\naccept-encoding: identity\r\ncontent-length: ${BODY.length}\r\n\r\n`), BODY]);
  const requests = new Map([[SLOW_PATH, frame(SLOW_PATH)], [FAST_PATH, frame(FAST_PATH)], [SHORT_PATH, frame(SHORT_PATH)]]);
  const send = (path: string, onEvents: ((n: number) => void) | null, end: (failure: string | null) => void): void => {
    let status = 0;
    const lastLf = { v: false };
    const sink: ResponseSink = {
      onResponseHead(s) {
        status = s;
      },
      onResponseData(view) {
        if (onEvents !== null) onEvents(countEvents(view, lastLf));
        return true;
      },
      onResponseEnd() {
        end(status === 200 ? null : `status ${status}`);
      },
      onResponseError(err: TransportError) {
        end(`${err.code}: ${err.message}`);
      },
    };
    pool.request(requests.get(path)!, sink);
  };
  return {
    stream: (onEvents, end) => send(currentStreamPath, onEvents, end),
    short: () => new Promise((resolve, reject) => send(SHORT_PATH, null, (f) => (f === null ? resolve() : reject(new Error(f))))),
    connections: () => pool.load().open,
    close: () => pool.close(100),
  };
}

/** node:http2: a new session whenever every open one carries its server's limit of streams. */
function h2Caller(): Caller {
  const origin = `${o.tls ? 'https' : 'http'}://localhost:${o.port}`;
  const sessions: { s: ClientHttp2Session; active: number }[] = [];
  const session = (): { s: ClientHttp2Session; active: number } => {
    for (const x of sessions) if (x.active < o.maxStreams) return x;
    const s = h2connect(origin, o.tls ? { ca: CA } : {});
    s.on('error', () => {});
    const x = { s, active: 0 };
    sessions.push(x);
    return x;
  };
  const headers = (path: string) => ({
    [constants.HTTP2_HEADER_METHOD]: 'POST', [constants.HTTP2_HEADER_PATH]: path,
    'content-type': 'application/json', 'content-length': String(BODY.length),
  });
  const send = (path: string, onEvents: ((n: number) => void) | null, end: (failure: string | null) => void): void => {
    const x = session();
    x.active++;
    const req = x.s.request(headers(path));
    let status = 0;
    let done = false;
    const finish = (failure: string | null): void => {
      if (done) return;
      done = true;
      x.active--;
      end(failure);
    };
    const lastLf = { v: false };
    req.on('response', (h) => {
      status = Number(h[constants.HTTP2_HEADER_STATUS]);
    });
    req.on('data', (b: Buffer) => {
      if (onEvents !== null) onEvents(countEvents(b, lastLf));
    });
    req.on('end', () => finish(status === 200 ? null : `status ${status}`));
    req.on('error', (e) => finish(e.message));
    req.on('close', () => finish(`closed (code ${req.rstCode})`));
    req.end(BODY);
  };
  return {
    stream: (onEvents, end) => send(currentStreamPath, onEvents, end),
    short: () => new Promise((resolve, reject) => send(SHORT_PATH, null, (f) => (f === null ? resolve() : reject(new Error(f))))),
    connections: () => sessions.length,
    close: async () => {
      await Promise.all(sessions.map((x) => new Promise<void>((r) => x.s.close(() => r()))));
    },
  };
}

let currentStreamPath = FAST_PATH;

function usage(): Usage {
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed, external: m.external, fds: readdirSync('/proc/self/fd').length };
}

const cpu = (): number => {
  const c = process.cpuUsage();
  return c.user + c.system;
};

async function shorts(caller: Caller, n: number): Promise<number> {
  let started = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (started < n) {
      started++;
      await caller.short();
      done++;
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  return done;
}

/** Opens `n` streams, o.batch every o.gapMs; resolves when all have ended. */
function streams(caller: Caller, n: number, hooks: { allOpen?: () => void; firstEnd?: () => void; events?: (k: number) => void }):
  Promise<{ failures: number; firstFailure: string | null; peak: number }> {
  return new Promise((resolve) => {
    let open = 0;
    let peak = 0;
    let ended = 0;
    let failures = 0;
    let firstFailure: string | null = null;
    let started = 0;
    const one = (): void => {
      let first = true;
      let events = 0;
      caller.stream((k) => {
        events += k;
        hooks.events?.(k);
        if (first) {
          first = false;
          if (++open > peak) peak = open;
          if (open === n && ended === 0) hooks.allOpen?.();
        }
      }, (failure) => {
        if (!first) open--;
        if (ended++ === 0) hooks.firstEnd?.();
        if (failure === null && events !== o.events) failure = `${events} events where ${o.events} were expected`;
        if (failure !== null) {
          failures++;
          firstFailure ??= failure;
        }
        if (ended === n) resolve({ failures, firstFailure, peak });
      });
    };
    const batch = (): void => {
      const k = Math.min(o.batch, n - started);
      for (let i = 0; i < k; i++) one();
      started += k;
      if (started < n) setTimeout(batch, o.gapMs);
    };
    batch();
  });
}

async function main(): Promise<void> {
  const make = o.protocol === 'h2' ? h2Caller : poolCaller;
  // Warm-up: the request path and the stream path, until the JIT has them; then a fresh client, so
  // no connection of the warm-up is reused by (and hidden from) the measured streams.
  const warmer = make();
  await shorts(warmer, 2000);
  const warm = await streams(warmer, 200, {});
  if (warm.failures > 0) throw new Error(`warm-up: ${warm.firstFailure}`);
  await warmer.close();
  const caller = make();
  currentStreamPath = SLOW_PATH;
  await new Promise((r) => setTimeout(r, 200));
  gc();
  const before = usage();
  const c0 = cpu();
  const t0 = performance.now();
  let allOpen: Usage | null = null;
  let allOpenGc: Usage | null = null;
  let openCpuUs = 0;
  let openMs = 0;
  let heldFrom = 0;
  let heldCpuUs = 0;
  let events = 0;
  let heldEvents = -1;
  let connections = 0;
  const r = await streams(caller, o.streams, {
    allOpen: () => {
      openCpuUs = cpu() - c0;
      openMs = performance.now() - t0;
      allOpen = usage();
      connections = caller.connections();
      gc();
      allOpenGc = usage();
      heldFrom = cpu();
      heldEvents = events;
    },
    firstEnd: () => {
      if (heldFrom === 0) return;
      heldCpuUs = cpu() - heldFrom;
      heldEvents = events - heldEvents;
    },
    events: (k) => {
      events += k;
    },
  });
  const s0 = cpu();
  const t1 = performance.now();
  const shortDone = await shorts(caller, o.shortRequests);
  const shortCpuUs = cpu() - s0;
  const shortMs = performance.now() - t1;
  await caller.close();
  const result: ClientResult = {
    streams: o.streams, failures: r.failures, firstFailure: r.firstFailure, peakOpen: r.peak, connections, openMs, before, allOpen: allOpen ?? before,
    allOpenGc: allOpenGc ?? before, openCpuUs, heldCpuUs, heldEvents: heldEvents < 0 ? 0 : heldEvents, shortCpuUs, shortMs, shortDone,
  };
  process.stdout.write(JSON.stringify(result) + '\n');
  process.exit(0);
}

main().catch((e: unknown) => {
  process.stdout.write(JSON.stringify({ error: (e as Error).message }) + '\n');
  process.exit(1);
});
