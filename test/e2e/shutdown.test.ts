import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent, request } from 'undici';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { balanceMismatches, errorOf, query } from '../support/ledger.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { bearer, chatBody } from '../support/wait.js';

let mock: MockProvider;
const gateways: GatewayProcess[] = [];

test.before(async () => {
  mock = await startMockProvider();
});
test.after(async () => {
  for (const gw of gateways) await gw.cleanup();
  await mock.close();
});
test.before.each(() => mock.reset());

async function gateway(config: Record<string, unknown> = {}): Promise<{ gw: GatewayProcess; key: string }> {
  const gw = await startGateway({ limits: { gatewayRpm: 100_000 }, providers: { groq: { baseUrl: mock.url, apiKey: 'k' } }, ...config });
  gateways.push(gw);
  const { key } = await gw.orgAndKey();
  return { gw, key };
}

interface Outcome {
  status: number;
  requestId: string | null;
  startedBeforeSignal: boolean;
  error?: string;
}

/**
 * `workers` clients, each sending one request after another until the gateway stops answering
 * (or `until` says stop). Errors end a worker; statuses and request ids are collected.
 */
async function load(url: string, key: string, workers: number, o: { dispatcher?: Agent; signalled: () => boolean; until?: () => boolean }): Promise<Outcome[]> {
  const out: Outcome[] = [];
  const body = chatBody();
  await Promise.all(Array.from({ length: workers }, async () => {
    while (!o.until?.()) {
      const startedBeforeSignal = !o.signalled();
      try {
        const r = await request(`${url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body, dispatcher: o.dispatcher });
        await r.body.arrayBuffer();
        out.push({ status: r.statusCode, requestId: (r.headers['x-gw-request-id'] as string | undefined) ?? null, startedBeforeSignal });
      } catch (e) {
        out.push({ status: 0, requestId: null, startedBeforeSignal, error: String(e) });
        return;
      }
    }
  }));
  return out;
}

function exitOf(gw: GatewayProcess): Promise<number | null> {
  return new Promise((resolve) => gw.proc.once('exit', (code) => resolve(code)));
}

/** Every served response has exactly its one billable row, and the ledger adds up. */
function assertLedgerMatches(gw: GatewayProcess, outcomes: Outcome[]): void {
  const served = outcomes.filter((o) => o.status === 200);
  const rows = query(gw.dbPath, (db) => db.prepare('SELECT request_id FROM usage WHERE billable = 1').pluck().all() as string[]);
  const ids = new Set(rows);
  assert.equal(served.filter((o) => !ids.has(o.requestId!)).map((o) => o.requestId), [], 'every served response is in the ledger');
  assert.is(rows.length, served.length, 'and nothing else is billed');
  assert.equal(query(gw.dbPath, balanceMismatches), []);
}

test('SIGTERM under load: requests in flight finish, the ledger drains, the process exits 0 and no record is lost', async () => {
  const { gw, key } = await gateway();
  mock.setDefault({ kind: 'ok', delayMs: 40 });
  // A new connection per request, like many independent clients: once the listener closes they are refused.
  const dispatcher = new Agent({ pipelining: 0 });
  let signalled = false;
  const exited = exitOf(gw);
  const running = load(gw.url, key, 16, { dispatcher, signalled: () => signalled });
  await mock.waitForRequests(150, 10_000);
  signalled = true;
  gw.proc.kill('SIGTERM');
  const outcomes = await running;
  assert.is(await exited, 0, 'a graceful stop exits 0');
  await dispatcher.close();

  // Refused cleanly = a refused connection (0) or, for a request that reached an already-open
  // connection after the signal, 503 with Connection: close; neither reached the upstream.
  assert.equal(outcomes.filter((o) => o.status !== 200 && o.status !== 0 && o.status !== 503).map((o) => o.status), [], 'no request failed half-way');
  const served = outcomes.filter((o) => o.status === 200).length;
  assert.ok(outcomes.filter((o) => o.startedBeforeSignal && o.status === 200).length >= 150);
  assert.is(served, mock.requests.length, 'every request that reached the upstream, before or after the signal, was answered');
  assert.equal(outcomes.filter((o) => o.status === 0 && !/ECONNREFUSED|ECONNRESET|closed/i.test(o.error!)).map((o) => o.error), [],
    'late clients were refused a connection');
  assertLedgerMatches(gw, outcomes);
});

test('SIGTERM under keep-alive load stops taking new requests on open connections and exits promptly, losing nothing', async () => {
  const { gw, key } = await gateway();
  mock.setDefault({ kind: 'ok', delayMs: 40 });
  const dispatcher = new Agent(); // keep-alive, as SDKs and proxies do
  let signalledAt = 0;
  const exited = exitOf(gw).then((code) => ({ code, afterMs: Date.now() - signalledAt }));
  // The clients give up 3 s after the signal whatever happens, so a gateway that never stops taking
  // requests fails this test in seconds rather than holding it until its own 30 s stop deadline.
  const running = load(gw.url, key, 16, { dispatcher, signalled: () => signalledAt > 0, until: () => signalledAt > 0 && Date.now() - signalledAt > 3_000 });
  await mock.waitForRequests(150, 10_000);
  signalledAt = Date.now();
  gw.proc.kill('SIGTERM');
  const outcomes = await running;
  const { code, afterMs } = await exited;
  await dispatcher.destroy();
  assert.is(code, 0);
  const lateServed = outcomes.filter((o) => !o.startedBeforeSignal && o.status === 200).length;
  assert.ok(afterMs < 2_000, `the stop took ${afterMs} ms; ${lateServed} requests sent after SIGTERM on open connections were still served`);
  assert.equal(outcomes.filter((o) => o.status === 502).length, 0, 'no request was cut off by the upstream pool closing under it');
  assert.is(outcomes.filter((o) => o.status === 200).length, mock.requests.length, 'every request that reached the upstream was answered');
  assertLedgerMatches(gw, outcomes);
});

test('kill -9 loses at most the unflushed batch and the batch in the writer; the database stays consistent', async () => {
  // Flushes happen only when 10 rows are buffered (flushMs is 10 s), and at most one batch may be
  // uncommitted before new requests are shed with 503: so what a SIGKILL can lose is bounded by
  // (served mod 10) buffered rows plus 10 × maxInFlight rows in the writer.
  const BATCH = 10;
  const MAX_IN_FLIGHT = 1;
  const { gw, key } = await gateway({ ledger: { batchSize: BATCH, flushMs: 10_000, maxInFlight: MAX_IN_FLIGHT } });
  const SERVED = 47;
  let served = 0;
  let shed = 0;
  while (served < SERVED) {
    const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody() });
    if (r.status === 200) {
      await r.arrayBuffer();
      served++;
      continue;
    }
    const e = await errorOf(r);
    assert.is(e.code, 'overloaded', 'the only refusal is the ledger backpressure');
    assert.is(e.retryAfter, 1);
    shed++;
  }
  assert.is(await gw.stop('SIGKILL'), null);
  const rows = query(gw.dbPath, (db) => db.prepare('SELECT COUNT(*) FROM usage').pluck().get() as number);
  const buffered = SERVED % BATCH;
  assert.is(rows % BATCH, 0, `batches commit whole or not at all (${rows} rows, ${shed} shed)`);
  assert.ok(rows <= SERVED - buffered, `the ${buffered} buffered rows were never written (${rows})`);
  assert.ok(rows >= SERVED - buffered - BATCH * MAX_IN_FLIGHT, `lost ${SERVED - rows}: more than the buffered rows and one batch`);

  await gw.restart();
  query(gw.dbPath, (db) => {
    assert.equal(balanceMismatches(db), [], 'what was committed was committed with its debits');
    const counted = db.prepare('SELECT COALESCE(SUM(requests), 0) FROM key_daily_counts').pluck().get();
    assert.is(counted, rows, 'daily counts match the rows that survived');
  });
  const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody() });
  assert.is(r.status, 200, 'the gateway starts and serves on the recovered database');
});

test.run();
