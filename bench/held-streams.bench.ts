// `node dist/bench/held-streams.bench.js`: what one held stream costs the gateway, to size
// upstream.connectionsPerOrigin (src/lib/stream-capacity.ts, docs/configuration.md). The mock
// provider sends each stream one chunk and holds it open, as a long generation does; the
// gateway's resident memory and open descriptors are read from /proc before and while
// BENCH_STREAMS (default 2000) streams are held. bench/slow-streams.bench.ts is the fuller
// scenario: chunks flowing, the default connection cap, nginx and the bare proxy beside it.
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request, type ClientRequest } from 'node:http';
import { startGateway } from '../test/support/gateway-process.js';
import { startMockProvider } from '../test/support/mock-provider.js';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 2000);
const WARMUP = 200;
const BATCH = 100;
const FIRST = 'data: {"id":"c","object":"chat.completion.chunk","created":0,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n';

function usage(pid: number): { rssKiB: number; fds: number } {
  const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return { rssKiB, fds: readdirSync(`/proc/${pid}/fd`).length };
}

const mock = await startMockProvider({ record: false });
mock.setDefault({ kind: 'parts', parts: [FIRST], hold: true });
const gw = await startGateway({
  logLevel: 'warn',
  providers: { openai: { baseUrl: mock.url, apiKey: 'sk-bench' } },
  upstream: { connectionsPerOrigin: STREAMS + WARMUP },
  limits: { gatewayRpm: 100_000_000 },
});
const { key } = await gw.orgAndKey({ credit: 1_000_000 });
const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true, max_tokens: 16 });
const url = new URL(`${gw.url}/v1/chat/completions`);

/** Opens one stream; resolves with its request once the first chunk is in. */
function hold(): Promise<ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
      res.once('data', () => resolve(req));
      res.on('error', () => {});
    });
    req.on('error', (e) => reject(e));
    req.end(body);
  });
}

async function holdMany(n: number): Promise<ClientRequest[]> {
  const out: ClientRequest[] = [];
  for (let i = 0; i < n; i += BATCH) out.push(...await Promise.all(Array.from({ length: Math.min(BATCH, n - i) }, hold)));
  return out;
}

async function release(reqs: ClientRequest[]): Promise<void> {
  for (const r of reqs) r.destroy();
  for (;;) {
    const load = ((await (await fetch(`${gw.url}/health`)).json()) as any).upstream;
    if (load.busy === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

try {
  const pid = gw.proc.pid!;
  // Warm-up: JIT, pools and buffers grow to their working size, then everything is let go.
  await release(await holdMany(WARMUP));
  (globalThis as { gc?: () => void }).gc?.();
  const before = usage(pid);
  const started = performance.now();
  const held = await holdMany(STREAMS);
  const opened = performance.now() - started;
  const during = usage(pid);
  await release(held);
  const rssPer = ((during.rssKiB - before.rssKiB) * 1024) / STREAMS;
  console.log(`held streams: ${STREAMS} (opened in ${Math.round(opened)} ms)`);
  console.log(`gateway RSS: ${Math.round(before.rssKiB / 1024)} MiB before, ${Math.round(during.rssKiB / 1024)} MiB while held: ` +
    `${(rssPer / 1024).toFixed(1)} KiB per held stream`);
  console.log(`gateway open descriptors: ${before.fds} before, ${during.fds} while held: ${((during.fds - before.fds) / STREAMS).toFixed(2)} per held stream`);
} finally {
  agent.destroy();
  await gw.cleanup();
  await mock.close();
}
