// Issue 14.22: requests past upstream.connectionsPerOrigin wait for a connection, but only
// within bounds (queue length, queue time); the wait is recorded in the ledger (queue_ms) and
// shown by GET /health, and a request past the bound gets 503 overloaded with retry-after.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { query, waitForValue } from '../support/ledger.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { bearer, chatBody, waitFor } from '../support/wait.js';

const CAP = 2;
// Long enough that the first test's queued request is not given up on while the test frees a connection.
const QUEUE_TIMEOUT_MS = 2_000;
const FIRST = 'data: {"id":"c","object":"chat.completion.chunk","created":0,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n';

let gw: GatewayProcess;
let mock: MockProvider;
let key: string;

test.before(async () => {
  mock = await startMockProvider();
  gw = await startGateway({
    providers: { openai: { baseUrl: mock.url, apiKey: 'sk-platform' } },
    upstream: { connectionsPerOrigin: CAP, maxQueuedPerOrigin: 1, queueTimeoutMs: QUEUE_TIMEOUT_MS },
    breaker: { volumeThreshold: 100_000 },
  });
  ({ key } = await gw.orgAndKey({ credit: 100 }));
  // Every stream sends one chunk and is then held open, as a long generation is.
  mock.setDefault({ kind: 'parts', parts: [FIRST], hold: true });
});
test.after(async () => {
  await gw.cleanup();
  await mock.close();
});

interface Held {
  res: Response;
  abort: AbortController;
}

/** A stream request; resolves once its answer's head is in. */
async function stream(): Promise<Held> {
  const abort = new AbortController();
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST', headers: bearer(key), body: chatBody({ model: 'gpt-4o-mini', stream: true }), signal: abort.signal,
  });
  return { res, abort };
}

const upstreamLoad = async () => ((await (await fetch(`${gw.url}/health`)).json()) as any).upstream;
const rowOf = (res: Response) => waitForValue(() => query(gw.dbPath, (db) =>
  db.prepare('SELECT * FROM usage WHERE request_id = ? ORDER BY attempt DESC').get(res.headers.get('x-gw-request-id'))) as any, 5_000, 'the row');

test('past the connection cap a request waits within bounds, the wait is recorded, and past the bound it gets 503 overloaded', async () => {
  const held = [await stream(), await stream()];
  for (const h of held) {
    assert.is(h.res.status, 200);
    await h.res.body!.getReader().read();
  }
  assert.equal(await upstreamLoad(), { connections_per_origin: CAP, open: CAP, busy: CAP, queued: 0, h2_sessions: 0, h2_streams: 0 });

  // The third waits for a connection, visibly.
  const waiting = stream();
  await waitFor(async () => (await upstreamLoad()).queued === 1, 5_000, 'the third request queued');

  // The queue holds one: the fourth is refused at once rather than waiting unseen.
  const refused = await stream();
  assert.is(refused.res.status, 503);
  assert.ok(Number(refused.res.headers.get('retry-after')) > 0, 'retry-after is set');
  const e = ((await refused.res.json()) as any).error;
  assert.equal([e.code, e.type], ['overloaded', 'server_error']);
  assert.match(e.message, /connections to the provider are all busy/);

  // A held stream ends: the waiting request gets its connection and records how long it waited.
  held[0].abort.abort();
  const third = await waiting;
  assert.is(third.res.status, 200);
  await third.res.body!.getReader().read();
  third.abort.abort();
  held[1].abort.abort();
  const row = await waitForValue(() => query(gw.dbPath, (db) => db.prepare('SELECT * FROM usage WHERE request_id = ? AND status = 499')
    .get(third.res.headers.get('x-gw-request-id'))) as any, 5_000, 'the third request\'s row');
  assert.ok(row.queue_ms > 0, `queue_ms ${row.queue_ms} > 0`);
  const refusedRow = await rowOf(refused.res);
  assert.equal([refusedRow.status, refusedRow.error_code], [503, 'upstream_saturated']);
});

test('a request that waits past upstream.queueTimeoutMs gets 503 overloaded with retry-after, with the wait in the ledger', async () => {
  const held = [await stream(), await stream()];
  for (const h of held) await h.res.body!.getReader().read();
  const started = performance.now();
  const late = await stream();
  const waitedMs = performance.now() - started;
  assert.is(late.res.status, 503);
  assert.ok(Number(late.res.headers.get('retry-after')) > 0, 'retry-after is set');
  assert.is(((await late.res.json()) as any).error.code, 'overloaded');
  assert.ok(waitedMs >= QUEUE_TIMEOUT_MS, `answered after ${waitedMs} ms, not before the bound`);
  const row = await rowOf(late.res);
  assert.equal([row.status, row.error_code], [503, 'upstream_saturated']);
  assert.ok(row.queue_ms >= QUEUE_TIMEOUT_MS, `queue_ms ${row.queue_ms} >= ${QUEUE_TIMEOUT_MS}`);
  for (const h of held) h.abort.abort();
  await waitFor(async () => (await upstreamLoad()).busy === 0, 5_000, 'the held streams released');
  // The route was never at fault: its circuit stays closed and the next request is served.
  mock.enqueue({ kind: 'ok' });
  const ok = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody({ model: 'gpt-4o-mini' }) });
  assert.is(ok.status, 200);
  const row200 = await rowOf(ok);
  assert.is(row200.queue_ms, 0, 'a request that found a free connection waited 0 ms');
});

test.run();
