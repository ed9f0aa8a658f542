// Reliability monitoring (spec 4.10): canaries of a collection's steps, health over a window,
// scheduled checks of monitored collections, and alerts delivered to a real webhook receiver.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { waitForValue } from '../support/ledger.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { signIn, type Browser } from '../support/session.js';

let gw: GatewayProcess;
let groq: MockProvider;
let together: MockProvider;
let hook: Server;
let hookUrl: string;
const delivered: any[] = [];
let owner: Browser;
let slug: string;

const json = async (r: Response) => (await r.json()) as any;
const check = async () => {
  const r = await owner.send('POST', `/me/collections/${slug}/check`);
  assert.is(r.status, 200);
  return json(r);
};

test.before(async () => {
  [groq, together] = await Promise.all([startMockProvider(), startMockProvider()]);
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      delivered.push(JSON.parse(body));
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/alerts`;
  gw = await startGateway({
    monitoring: { intervalMs: 1_000, allowInternalWebhooks: true },
    providers: { groq: { baseUrl: groq.url, apiKey: 'g' }, together: { baseUrl: together.url, apiKey: 't' } },
  });
  owner = await signIn(gw, 'owner@monitoring.example');
  const c = await json(await owner.send('POST', '/me/collections', {
    name: 'watched', model: 'llama-3.3-70b-instruct', steps: [{ provider: 'groq' }, { provider: 'together' }],
  }));
  slug = c.slug;
});
test.after(async () => {
  await gw.cleanup();
  await Promise.all([groq.close(), together.close(), new Promise((r) => hook.close(r))]);
});

test('a check canaries every step once, on the platform keys, and reports per-step health', async () => {
  const h = await check();
  assert.equal([h.slug, h.monitored, h.days, h.canaries, h.error_rate], [slug, false, 7, 2, 0]);
  assert.equal(h.steps.map((s: any) => [s.provider, s.canaries, s.uptime, s.last_canary.ok]), [['groq', 1, 1, true], ['together', 1, 1, true]]);
  assert.ok(h.steps[0].p95_latency_ms > 0);
  assert.equal([groq.requests[0].body.max_tokens, groq.requests[0].body.model, groq.requests[0].headers.authorization],
    [1, 'llama-3.3-70b-versatile', 'Bearer g']);

  together.enqueue({ kind: 'status', status: 500 });
  const after = await check();
  const t = after.steps.find((s: any) => s.provider === 'together');
  assert.equal([t.canaries, t.uptime, t.last_canary.ok], [2, 0.5, false]);
  assert.match(t.last_canary.error, /upstream 500/);
  assert.is(after.error_rate, 0.25);
  const narrow = await json(await owner.get(`/me/collections/${slug}/health?days=1`));
  assert.is(narrow.canaries, 4);
});

test('an alert fires to its webhook when the error rate crosses its threshold, and resolves when it falls back', async () => {
  const created = await owner.send('POST', `/me/collections/${slug}/alerts`, { metric: 'error_rate', threshold: 0.3, target: { webhook: hookUrl } });
  assert.is(created.status, 201);
  const alert = await json(created);
  assert.equal([alert.metric, alert.threshold, alert.target, alert.firing], ['error_rate', 0.3, { webhook: hookUrl }, false]);

  together.enqueue({ kind: 'status', status: 500 }, { kind: 'status', status: 500 });
  groq.enqueue({ kind: 'status', status: 503 });
  await check(); // 4 of 6 canaries in the window have failed now
  await waitForValue(() => delivered.length >= 1, 5_000, 'the firing delivery');
  assert.equal([delivered[0].type, delivered[0].state, delivered[0].metric, delivered[0].collection.slug], ['gw.alert', 'firing', 'error_rate', slug]);
  assert.ok(delivered[0].value > 0.3);
  const listed = (await json(await owner.get(`/me/collections/${slug}/alerts`))).data[0];
  assert.equal([listed.firing, listed.last_delivery], [true, 'firing delivered: 200']);

  for (let i = 0; i < 6; i++) await check(); // healthy canaries dilute the failures below 30%
  await waitForValue(() => delivered.length >= 2, 5_000, 'the resolved delivery');
  assert.is(delivered[1].state, 'resolved');
  assert.is(delivered.length, 2, 'each change is delivered once');
  const gone = await owner.send('DELETE', `/me/collections/${slug}/alerts/${alert.id}`);
  assert.equal(await json(gone), { id: alert.id, deleted: true });
});

test('a monitored collection is canaried on schedule without anyone asking', async () => {
  const before = (await json(await owner.get(`/me/collections/${slug}/health`))).canaries;
  groq.reset();
  together.reset();
  assert.equal(await json(await owner.send('POST', `/me/collections/${slug}/monitor`, { monitored: true })), { slug, monitored: true });
  await waitForValue(() => groq.requests.length > 0 && together.requests.length > 0, 5_000, 'a scheduled canary');
  const h = await json(await owner.get(`/me/collections/${slug}/health`));
  assert.ok(h.canaries > before && h.monitored);
  await owner.send('POST', `/me/collections/${slug}/monitor`, { monitored: false });
});

test('bad requests: email targets, thresholds, windows and other orgs\' collections', async () => {
  const bad = async (r: Response) => [r.status, (await json(r)).error.code];
  assert.equal(await bad(await owner.send('POST', `/me/collections/${slug}/alerts`, { metric: 'error_rate', threshold: 0.5, target: { email: 'a@b.example' } })),
    [400, 'unavailable']);
  assert.equal(await bad(await owner.send('POST', `/me/collections/${slug}/alerts`, { metric: 'error_rate', threshold: 2, target: { webhook: hookUrl } })),
    [400, 'bad_request']);
  assert.equal(await bad(await owner.send('POST', `/me/collections/${slug}/alerts`, { metric: 'latency_p95', threshold: 100, target: {} })),
    [400, 'bad_request']);
  assert.equal(await bad(await owner.send('POST', `/me/collections/${slug}/alerts`, { metric: 'uptime', threshold: 1, target: { webhook: hookUrl } })),
    [400, 'bad_request']);
  for (const q of ['days=0', 'days=91', 'days=x', 'weeks=1']) assert.equal(await bad(await owner.get(`/me/collections/${slug}/health?${q}`)), [400, 'bad_request'], q);
  const other = await signIn(gw, 'other@monitoring.example');
  for (const [method, path] of [['POST', `/me/collections/${slug}/check`], ['GET', `/me/collections/${slug}/health`],
    ['POST', `/me/collections/${slug}/monitor`], ['GET', `/me/collections/${slug}/alerts`]] as const) {
    const r = method === 'GET' ? await other.get(path) : await other.send(method, path, path.endsWith('monitor') ? { monitored: true } : undefined);
    assert.equal(await bad(r), [404, 'not_found'], path);
  }
});

test.run();
