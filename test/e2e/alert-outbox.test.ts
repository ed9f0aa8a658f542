// Alert deliveries live in the database until made: a delivery waiting for its retry when the
// gateway stops is made after the next start, once, and an alert's changes arrive in order.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { query, waitForValue } from '../support/ledger.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { signIn, type Browser } from '../support/session.js';

let gw: GatewayProcess;
let groq: MockProvider;
let hook: Server;
let hookUrl: string;
/** Statuses the receiver answers with, one per delivery, then 200. */
const answers: number[] = [];
const received: { state: string; status: number }[] = [];
let owner: Browser;

const json = async (r: Response) => (await r.json()) as any;
const queued = () => query(gw.dbPath, (db) => db.prepare('SELECT state, attempts, last_error FROM alert_deliveries ORDER BY id').all()) as any[];

test.before(async () => {
  groq = await startMockProvider();
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const status = answers.shift() ?? 200;
      received.push({ state: JSON.parse(body).state, status });
      res.statusCode = status;
      res.end();
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/alerts`;
  // Retries wait 1.5 s, 7.5 s, …: long enough to stop the gateway in between.
  gw = await startGateway({
    monitoring: { allowInternalWebhooks: true, retryBaseMs: 1_500, minCheckIntervalMs: 0 },
    providers: { groq: { baseUrl: groq.url, apiKey: 'g' } },
  });
  owner = await signIn(gw, 'owner@outbox.example');
});
test.after(async () => {
  await gw.cleanup();
  await groq.close();
  await new Promise((r) => hook.close(r));
});

test('a delivery waiting for its retry survives a restart and is made once, in order with the next change', async () => {
  const c = await json(await owner.send('POST', '/me/collections', { name: 'outboxed', model: 'llama-3.3-70b-instruct', steps: [{ provider: 'groq' }] }));
  const alert = await json(await owner.send('POST', `/me/collections/${c.slug}/alerts`,
    { metric: 'error_rate', threshold: 0.5, window_minutes: 60, target: { webhook: hookUrl } }));
  answers.push(503);
  groq.enqueue({ kind: 'status', status: 500 });
  assert.is((await owner.send('POST', `/me/collections/${c.slug}/check`)).status, 200);
  const [row] = await waitForValue(() => { const q = queued(); return q.length === 1 && q[0].attempts === 1 && q; }, 5_000, 'the retry queued');
  assert.equal([row.state, row.last_error], ['firing', '503']);

  await gw.stop();
  assert.is(queued().length, 1, 'still queued while the gateway is down');
  await gw.restart();
  owner = await signIn(gw, 'owner@outbox.example');

  // Healthy canaries bring the error rate back under 50%: the resolved change queues behind the firing one.
  for (let i = 0; i < 2; i++) assert.is((await owner.send('POST', `/me/collections/${c.slug}/check`)).status, 200);
  await waitForValue(() => received.length >= 3, 10_000, 'the resumed delivery and the next change');
  assert.equal(received, [{ state: 'firing', status: 503 }, { state: 'firing', status: 200 }, { state: 'resolved', status: 200 }]);
  // The receiver has the last delivery before the gateway has its answer and clears the row.
  await waitForValue(() => queued().length === 0, 5_000, 'the outbox emptied');
  assert.equal(queued(), []);
  const a = (await json(await owner.get(`/me/collections/${c.slug}/alerts`))).data.find((x: any) => x.id === alert.id);
  assert.is(a.last_delivery, 'resolved delivered: 200');
});

test.run();
