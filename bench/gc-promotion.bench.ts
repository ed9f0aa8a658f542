// `node dist/bench/gc-promotion.bench.js`: what each request path leaves for V8's old generation.
// One gateway under `--trace-gc-nvp`, each path in turn (the 1 KB turn as JSON and as a stream in
// each inbound format, chat to Anthropic, Messages on Anthropic, and the ~200 KB agent turns):
// warmed up, then counted over BENCH_GC_REQUESTS requests on 10 connections. Reported per request
// of the count: the main isolate's scavenges, their pause, and what they promoted to the old
// generation. A request's objects should die young; what a path promotes is kept past its
// request by something, and costs scavenges that copy it and mark-compacts that free it later (a
// Messages stream's decoded body, captured by a closure of its parser, was promoted at 1.4–1.7 KB
// a stream and doubled its scavenges' pause: docs/benchmarks.md, issue 17).
//   BENCH_GC_REQUESTS   requests counted per path (default 4000; agent turns a quarter of it)
//   BENCH_GC_PATHS      comma list of path names to run (default all)
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { plainPort, startChild, stopAllChildren } from './child-server.js';
import { setMockDefault } from './mock-default.js';
import { startGateway } from './gateway-target.js';
import {
  AGENT_BODY, CHAT_BODY, CHAT_BODY_ANTHROPIC, CHAT_PATH, MESSAGES_AGENT_BODY, MESSAGES_BODY, MESSAGES_DONE, MESSAGES_NATIVE_BODY,
  MESSAGES_NATIVE_STREAM_BODY, MESSAGES_PATH, MESSAGES_STREAM_BODY, requestHeaders, RESPONSES_AGENT_BODY, RESPONSES_BODY, RESPONSES_DONE,
  RESPONSES_PATH, RESPONSES_STREAM_BODY, STREAM_BODY, STREAM_BODY_ANTHROPIC, STREAM_CHUNKS,
} from './payloads.js';
import { measureStreams } from './streams.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const sibling = (file: string): string => fileURLToPath(new URL(file, import.meta.url));
const REQUESTS = Number(process.env.BENCH_GC_REQUESTS ?? 4000);
const WANTED = process.env.BENCH_GC_PATHS ? new Set(process.env.BENCH_GC_PATHS.split(',')) : null;
/** A JSON answer is whole when its usage has arrived. */
const JSON_DONE = Buffer.from('"usage"');

interface GcPath {
  name: string;
  path: string;
  body: string;
  /** What the OpenAI-shaped mock answers (the Anthropic mock answers as the request asks). */
  mock: 'json' | 'stream';
  done: Buffer;
  /** Agent-sized: counted over a quarter of the requests. */
  agent?: boolean;
}

const DONE = Buffer.from('data: [DONE]');
const PATHS: readonly GcPath[] = [
  { name: 'chat', path: CHAT_PATH, body: CHAT_BODY, mock: 'json', done: JSON_DONE },
  { name: 'chat-stream', path: CHAT_PATH, body: STREAM_BODY, mock: 'stream', done: DONE },
  { name: 'responses', path: RESPONSES_PATH, body: RESPONSES_BODY, mock: 'json', done: JSON_DONE },
  { name: 'responses-stream', path: RESPONSES_PATH, body: RESPONSES_STREAM_BODY, mock: 'stream', done: RESPONSES_DONE },
  { name: 'messages', path: MESSAGES_PATH, body: MESSAGES_BODY, mock: 'json', done: JSON_DONE },
  { name: 'messages-stream', path: MESSAGES_PATH, body: MESSAGES_STREAM_BODY, mock: 'stream', done: MESSAGES_DONE },
  { name: 'anthropic', path: CHAT_PATH, body: CHAT_BODY_ANTHROPIC, mock: 'json', done: JSON_DONE },
  { name: 'anthropic-stream', path: CHAT_PATH, body: STREAM_BODY_ANTHROPIC, mock: 'json', done: DONE },
  { name: 'messages-native', path: MESSAGES_PATH, body: MESSAGES_NATIVE_BODY, mock: 'json', done: JSON_DONE },
  { name: 'messages-native-stream', path: MESSAGES_PATH, body: MESSAGES_NATIVE_STREAM_BODY, mock: 'json', done: MESSAGES_DONE },
  { name: 'agent', path: CHAT_PATH, body: AGENT_BODY, mock: 'json', done: JSON_DONE, agent: true },
  { name: 'responses-agent', path: RESPONSES_PATH, body: RESPONSES_AGENT_BODY, mock: 'json', done: JSON_DONE, agent: true },
  { name: 'messages-agent', path: MESSAGES_PATH, body: MESSAGES_AGENT_BODY, mock: 'json', done: JSON_DONE, agent: true },
];

