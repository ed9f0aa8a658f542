// `node dist/bench/heap-after-idle.bench.js`: what the gateway's V8 heap flag (SERVE_NODE_FLAGS,
// docs/configuration.md, *The V8 heap flag*) is worth. Each variant is a fresh gateway: 1 KB chat
// requests on 50 connections (as `npm run bench` warms it) and 2 s of agent-sized ones (~200 KB),
// then an idle spell, then agent-sized requests on 20 connections. Reported per variant, over the agent-sized run: full
// garbage collections (V8's --trace-gc lines), CPU per request on the main thread and on the other
// threads (V8's helpers mostly), requests a second, and RSS after the run.
//   BENCH_HEAP_FLAGS    variants, `;`-separated, each a space-separated flag list; `-` for none
//                       (default: none; the shipped flags; --initial-old-space-size=64)
//   BENCH_HEAP_IDLE_S   the idle spell (default 60)
//   BENCH_DURATION_S    the agent-sized run (default 6)
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { plainPort, startChild, stopAllChildren } from './child-server.js';
import { TICK_US, threadTicks } from './cpu-time.js';
import { SERVE_NODE_FLAGS, startGateway } from './gateway-target.js';
import { AGENT_BODY, CHAT_BODY, CHAT_PATH, requestHeaders } from './payloads.js';
import { measureThroughput } from './throughput.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const sibling = (file: string): string => fileURLToPath(new URL(file, import.meta.url));
const VARIANTS = (process.env.BENCH_HEAP_FLAGS ?? `-;${SERVE_NODE_FLAGS.join(' ')};--initial-old-space-size=64`)
  .split(';').map((v) => (v.trim() === '-' ? [] : v.trim().split(/\s+/)));
const IDLE_S = Number(process.env.BENCH_HEAP_IDLE_S ?? 60);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 6);

interface Row { flags: string; fullGcs: number; scavenges: number; rps: number; mainUs: number; otherUs: number; rssMiB: number }

const log = (m: string): void => console.error(`[heap] ${m}`);

async function variant(flags: string[], mockOrigin: string, tmp: string, i: number): Promise<Row> {
  const dir = join(tmp, `v${i}`);
  mkdirSync(dir);
  const g = await startGateway(ROOT, dir, `${mockOrigin}/v1`, { serveFlags: flags, nodeArgs: ['--trace-gc'] });
  try {
    const lines: string[] = [];
    // Never matches: it only collects every line the gateway prints from here on.
    void g.server.waitForLine((l) => void lines.push(l) === undefined && false, 24 * 3600_000).catch(() => {});
    const url = g.server.origin + CHAT_PATH;
    const headers = requestHeaders(g.apiKey);
    await measureThroughput({ url, headers, body: CHAT_BODY, connections: 50, durationS: 5, warmupS: 1 });
    // The agent-sized path compiled before the idle spell, so the measured run is not its warm-up.
    await measureThroughput({ url, headers, body: AGENT_BODY, connections: 20, durationS: 2, warmupS: 0 });
    log(`${flags.join(' ') || 'no flag'}: idle ${IDLE_S} s`);
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    const from = lines.length;
    const t0 = threadTicks(g.server.pid)!;
    const r = await measureThroughput({ url, headers, body: AGENT_BODY, connections: 20, durationS: DURATION_S, warmupS: 0 });
    const t1 = threadTicks(g.server.pid)!;
    const requests = r.rps * DURATION_S;
    // Only the main isolate's lines: the ledger worker's heap prints under its own isolate
    // address, and the main one is the one collecting most under this load.
    const gcs = lines.slice(from).filter((l) => / (Scavenge|Mark-Compact) /.test(l));
    const perIsolate = new Map<string, string[]>();
    for (const l of gcs) {
      const isolate = /^\[\d+:(0x[0-9a-f]+)\]/.exec(l)?.[1] ?? '';
      perIsolate.set(isolate, [...(perIsolate.get(isolate) ?? []), l]);
    }
    const mainGcs = [...perIsolate.values()].sort((a, b) => b.length - a.length)[0] ?? [];
    return {
      flags: flags.join(' ') || '(none)',
      fullGcs: mainGcs.filter((l) => l.includes('Mark-Compact')).length,
      scavenges: mainGcs.filter((l) => l.includes('Scavenge')).length,
      rps: r.rps,
      mainUs: ((t1.main - t0.main) * TICK_US) / requests,
      otherUs: ((t1.other - t0.other) * TICK_US) / requests,
      rssMiB: g.server.rssMiB() ?? NaN,
    };
  } finally {
    await g.server.stop();
  }
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'gw-heap-'));
  try {
    const mock = await startChild('mock', { args: [sibling('./mock-server.js'), '{"kind":"ok"}'], portFrom: plainPort });
    const rows: Row[] = [];
    for (let i = 0; i < VARIANTS.length; i++) rows.push(await variant(VARIANTS[i], mock.origin, tmp, i));
    console.log(`\nagent-sized requests after ${IDLE_S} s idle, ${DURATION_S} s on 20 connections, per variant`);
    console.log('flags                           full GCs  scavenges  req/s  main µs/req  other µs/req  RSS MiB');
    for (const r of rows) {
      console.log(`${r.flags.padEnd(30)}  ${String(r.fullGcs).padStart(8)}  ${String(r.scavenges).padStart(9)}  ${r.rps.toFixed(0).padStart(5)}  `
        + `${r.mainUs.toFixed(1).padStart(11)}  ${r.otherUs.toFixed(1).padStart(12)}  ${r.rssMiB.toFixed(1).padStart(7)}`);
    }
  } finally {
    await stopAllChildren();
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
