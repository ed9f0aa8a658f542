// `node dist/bench/stream-kinds.bench.js`: a translated stream's cost against the plain one, on
// one gateway. The gateway serves the 20-chunk stream as chat passed through, as chat → Responses
// and as chat → Messages, the kinds taken in turn within each round, so that the three share one
// process, one heap and one moment of the machine; reported is the server's CPU a stream (main
// and other threads) and its ratio to the same gateway's chat stream in the same round. Where
// `npm run bench` gives each target a gateway of its own, which also serves the JSON load and the
// agent turns in every round, the ratios here moved with a change that `npm run bench`'s did not
// show (docs/benchmarks.md, issue 17, twelfth session).
//   BENCH_KIND_ROOTS    comma list of built checkouts, each a gateway of its own on the same mock
//                       and taken in turn (default this one): two builds compared side by side
//   BENCH_STREAMS       streams a kind and gateway in each round (default 4000)
//   BENCH_ROUNDS        measured rounds, after one that is not (default 5)
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { plainPort, startChild, stopAllChildren } from './child-server.js';
import { CpuProbe } from './cpu-time.js';
import { startGateway, type GatewayTarget } from './gateway-target.js';
import {
  CHAT_PATH, MESSAGES_DONE, MESSAGES_PATH, MESSAGES_STREAM_BODY, requestHeaders, RESPONSES_DONE, RESPONSES_PATH, RESPONSES_STREAM_BODY,
  STREAM_BODY, STREAM_CHUNKS,
} from './payloads.js';
import { measureStreams } from './streams.js';

const HERE = fileURLToPath(new URL('../..', import.meta.url));
const sibling = (file: string): string => fileURLToPath(new URL(file, import.meta.url));
const ROOTS = (process.env.BENCH_KIND_ROOTS ?? HERE).split(',').map((r) => r.trim()).filter((r) => r !== '');
const STREAMS = Number(process.env.BENCH_STREAMS ?? 4000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const KINDS = [
  { name: 'chat', path: CHAT_PATH, body: STREAM_BODY, done: undefined },
  { name: 'responses', path: RESPONSES_PATH, body: RESPONSES_STREAM_BODY, done: RESPONSES_DONE },
  { name: 'messages', path: MESSAGES_PATH, body: MESSAGES_STREAM_BODY, done: MESSAGES_DONE },
] as const;

const log = (m: string): void => console.error(`[kinds] ${m}`);
const median = (a: readonly number[]): number => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

async function main(): Promise<void> {
  const mock = await startChild('mock', { args: [sibling('mock-server.js'), JSON.stringify({ kind: 'stream', chunks: STREAM_CHUNKS })], portFrom: plainPort });
  const gateways: GatewayTarget[] = [];
  // cpu[gateway][kind]: CPU a stream in each measured round.
  const cpu = ROOTS.map(() => KINDS.map(() => [] as number[]));
  try {
    for (const root of ROOTS) gateways.push(await startGateway(root, mkdtempSync(join(tmpdir(), 'gw-kinds-')), `${mock.origin}/v1`));
    for (let round = 0; round <= ROUNDS; round++) {
      log(round === 0 ? 'warm-up round' : `round ${round} of ${ROUNDS}`);
      // The gateways in turn, in the other order every other round.
      const order = gateways.map((_, i) => (round % 2 === 0 ? i : gateways.length - 1 - i));
      for (let k = 0; k < KINDS.length; k++) {
        for (const g of order) {
          const gw = gateways[g];
          const kind = KINDS[k];
          const r = await measureStreams({
            origin: gw.server.origin, path: kind.path, headers: requestHeaders(gw.apiKey), body: kind.body, concurrency: 10,
            streams: STREAMS, warmupMs: 300, done: kind.done, cpu: new CpuProbe(gw.server.pid, mock.pid),
          });
          if (r.failures > 0) throw new Error(`${ROOTS[g]} ${kind.name}: ${r.failures} streams failed`);
          if (round > 0 && r.cpu?.serverMain != null && r.cpu.serverOther != null) cpu[g][k].push(r.cpu.serverMain + r.cpu.serverOther);
        }
      }
    }
  } finally {
    await stopAllChildren();
  }
  console.log(`\nserver CPU a stream (main and other threads), µs, median of ${ROUNDS} rounds of ${STREAMS} streams; ratio to the same gateway's chat stream, per round`);
  for (let g = 0; g < ROOTS.length; g++) {
    if (ROOTS.length > 1) console.log(ROOTS[g]);
    for (let k = 0; k < KINDS.length; k++) {
      const ratios = cpu[g][k].map((v, i) => v / cpu[g][0][i]);
      console.log(`  ${KINDS[k].name.padEnd(10)} ${median(cpu[g][k]).toFixed(1).padStart(7)}  ${k === 0 ? '' : `${median(ratios).toFixed(2)}x (${Math.min(...ratios).toFixed(2)}x..${Math.max(...ratios).toFixed(2)}x)`}`);
    }
  }
}

await main();