const log = (m: string): void => console.error(`[gc] ${m}`);

/** A `--trace-gc-nvp` line's `name=value` field, as a number (0 when absent). */
function field(line: string, name: string): number {
  const at = line.indexOf(` ${name}=`);
  return at < 0 ? 0 : Number.parseFloat(line.slice(at + name.length + 2));
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'gw-gc-'));
  const mock = await startChild('mock', { args: [sibling('mock-server.js')], portFrom: plainPort });
  const anthropic = await startChild('anthropic-mock', { args: [sibling('anthropic-mock-server.js')], portFrom: plainPort });
  const g = await startGateway(ROOT, tmp, `${mock.origin}/v1`, { anthropicUrl: `${anthropic.origin}/v1`, nodeArgs: ['--trace-gc-nvp'] });
  const lines: string[] = [];
  // Never matches: it only collects every line the gateway prints from here on.
  void g.server.waitForLine((l) => void lines.push(l) === undefined && false, 24 * 3600_000).catch(() => {});
  const rows: string[] = [];
  try {
    for (const p of PATHS) {
      if (WANTED !== null && !WANTED.has(p.name)) continue;
      await setMockDefault(mock, p.mock === 'stream' ? { kind: 'stream', chunks: STREAM_CHUNKS } : { kind: 'ok' });
      const n = p.agent === true ? Math.ceil(REQUESTS / 4) : REQUESTS;
      const run = (count: number): ReturnType<typeof measureStreams> => measureStreams({
        origin: g.server.origin, path: p.path, headers: requestHeaders(g.apiKey), body: p.body, concurrency: 10, streams: count, warmupMs: 0, done: p.done,
      });
      log(`${p.name}: warm-up, then ${n} requests`);
      await run(Math.ceil(n / 2));
      await new Promise((r) => setTimeout(r, 300));
      const from = lines.length;
      const r = await run(n);
      await new Promise((r2) => setTimeout(r2, 300));
      if (r.failures > 0) throw new Error(`${p.name}: ${r.failures} of ${n} requests failed`);
      // The main isolate's scavenges: the ledger worker's print under its own isolate's address.
      const byIsolate = new Map<string, string[]>();
      for (const l of lines.slice(from)) {
        if (!l.includes(' gc=s ')) continue;
        const isolate = /^\[\d+:(0x[0-9a-f]+)\]/.exec(l)?.[1] ?? '';
        byIsolate.set(isolate, [...(byIsolate.get(isolate) ?? []), l]);
      }
      const main = [...byIsolate.values()].sort((a, b) => b.length - a.length)[0] ?? [];
      const pauseMs = main.reduce((s, l) => s + field(l, 'pause'), 0);
      const promoted = main.reduce((s, l) => s + field(l, 'promoted'), 0);
      rows.push(`${p.name.padEnd(24)}${String(main.length).padStart(11)}${(pauseMs * 1000 / n).toFixed(2).padStart(18)}${(promoted / 1024 / n).toFixed(2).padStart(18)}`);
    }
  } finally {
    await stopAllChildren();
  }
  console.log(`\nscavenges of the gateway's main isolate over each path's counted requests (${REQUESTS}; agent turns ${Math.ceil(REQUESTS / 4)})`);
  console.log(`${'path'.padEnd(24)}${'scavenges'.padStart(11)}${'pause µs/request'.padStart(18)}${'promoted KB/req'.padStart(18)}`);
  for (const r of rows) console.log(r);
}

await main();
