// `npm run soak`: the gateway under sustained load while its two providers misbehave at random
// (answers, 500s, resets, stalls, streams cut short), to show that nothing accumulates: memory
// levels off, sockets return to the pool, and every answer is a 200 or the documented 502.
// Not a speed figure. SOAK_ROUNDS (default 8) rounds of SOAK_ROUND_S (default 15) seconds.
import { readdirSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { startGateway } from '../test/support/gateway-process.js';
import { startMockProvider, type Behavior } from '../test/support/mock-provider.js';

const ROUNDS = Number(process.env.SOAK_ROUNDS ?? 8);
const ROUND_S = Number(process.env.SOAK_ROUND_S ?? 15);
const MODEL = 'llama-3.3-70b-instruct';
// Weighted towards success so that failover, not only all_routes_failed, is exercised.
const BEHAVIORS: Behavior[] = [
  { kind: 'ok' }, { kind: 'ok' }, { kind: 'ok' }, { kind: 'stream', chunks: 5 },
  { kind: 'status', status: 500 }, { kind: 'reset' }, { kind: 'stall' }, { kind: 'cut', afterChunks: 2 },
];

interface ProcessStat {
  rssMiB: number;
  fds: number;
}

function stat(pid: number): ProcessStat {
  const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return { rssMiB: Math.round(rssKiB / 1024), fds: readdirSync(`/proc/${pid}/fd`).length };
}

async function load(url: string, headers: Record<string, string>, body: string, connections: number,
  statuses: Map<number, number>): Promise<{ requests: number; errors: number; timeouts: number }> {
  const instance = autocannon({ url, method: 'POST', headers, body, connections, duration: ROUND_S, timeout: 10 });
  instance.on('response', (_client, status) => void statuses.set(status, (statuses.get(status) ?? 0) + 1));
  const r = await instance;
  return { requests: r.requests.total ?? 0, errors: r.errors, timeouts: r.timeouts };
}

async function main(): Promise<void> {
  const groq = await startMockProvider({ record: false });
  const together = await startMockProvider({ record: false });
  const gw = await startGateway({
    limits: { gatewayRpm: 1_000_000_000 },
    breaker: { resetTimeoutMs: 500, volumeThreshold: 20 },
    upstream: { headersTimeoutMs: 300, bodyTimeoutMs: 300 },
    providers: { groq: { baseUrl: groq.url, apiKey: 'k1' }, together: { baseUrl: together.url, apiKey: 'k2' } },
  });
  let failed = false;
  try {
    const { key } = await gw.orgAndKey({ credit: 10_000_000 });
    const pid = gw.proc.pid!;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const url = `${gw.url}/v1/chat/completions`;
    let n = 0;
    const chaos = setInterval(() => {
      groq.setDefault(BEHAVIORS[n % BEHAVIORS.length]);
      together.setDefault(BEHAVIORS[(n * 3 + 1) % BEHAVIORS.length]);
      n++;
    }, 50);
    const start = stat(pid);
    console.log(`start: RSS ${start.rssMiB} MiB, ${start.fds} fds`);
    const statuses = new Map<number, number>();
    const rss: number[] = [];
    let clientErrors = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const runs = await Promise.all([
        load(url, headers, JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }), 25, statuses),
        load(url, headers, JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'hi' }] }), 25, statuses),
      ]);
      await new Promise((r) => setTimeout(r, 1_000));
      const s = stat(pid);
      rss.push(s.rssMiB);
      const requests = runs[0].requests + runs[1].requests;
      clientErrors += runs[0].errors + runs[1].errors + runs[0].timeouts + runs[1].timeouts;
      console.log(`round ${round + 1}/${ROUNDS}: ${requests} requests, client errors ${runs[0].errors + runs[1].errors}, ` +
        `timeouts ${runs[0].timeouts + runs[1].timeouts}, RSS ${s.rssMiB} MiB, ${s.fds} fds`);
    }
    clearInterval(chaos);
    groq.setDefault({ kind: 'ok' });
    together.setDefault({ kind: 'ok' });
    // Longer than the pool's idle expiry would be needed to see sockets close; what matters is
    // that none is stuck: the gateway answers at once and holds no more than one pool's worth.
    await new Promise((r) => setTimeout(r, 1_500));
    const after = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }) });
    const end = stat(pid);
    const statusLine = [...statuses].sort((a, b) => a[0] - b[0]).map(([s, c]) => `${s}: ${c}`).join(', ');
    console.log(`statuses: ${statusLine}`);
    console.log(`after: ${after.status}, RSS ${end.rssMiB} MiB, ${end.fds} fds; RSS per round ${rss.join(' ')} MiB`);
    const unexpected = [...statuses.keys()].filter((s) => s !== 200 && s !== 502);
    const problems = [
      unexpected.length > 0 ? `unexpected statuses ${unexpected.join(', ')}` : '',
      clientErrors > 0 ? `${clientErrors} client errors or timeouts` : '',
      after.status !== 200 ? `answered ${after.status} after the chaos` : '',
      // Two pools of at most 128 sockets each, plus the process's own.
      end.fds > start.fds + 2 * 128 ? `${end.fds - start.fds} more fds than at start` : '',
      gw.lines.some((l) => l.includes('"level":"error"')) ? 'errors in the gateway log' : '',
    ].filter(Boolean);
    if (problems.length > 0) {
      failed = true;
      console.log(`FAIL: ${problems.join('; ')}`);
    } else {
      console.log('ok: only 200 and 502, no client errors, gateway healthy afterwards');
    }
  } finally {
    await gw.cleanup();
    await groq.close();
    await together.close();
  }
  process.exitCode = failed ? 1 : 0;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
