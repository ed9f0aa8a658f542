// `npm run bench:instructions`: instructions executed per request, counted by valgrind's
// callgrind, for the gateway and for the thinnest proxies. Unlike requests per second on this
// shared 2-core VM (±15% between runs), the count is the same from run to run whatever else the
// machine does, so a change to the request path can be judged by a few hundred instructions.
// It counts user-space work only: the kernel's side of the socket calls is not in it.
//
// Each target runs under callgrind (about 50x slower); it is warmed up with unmeasured requests
// until V8 has optimised the path, the counters are zeroed, N requests are sent one at a time on
// one connection, and the counters are dumped per thread. That is done BENCH_IR_WINDOWS times
// (default 2), and the window whose main thread did least is the one reported, each window's
// figure beside it: V8 now and then drops a function's optimised code at the boundary (a
// branch the warm-up never took: `Insufficient type feedback`, seen with --trace-deopt) and runs
// it in its baseline tier until it optimises it again, which moved one build's count by up to
// 25,000 instructions a request between runs (gateway-anthropic-stream: 232.6k to 258.1k). Periodic work (timers, the ledger's
// flush) is spread over fewer requests than at full speed, so it weighs a little more here.
//   BENCH_IR_REQUESTS  measured requests per target (default 2000)
//   BENCH_IR_TARGETS   comma list of floor, bare, gateway, each with -stream for 20-chunk streams
//                      instead of JSON answers (default floor, bare, gateway, gateway-stream), and
//                      gateway-stream-nousage (no stream_options: the usage chunk is dropped) and
//                      gateway-stream-renamed (a model whose upstream id differs: every chunk renamed),
//                      the two streams that go through the relay's line editor; gateway-anthropic
//                      (-stream): chat completions in, Anthropic's Messages API out (translated both ways); gateway-responses
//                      (-stream): POST /v1/responses, translated to chat completions and back; gateway-messages
//                      (-stream, -agent): POST /v1/messages (Claude Code's API) on an OpenAI-compatible provider, likewise
//                      (gateway-responses-agent too: the agent-sized conversation in each format); gateway-messages-native
//                      (-stream, -agent): POST /v1/messages on a Claude model, sent on to Anthropic's own API; floor-agent,
//                      bare-agent, gateway-agent: the ~200 KB agent-sized body (bench/payloads.ts) with a JSON answer;
//                      -stream-agent on any target (gateway-messages-stream-agent): that body, streamed
//                      Any gateway target with the suffix -traced (gateway-traced, gateway-stream-traced) runs with
//                      OpenTelemetry traces on, posted to a collector in this process that answers 200
//   BENCH_IR_CHUNKS    text chunks in the OpenAI-shaped mock's streams (default 20; an answer of a few hundred tokens is as many chunks)
//   BENCH_IR_TOP       also print the N functions with the most own instructions on each
//                      target's main thread, JIT code named through --perf-basic-prof, and the
//                      main thread's count split into timer-driven work and worker messages
//                      (the ledger's flush every 100 ms: their share per request grows as
//                      callgrind runs slower on a busy machine), garbage collection (V8 sizes
//                      the young generation from what survived, so the scavenges per request
//                      changed up to 10x between runs of one build) and the rest, the request's
//                      own work, which is the figure to compare between builds on a shared machine
//   BENCH_IR_WARMUP    unmeasured requests before the count (default 20000; fewer for a quicker look, which
//                      counts some functions in their baseline tier and V8's compiles on its helper threads)
//   BENCH_IR_WINDOWS   counted windows of BENCH_IR_REQUESTS each (default 2); the lowest main thread is reported
//   BENCH_IR_MIX       1: the warm-up mixes the target's format: three rounds of a fifth of the warm-up's count as 1 KB
//                      JSON requests, a thirtieth as agent-sized ones (the mock answering JSON to both), then a
//                      third as the target's own; so a gateway that serves both kinds is counted, with the code V8
//                      keeps for both (mixed and single-kind warm-ups counted the same: docs/benchmarks.md)
//   BENCH_GW_METRICS   0: the gateway with metrics.enabled false (what collecting metrics costs)
//   BENCH_GW_NODE_ARGS node flags for the gateway targets, space-separated
//                      (--min-semi-space-size=16: the young generation held at its full-load size, see docs/benchmarks.md)
//   BENCH_GW_TRACE_CONTENT  1: -traced targets also capture content (tracing.captureContent)
//   BENCH_IR_KEEP      keep the callgrind files (and perf maps) for callgrind_annotate; their folder is printed
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { backgroundShare, callGraph, threadCounts, type ThreadCount } from './callgrind.js';
import { plainPort, startChild, stopAllChildren, type ChildServer } from './child-server.js';
import { startGateway } from './gateway-target.js';
import { setMockDefault } from './mock-default.js';
import { measureOneConnection } from './one-connection.js';
import {
  AGENT_BODY, AGENT_BODY_ANTHROPIC, CHAT_BODY, CHAT_BODY_ANTHROPIC, CHAT_PATH, MESSAGES_AGENT_BODY, MESSAGES_BODY, MESSAGES_DONE, MESSAGES_PATH, MESSAGES_STREAM_BODY, requestHeaders,
  MESSAGES_NATIVE_AGENT_BODY, MESSAGES_NATIVE_BODY, MESSAGES_NATIVE_STREAM_BODY, RESPONSES_AGENT_BODY, RESPONSES_BODY, RESPONSES_DONE, RESPONSES_PATH, RESPONSES_STREAM_BODY, STREAM_BODY,
  STREAM_BODY_ANTHROPIC, STREAM_BODY_NO_USAGE, STREAM_BODY_RENAMED, STREAM_CHUNKS, streamedTurn,
} from './payloads.js';
import { measureStreams } from './streams.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const sibling = (file: string): string => fileURLToPath(new URL(file, import.meta.url));
const REQUESTS = Number(process.env.BENCH_IR_REQUESTS ?? 2000);
const CHUNKS = Number(process.env.BENCH_IR_CHUNKS ?? STREAM_CHUNKS);
/**
 * V8 goes on optimising a path for thousands of requests after its first: at full speed
 * (--trace-opt), a Messages stream's `LimitsGate#enter` was marked after 2,250 streams,
 * `writeJsonBytes` after 3,000, the relay's `#end` after 5,000 and `#forward` after 9,000, the
 * last after 15,000 (the chat stream's alike). Counted after 3,000, hot functions ran in their
 * baseline tier and the helper threads were still compiling: gateway-messages-stream 440.9k
 * instructions a stream, 303.3k after 20,000 (docs/benchmarks.md). Requests of optimised code are
 * quick even under callgrind, so the long warm-up costs minutes, not hours.
 */
