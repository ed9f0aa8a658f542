// `npm run bench`: the gateway against the mock provider called directly and against three
// proxies that do none of its work: a bare node:http + undici pass-through (the baseline the
// targets name), the floor (uWebSockets.js and the gateway's own upstream pool, no logic) and
// nginx (when installed). Every server runs in its own process, the load generator in this one.
//
// The targets are measured in rounds, each scenario taking every target in turn, and the report
// gives medians over the rounds: on this shared 2-core VM one target measured for a minute
// while another waits can meet a faster or slower moment of the machine (the bare proxy's CPU per
// request moved between 62 and 89 µs across three back-to-back runs), which a round interleaves.
//   BENCH_ROUNDS       rounds (default 3)
//   BENCH_DURATION_S   length of each load run (default 5 s)
//   BENCH_STREAMS      streams measured per target and round in the stream scenario (default 300)
//   BENCH_STREAM_CHUNKS text chunks in each of those streams (default 20)
//   BENCH_AGENT_STREAMS streams measured per target and round with the ~200 KB agent turn streamed (default 1000)
//   BENCH_TARGETS      comma list of target names to run (direct and bare-proxy are needed for the targets);
//                      gateway-nometrics (metrics.enabled false) runs only when named here
//   BENCH_BASE_ROOT    another checkout of the gateway, built: its gateway targets run too, as base-<name>
//                      (name them in BENCH_TARGETS), a before and after in the same interleaved rounds
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { plainPort, startChild, stopAllChildren, type ChildServer } from './child-server.js';
import { setMockDefault } from './mock-default.js';
import { startGateway } from './gateway-target.js';
import { startNginx } from './nginx-target.js';
import { CpuProbe } from './cpu-time.js';
import { measureOneConnection } from './one-connection.js';
import {
  AGENT_BODY, CHAT_BODY, CHAT_BODY_ANTHROPIC, CHAT_PATH, MESSAGES_AGENT_BODY, MESSAGES_BODY, MESSAGES_DONE, MESSAGES_PATH, MESSAGES_STREAM_BODY, requestHeaders,
  MESSAGES_NATIVE_AGENT_BODY, MESSAGES_NATIVE_BODY, MESSAGES_NATIVE_STREAM_BODY, RESPONSES_AGENT_BODY, RESPONSES_BODY, RESPONSES_DONE, RESPONSES_PATH, RESPONSES_STREAM_BODY, STREAM_BODY,
  STREAM_BODY_ANTHROPIC, STREAM_CHUNKS, streamedTurn,
} from './payloads.js';
import { printReport, type RoundResult, type TargetResult } from './report.js';
import { measureStreams } from './streams.js';
import { measureThroughput } from './throughput.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The build a change is measured against, when given (BENCH_BASE_ROOT). */
const BASE_ROOT = process.env.BENCH_BASE_ROOT;
const BASE = 'base-';
const sibling = (file: string): string => fileURLToPath(new URL(file, import.meta.url));

const SETTINGS = Object.freeze({
  rounds: Number(process.env.BENCH_ROUNDS ?? 3),
  connections: 50,
  durationS: Number(process.env.BENCH_DURATION_S ?? 5),
  warmupS: 1,
  oneConnectionRequests: 2000,
  oneConnectionWarmupMs: 500,
  streamConcurrency: 10,
  // 300 streams are ~15 ms of the server's CPU: the per-stream figure of one round moved 1.2–3.3x
  // between rounds at that count; BENCH_STREAMS=3000 steadies it (issue 17).
  streams: Number(process.env.BENCH_STREAMS ?? 300),
  streamChunks: Number(process.env.BENCH_STREAM_CHUNKS ?? STREAM_CHUNKS),
  streamWarmupMs: 500,
  agentConnections: 20,
  agentOneConnectionRequests: 500,
  agentStreams: Number(process.env.BENCH_AGENT_STREAMS ?? 1000),
});

/**
 * Targets measured with the agent-sized body too: those whose request is the chat-completions one,
 * and the translated inbound formats with the same conversation in theirs (Codex's, Claude Code's).
 */