const WARMUP = Number(process.env.BENCH_IR_WARMUP ?? 20_000);
const WINDOWS = Math.max(1, Number(process.env.BENCH_IR_WINDOWS ?? 2));
const TOP = Number(process.env.BENCH_IR_TOP ?? 0);
const KEEP = process.env.BENCH_IR_KEEP === '1';
const MIX = process.env.BENCH_IR_MIX === '1';
/** Extra node flags for the gateway targets only (a V8 heap setting to compare). */
const GW_NODE_ARGS = (process.env.BENCH_GW_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
const TARGETS = (process.env.BENCH_IR_TARGETS ?? 'floor,bare,gateway,gateway-stream').split(',');
/** Under callgrind a gateway takes a minute or more to load its modules and open the database. */
const START_MS = 300_000;

const log = (msg: string): void => console.error(`[bench] ${msg}`);

interface Counted {
  name: string;
  main: number;
  other: number;
  /** Main-thread instructions per request in each counted window (\`main\` is the lowest). */
  windows: number[];
}

function hasValgrind(): boolean {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** An OTLP/HTTP collector for the -traced targets: takes every batch and answers 200, in this process (not counted). */
async function startCollector(): Promise<{ url: string; close: () => void }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

async function count(name: string, dir: string, mock: ChildServer, anthropicMock: ChildServer | null, stream: boolean,
  otlpUrl: string | undefined): Promise<Counted> {
  const wrap = ['valgrind', '--tool=callgrind', '--separate-threads=yes', `--callgrind-out-file=${join(dir, 'cg.%p')}`];
  // The perf map names JIT code; V8 would also write a log file per isolate into the working folder.
  const nodeArgs = TOP > 0 ? ['--perf-basic-prof', '--no-logfile-per-isolate', '--logfile=/dev/null'] : [];
  let server: ChildServer;
  let headers = requestHeaders();
  if (name.startsWith('gateway')) {
    const anthropicUrl = anthropicMock === null ? undefined : `${anthropicMock.origin}/v1`;
    const traced = name.endsWith('-traced') ? { otlpUrl, captureContent: process.env.BENCH_GW_TRACE_CONTENT === '1' } : {};
    const g = await startGateway(ROOT, dir, `${mock.origin}/v1`, { wrap, nodeArgs: [...nodeArgs, ...GW_NODE_ARGS], timeoutMs: START_MS, anthropicUrl, ...traced });
    server = g.server;
    headers = requestHeaders(g.apiKey);
  } else {
    const entry = name.startsWith('floor') ? './floor-proxy.js' : './bare-proxy.js';
    server = await startChild(name, { args: [...nodeArgs, sibling(entry), mock.origin], portFrom: plainPort, wrap, timeoutMs: START_MS });
  }
  const anthropic = name.startsWith('gateway-anthropic');
  const responses = name.startsWith('gateway-responses');
  const messages = name.startsWith('gateway-messages');
  const native = name.startsWith('gateway-messages-native');
  const path = responses ? RESPONSES_PATH : messages ? MESSAGES_PATH : CHAT_PATH;
  const streamBody = responses ? RESPONSES_STREAM_BODY : native ? MESSAGES_NATIVE_STREAM_BODY : messages ? MESSAGES_STREAM_BODY : anthropic ? STREAM_BODY_ANTHROPIC : name.endsWith('-nousage') ? STREAM_BODY_NO_USAGE
    : name.endsWith('-renamed') ? STREAM_BODY_RENAMED : STREAM_BODY;
  const agent = name.endsWith('-agent');
  const jsonBody = responses ? RESPONSES_BODY : native ? MESSAGES_NATIVE_BODY : messages ? MESSAGES_BODY : anthropic ? CHAT_BODY_ANTHROPIC : CHAT_BODY;
  const agentBody = responses ? RESPONSES_AGENT_BODY : native ? MESSAGES_NATIVE_AGENT_BODY : messages ? MESSAGES_AGENT_BODY : anthropic ? AGENT_BODY_ANTHROPIC : AGENT_BODY;
  const body = agent ? agentBody : jsonBody;
  // -stream-agent: the agent-sized turn, streamed (Claude Code and Codex stream every turn).
  const streamed = stream && agent ? streamedTurn(agentBody, !messages && !responses) : streamBody;
  const run = async (n: number): Promise<void> => {
    const r = stream
      ? await measureStreams({ origin: server.origin, path, headers, body: streamed, concurrency: 1, streams: n, warmupMs: 0, done: responses ? RESPONSES_DONE : messages ? MESSAGES_DONE : undefined })
      : await measureOneConnection({ origin: server.origin, path, headers, body, requests: n, warmupMs: 0 });
    const failures = r.failures;
    if (failures > 0) throw new Error(`${name}: ${failures} of ${n} requests failed`);
  };
  const other = async (b: string, n: number): Promise<void> => {
    const r = await measureOneConnection({ origin: server.origin, path, headers, body: b, requests: n, warmupMs: 0 });
    if (r.failures > 0) throw new Error(`${name}: ${r.failures} of ${n} mixed warm-up requests failed`);
  };
  try {
    if (MIX) {
      log(`${name}: ${WARMUP} warm-up requests under callgrind, mixed with the format's 1 KB and agent-sized requests`);
      for (let r = 0; r < 3; r++) {
        if (stream) await setMockDefault(mock, { kind: 'ok' });
        await other(jsonBody, Math.ceil(WARMUP / 5));
        await other(agentBody, Math.ceil(WARMUP / 30));
        if (stream) await setMockDefault(mock, { kind: 'stream', chunks: CHUNKS });
        await run(Math.ceil(WARMUP / 3));
      }
    } else {
      log(`${name}: ${WARMUP} warm-up requests under callgrind`);
      await run(WARMUP);
    }
    for (let w = 1; w <= WINDOWS; w++) {
      execFileSync('callgrind_control', ['-z', String(server.pid)], { stdio: 'ignore' });
      log(`${name}: ${REQUESTS} counted requests (window ${w} of ${WINDOWS})`);
      await run(REQUESTS);
      execFileSync('callgrind_control', ['-d', String(server.pid)], { stdio: 'ignore' });
    }
  } finally {
    await server.stop();
  }
  // The window whose main thread did least: one where V8 dropped optimised code (a deopt) and ran
  // the path in its baseline tier until it optimised it again counts that re-warming too.
  const windows = Array.from({ length: WINDOWS }, (_, i) => threadCounts(dir, i + 1));
  const mainOf = (threads: ThreadCount[]): number => threads.find((t) => t.thread === 1)?.instructions ?? 0;
  const best = windows.reduce((b, t, i) => (mainOf(t) < mainOf(windows[b]) ? i : b), 0);
  const threads = windows[best];
  const main = mainOf(threads);
  const all = threads.reduce((s, t) => s + t.instructions, 0);
  if (TOP > 0) {
    const busy = threads.filter((t) => t.instructions / REQUESTS >= 100);
    console.log(`\n${name}: instructions per request by thread: ${busy.map((t) => `${t.thread}: ${(t.instructions / REQUESTS / 1000).toFixed(1)}k`).join(', ')}`);
    const file = join(dir, `cg.${server.pid}.${best + 1}-01`);
    const graph = callGraph(file, `/tmp/perf-${server.pid}.map`);
    const k = (n: number): string => `${(n / REQUESTS / 1000).toFixed(1)}k`;
    const split = backgroundShare(graph);
    console.log(`\n${name}: main thread ${k(main)}: timers and worker messages ${k(split.timers)}, garbage collection ${k(split.gc)}, ` +
      `the rest ${k(main - split.timers - split.gc)}`);
    console.log(`\n${name}: own instructions per request on the main thread, top ${TOP}`);
    for (const [fn, n] of [...graph.self].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
      console.log(`${String(Math.round(n / REQUESTS)).padStart(8)}  ${fn.replace(`file://${ROOT}`, '').slice(0, 120)}`);
    }
    if (!KEEP) rmSync(`/tmp/perf-${server.pid}.map`, { force: true });
  }
  return { name, main: main / REQUESTS, other: (all - main) / REQUESTS, windows: windows.map((t) => mainOf(t) / REQUESTS) };
}

async function main(): Promise<void> {
  if (!hasValgrind()) {
    console.log('instructions: skipped, valgrind is not installed (Debian package valgrind)');
    return;
  }
  const results: Counted[] = [];
  const mock = await startChild('mock', { args: [sibling('./mock-server.js'), '{"kind":"ok"}'], portFrom: plainPort });
  const anthropicMock = TARGETS.some((t) => t.startsWith('gateway-anthropic') || t.startsWith('gateway-messages-native'))
    ? await startChild('anthropic-mock', { args: [sibling('./anthropic-mock-server.js')], portFrom: plainPort })
    : null;
  const collector = TARGETS.some((t) => t.endsWith('-traced')) ? await startCollector() : null;
  try {
    for (const name of TARGETS) {
      const stream = name.includes('-stream');
      await setMockDefault(mock, stream ? { kind: 'stream', chunks: CHUNKS } : { kind: 'ok' });
      const dir = mkdtempSync(join(tmpdir(), 'gw-ir-'));
      try {
        results.push(await count(name, dir, mock, anthropicMock, stream, collector?.url));
      } finally {
        if (KEEP) log(`${name}: callgrind files kept in ${dir}`);
        else rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    collector?.close();
    await stopAllChildren();
  }
  console.log(`\ninstructions per request (callgrind, user space; one connection, ${REQUESTS} requests after ${WARMUP} warm-up${MIX ? ', mixed' : ''})`);
  console.log(`target            main thread  other threads        total  main thread in each of ${WINDOWS} windows`);
  for (const r of results) {
    const k = (n: number): string => `${(n / 1000).toFixed(1)}k`.padStart(12);
    console.log(`${r.name.padEnd(16)}${k(r.main)} ${k(r.other)} ${k(r.main + r.other)}  ${r.windows.map((w) => `${(w / 1000).toFixed(1)}k`).join(' ')}`);
  }
  const floor = results.find((r) => r.name === 'floor');
  const gateway = results.find((r) => r.name === 'gateway');
  if (floor && gateway) console.log(`gateway / floor, main thread: ${(gateway.main / floor.main).toFixed(2)}x`);
}

process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