const AGENT_TARGETS = new Set(['direct', 'bare-proxy', 'floor', 'nginx', 'gateway', 'gateway-responses', 'gateway-messages', 'gateway-messages-native']);
/**
 * Targets measured with the agent-sized turn streamed, as Codex and Claude Code send every turn:
 * the gateway's pass-through (what issue 17 holds the translated ones to) and the translated formats.
 */
const AGENT_STREAM_TARGETS = new Set(['bare-proxy', 'gateway', 'gateway-responses', 'gateway-messages', 'gateway-messages-native']);

interface Started {
  origin: string;
  headers: Record<string, string>;
  /** The upstream this target calls, when not the OpenAI-shaped mock (its CPU is reported as the mock's). */
  upstream?: ChildServer;
  /** The request this target is measured with; absent, the chat-completions scenario's. */
  request?: BenchRequest;
  /** The process whose CPU and memory are reported; null when it is the mock itself. */
  server: ChildServer | null;
}

interface Target {
  name: string;
  start(): Promise<Started>;
  /** Run only when BENCH_TARGETS names it (a comparison, not part of every `npm run bench`). */
  optIn?: boolean;
}

interface Running extends Started {
  name: string;
  rounds: RoundResult[];
}

const log = (msg: string): void => console.error(`[bench] ${msg}`);

/** What a target is sent: the path, a JSON body and a streamed body. */
interface BenchRequest {
  path: string;
  body: string;
  streamBody: string;
  /** What ends a stream when it is not `data: [DONE]` (the Responses API's last event). */
  done?: Buffer;
  /** The agent-sized body in this format (default: the chat-completions one). */
  agentBody?: string;
}

const CHAT: BenchRequest = { path: CHAT_PATH, body: CHAT_BODY, streamBody: STREAM_BODY };

// One request before the load: a target that answers 401 or 404 would otherwise produce a
// splendid and meaningless req/s figure.
async function preflight(t: Started): Promise<void> {
  const q = t.request ?? CHAT;
  const res = await fetch(t.origin + q.path, { method: 'POST', headers: t.headers, body: q.body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`preflight got ${res.status}: ${text.slice(0, 300)}`);
}

/** Each gateway its own folder: one database serves one gateway. */
function folder(tmp: string, name: string): string {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The targets, their gateways from the build at `root` (their folders named from `prefix`). */
function targets(mock: ChildServer, anthropicMock: ChildServer, tmp: string, root = ROOT, prefix = ''): Target[] {
  return [
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
        const g = await startGateway(root, folder(tmp, `${prefix}gateway`), `${mock.origin}/v1`);
        return { origin: g.server.origin, headers: requestHeaders(g.apiKey), server: g.server };
      },
    },
    {
      // The same gateway with metrics.enabled false, in the same rounds: what collecting metrics costs.
      name: 'gateway-nometrics',
      optIn: true,
      start: async () => {
        const g = await startGateway(root, folder(tmp, `${prefix}gateway-nometrics`), `${mock.origin}/v1`, { metrics: false });
        return { origin: g.server.origin, headers: requestHeaders(g.apiKey), server: g.server };
      },
    },
    {
      // Translated both ways: chat completions in, Anthropic's Messages API out, its answers and
      // streams turned back into chat completions (the mock's own CPU is not counted here either).
      name: 'gateway-anthropic',
      start: async () => {
        const g = await startGateway(root, folder(tmp, `${prefix}gateway-anthropic`), `${mock.origin}/v1`, { anthropicUrl: `${anthropicMock.origin}/v1` });
        return {
          origin: g.server.origin, headers: requestHeaders(g.apiKey), server: g.server, upstream: anthropicMock,
          request: { path: CHAT_PATH, body: CHAT_BODY_ANTHROPIC, streamBody: STREAM_BODY_ANTHROPIC },
        };
      },
    },
    {
      // Anthropic's Messages API in (Claude Code), chat completions to the OpenAI-compatible mock, Messages out.
      name: 'gateway-messages',
      start: async () => {
        const g = await startGateway(root, folder(tmp, `${prefix}gateway-messages`), `${mock.origin}/v1`);
        return { origin: g.server.origin, headers: requestHeaders(g.apiKey), server: g.server,
          request: { path: MESSAGES_PATH, body: MESSAGES_BODY, streamBody: MESSAGES_STREAM_BODY, done: MESSAGES_DONE, agentBody: MESSAGES_AGENT_BODY } };
      },
    },
    {
      // Claude Code on a Claude model: Messages in, the Anthropic mock's own Messages API out (native: nothing translated).
      name: 'gateway-messages-native',
      start: async () => {
        const g = await startGateway(root, folder(tmp, `${prefix}gateway-messages-native`), `${mock.origin}/v1`, { anthropicUrl: `${anthropicMock.origin}/v1` });
        return { origin: g.server.origin, headers: requestHeaders(g.apiKey), server: g.server, upstream: anthropicMock,
          request: { path: MESSAGES_PATH, body: MESSAGES_NATIVE_BODY, streamBody: MESSAGES_NATIVE_STREAM_BODY, done: MESSAGES_DONE, agentBody: MESSAGES_NATIVE_AGENT_BODY } };
      },
    },
    {
      // Responses in, chat completions to the OpenAI-compatible mock, Responses out.
      name: 'gateway-responses',
      start: async () => {
        const g = await startGateway(root, folder(tmp, `${prefix}gateway-responses`), `${mock.origin}/v1`);
        return { origin: g.server.origin, headers: requestHeaders(g.apiKey), server: g.server,
          request: { path: RESPONSES_PATH, body: RESPONSES_BODY, streamBody: RESPONSES_STREAM_BODY, done: RESPONSES_DONE, agentBody: RESPONSES_AGENT_BODY } };
      },
    },
  ];
}

/** Runs `measure` on every target in turn; a target that fails is dropped from later rounds. */
async function eachTarget(running: Running[], skipped: TargetResult[], what: string,
  measure: (t: Running) => Promise<void>): Promise<void> {
  for (const t of [...running]) {
    log(`${t.name}: ${what}`);
    try {
      await measure(t);
    } catch (err) {
      const reason = `failed: ${(err as Error).message}`;
      log(`SKIP ${t.name} ${reason}`);
      running.splice(running.indexOf(t), 1);
      skipped.push({ name: t.name, skipped: reason, rounds: [] });
    }
  }
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'gw-bench-'));
  const running: Running[] = [];
  const skipped: TargetResult[] = [];
  try {
    const mock = await startChild('mock', { args: [sibling('./mock-server.js'), '{"kind":"ok"}'], portFrom: plainPort });
    const anthropicMock = await startChild('anthropic-mock', { args: [sibling('./anthropic-mock-server.js')], portFrom: plainPort });
    const chosen = process.env.BENCH_TARGETS?.split(',');
    const all = targets(mock, anthropicMock, tmp);
    if (BASE_ROOT !== undefined) {
      for (const t of targets(mock, anthropicMock, tmp, BASE_ROOT, BASE)) if (t.name.startsWith('gateway')) all.push({ ...t, name: BASE + t.name, optIn: true });
    }
    for (const target of all) {
      if (chosen ? !chosen.includes(target.name) : target.optIn === true) continue;
      try {
        const started = await target.start();
        await preflight(started);
        running.push({ ...started, name: target.name, rounds: [] });
      } catch (err) {
        const reason = `did not start: ${(err as Error).message}`;
        log(`SKIP ${target.name} ${reason}`);
        skipped.push({ name: target.name, skipped: reason, rounds: [] });
      }
    }

    for (let r = 0; r < SETTINGS.rounds; r++) {
      log(`round ${r + 1} of ${SETTINGS.rounds}`);
      for (const t of running) t.rounds.push({});
      await eachTarget(running, skipped, `${SETTINGS.connections} connections for ${SETTINGS.durationS}s (+${SETTINGS.warmupS}s warm-up)`, async (t) => {
        const q = t.request ?? CHAT;
        t.rounds[r].throughput = await measureThroughput({
          url: t.origin + q.path, headers: t.headers, body: q.body,
          connections: SETTINGS.connections, durationS: SETTINGS.durationS, warmupS: SETTINGS.warmupS,
          cpu: new CpuProbe(t.server?.pid ?? null, (t.upstream ?? mock).pid),
        });
      });
      await eachTarget(running, skipped, `one connection, ${SETTINGS.oneConnectionRequests} sequential requests`, async (t) => {
        const q = t.request ?? CHAT;
        t.rounds[r].oneConnection = await measureOneConnection({
          origin: t.origin, path: q.path, headers: t.headers, body: q.body,
          requests: SETTINGS.oneConnectionRequests, warmupMs: SETTINGS.oneConnectionWarmupMs,
        });
      });
      const agents = running.filter((t) => AGENT_TARGETS.has(t.name.replace(BASE, '')));
      await eachTarget(agents, skipped, `${(AGENT_BODY.length / 1024).toFixed(0)} KB bodies, ${SETTINGS.agentConnections} connections for ${SETTINGS.durationS}s`, async (t) => {
        const path = t.request?.agentBody === undefined ? CHAT_PATH : t.request.path;
        const body = t.request?.agentBody ?? AGENT_BODY;
        t.rounds[r].agent = await measureThroughput({
          url: t.origin + path, headers: t.headers, body,
          connections: SETTINGS.agentConnections, durationS: SETTINGS.durationS, warmupS: SETTINGS.warmupS,
          cpu: new CpuProbe(t.server?.pid ?? null, mock.pid),
        });
        t.rounds[r].agentOne = await measureOneConnection({
          origin: t.origin, path, headers: t.headers, body,
          requests: SETTINGS.agentOneConnectionRequests, warmupMs: SETTINGS.oneConnectionWarmupMs,
        });
      });
      await setMockDefault(mock, { kind: 'stream', chunks: SETTINGS.streamChunks });
      try {
        await eachTarget(running, skipped, `${SETTINGS.streams} streams of ${SETTINGS.streamChunks} chunks, ${SETTINGS.streamConcurrency} at a time`, async (t) => {
          const q = t.request ?? CHAT;
          t.rounds[r].streams = await measureStreams({
            origin: t.origin, path: q.path, headers: t.headers, body: q.streamBody, done: q.done,
            concurrency: SETTINGS.streamConcurrency, streams: SETTINGS.streams, warmupMs: SETTINGS.streamWarmupMs,
            cpu: new CpuProbe(t.server?.pid ?? null, (t.upstream ?? mock).pid),
          });
        });
        const agentStreams = running.filter((t) => AGENT_STREAM_TARGETS.has(t.name.replace(BASE, '')));
        await eachTarget(agentStreams, skipped, `${SETTINGS.agentStreams} streamed agent turns (${(AGENT_BODY.length / 1024).toFixed(0)} KB bodies), ${SETTINGS.streamConcurrency} at a time`, async (t) => {
          const q = t.request ?? CHAT;
          const body = q.agentBody === undefined ? streamedTurn(AGENT_BODY, true) : streamedTurn(q.agentBody, false);
          t.rounds[r].agentStreams = await measureStreams({
            origin: t.origin, path: q.agentBody === undefined ? CHAT_PATH : q.path, headers: t.headers, body, done: q.done,
            concurrency: SETTINGS.streamConcurrency, streams: SETTINGS.agentStreams, warmupMs: SETTINGS.streamWarmupMs,
            cpu: new CpuProbe(t.server?.pid ?? null, (t.upstream ?? mock).pid),
          });
        });
      } finally {
        await setMockDefault(mock, { kind: 'ok' });
      }
    }

    const results: TargetResult[] = running.map((t) => ({
      name: t.name, skipped: null, rounds: t.rounds, rssMiB: (t.server ?? mock).rssMiB(),
    }));
    printReport([...results, ...skipped], SETTINGS.rounds);
  } finally {
    await stopAllChildren();
    await Promise.all(running.map((t) => t.server?.stop()));
    rmSync(tmp, { recursive: true, force: true });
  }
}

process.once('SIGINT', () => process.exit(130)); // the exit hook in child-server kills the children
process.once('SIGTERM', () => process.exit(143));

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
