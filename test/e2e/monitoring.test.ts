// Reliability monitoring (spec 4.10): canaries of a collection's steps, health over a window,
// scheduled checks of monitored collections, and alerts delivered to a real webhook receiver.
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { waitForValue } from '../support/ledger.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { signIn, type Browser } from '../support/session.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';

let gw: GatewayProcess;
let groq: MockProvider;
let together: MockProvider;
let hook: Server;
let hookUrl: string;
let smtp: SmtpReceiver;
/** Each delivery as received: the parsed body, the raw bytes, and the signature header. */
const delivered: any[] = [];
const received: { raw: string; signature: string }[] = [];
/** Statuses the receiver answers with, one per delivery, then 200. */
const answers: number[] = [];
let owner: Browser;
let slug: string;

/** Long enough, and of no known key shape, that only the exact scrub finds it. */
const TOGETHER_KEY = 'together-platform-4Rt8Yw2Qz6';
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
      received.push({ raw: body, signature: String(req.headers['x-gw-signature']) });
      const status = answers.shift() ?? 200;
      if (status === 200) delivered.push(JSON.parse(body));
      res.statusCode = status;
      res.end('ok');
    });
  });
  smtp = await startSmtpReceiver();
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/alerts`;
  gw = await startGateway({
    monitoring: { intervalMs: 1_000, allowInternalWebhooks: true, retryBaseMs: 50, minCheckIntervalMs: 0, maxAlertsPerCollection: 2 },
    smtp: { host: '127.0.0.1', port: smtp.port, from: 'alerts@gw.example' },
    providers: { groq: { baseUrl: groq.url, apiKey: 'g' }, together: { baseUrl: together.url, apiKey: TOGETHER_KEY } },
  });
  owner = await signIn(gw, 'owner@monitoring.example');
  const c = await json(await owner.send('POST', '/me/collections', {
    name: 'watched', model: 'llama-3.3-70b-instruct', steps: [{ provider: 'groq' }, { provider: 'together' }],
  }));
  slug = c.slug;
});
test.after(async () => {
  await gw.cleanup();
  await Promise.all([groq.close(), together.close(), new Promise((r) => hook.close(r)), smtp.close()]);
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

test('health has a bucket per IST day of the window, oldest first, so charts have a time axis', async () => {
  const istDay = (ms: number) => new Date(ms + 5.5 * 3_600_000).toISOString().slice(0, 10);
  for (const days of [1, 7, 90]) {
    const before = Date.now();
    const h = await json(await owner.get(`/me/collections/${slug}/health?days=${days}`));
    const after = Date.now();
    for (const s of h.steps) {
      const labels = s.daily.map((d: any) => d.day);
      assert.ok(labels.length === days + 1 || labels.length === days, `${days} days: ${labels.length} buckets`);
      assert.ok([istDay(before - days * 86_400_000), istDay(after - days * 86_400_000)].includes(labels[0]), labels[0]);
      assert.ok([istDay(before), istDay(after)].includes(labels.at(-1)), labels.at(-1));
      assert.equal(labels, [...labels].sort(), 'oldest first');
      assert.is(new Set(labels).size, labels.length, 'one bucket a day');
      assert.is(s.daily.reduce((n: number, d: any) => n + d.canaries, 0), s.canaries, 'the buckets hold every canary of the window');
    }
  }
  // The first test's canaries all fell today: together answered 1 of 2, groq 2 of 2.
  const h = await json(await owner.get(`/me/collections/${slug}/health?days=7`));
  const today = (p: string) => h.steps.find((s: any) => s.provider === p).daily.at(-1);
  assert.equal([today('together').canaries, today('together').uptime], [2, 0.5]);
  assert.equal([today('groq').canaries, today('groq').uptime], [2, 1]);
  assert.ok(today('groq').p95_latency_ms > 0);
  const empty = h.steps[0].daily[0];
  assert.equal([empty.canaries, empty.uptime, empty.p95_latency_ms], [0, null, null], 'a day without canaries');
});

test('an alert fires to its webhook, signed and retried, when the error rate crosses its threshold, and resolves when it falls back', async () => {
  const created = await owner.send('POST', `/me/collections/${slug}/alerts`,
    { metric: 'error_rate', threshold: 0.3, window_minutes: 60, target: { webhook: hookUrl } });
  assert.is(created.status, 201);
  const alert = await json(created);
  assert.equal([alert.metric, alert.threshold, alert.window_minutes, alert.target, alert.firing], ['error_rate', 0.3, 60, { webhook: hookUrl }, false]);
  assert.match(alert.secret, /^whsec_/);
  assert.not.ok('secret' in (await json(await owner.get(`/me/collections/${slug}/alerts`))).data[0], 'the secret is shown once');

  together.enqueue({ kind: 'status', status: 500 }, { kind: 'status', status: 500 });
  groq.enqueue({ kind: 'status', status: 503 });
  answers.push(500); // the first delivery fails and is retried
  await check(); // 4 of 6 canaries in the window have failed now
  await waitForValue(() => delivered.length >= 1, 5_000, 'the firing delivery');
  assert.equal([delivered[0].type, delivered[0].state, delivered[0].metric, delivered[0].collection.slug], ['gw.alert', 'firing', 'error_rate', slug]);
  assert.ok(delivered[0].value > 0.3);
  assert.is(received.length, 2, 'one retry after the 500');
  for (const r of received) assert.is(r.signature, `sha256=${createHmac('sha256', alert.secret).update(r.raw).digest('hex')}`);
  await waitForValue(async () => {
    const a = (await json(await owner.get(`/me/collections/${slug}/alerts`))).data[0];
    return a.firing && a.last_delivery === 'firing delivered: 200 (attempt 2)';
  }, 5_000, 'the recorded delivery');

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

test('email alerts go through the SMTP relay', async () => {
  const created = await json(await owner.send('POST', `/me/collections/${slug}/alerts`,
    { metric: 'error_rate', threshold: 0.05, window_minutes: 1, target: { email: 'oncall@team.example' } }));
  assert.equal([created.target, created.secret], [{ email: 'oncall@team.example' }, null]);
  together.enqueue({ kind: 'status', status: 500 });
  groq.enqueue({ kind: 'status', status: 500 });
  await check(); // the window's failures are now well above 5%
  const mail = await waitForValue(() => smtp.raw.find((m) => m.includes('oncall@team.example')), 5_000, 'the alert mail');
  assert.match(mail, /Subject: \[gw\] watched: error_rate firing/);
  assert.match(mail, /From: alerts@gw\.example/);
  assert.match(mail, /"state": "firing"/);
  await owner.send('DELETE', `/me/collections/${slug}/alerts/${created.id}`);
});

test('bad requests: email without a relay, internal webhook addresses, thresholds, windows and other orgs\' collections', async () => {
  const bad = async (r: Response) => [r.status, (await json(r)).error.code];
  const plain = await startGateway();
  try {
    const b = await signIn(plain, 'relayless@monitoring.example');
    const c = await json(await b.send('POST', '/me/collections', { name: 'x', model: 'sandbox/echo', steps: [{}] }));
    assert.equal(await bad(await b.send('POST', `/me/collections/${c.slug}/alerts`, { metric: 'error_rate', threshold: 0.5, target: { email: 'a@b.example' } })),
      [400, 'unavailable']);
    // The webhook guard: internal addresses, also carried inside IPv6 forms (NAT64, IPv4-compatible, 6to4, Teredo).
    for (const webhook of ['http://169.254.169.254/hook', 'http://[64:ff9b::a9fe:a9fe]/hook', 'http://[::127.0.0.1]/hook',
      'http://[2002:7f00:1::]/hook', 'http://[2001:0:808:808::5601:5601]/hook']) {
      const r = await b.send('POST', `/me/collections/${c.slug}/alerts`, { metric: 'error_rate', threshold: 0.5, target: { webhook } });
      const e = (await json(r)).error;
      assert.equal([r.status, e.code], [400, 'bad_request'], webhook);
      assert.match(e.message, /internal address/, webhook);
    }
    // On a default gateway a collection is checked on request at most every 10 s.
    assert.is((await b.send('POST', `/me/collections/${c.slug}/check`)).status, 200);
    const again = await b.send('POST', `/me/collections/${c.slug}/check`);
    assert.equal(await bad(again), [429, 'rate_limit_exceeded']);
    assert.ok(Number(again.headers.get('retry-after')) >= 1);
  } finally {
    await plain.cleanup();
  }
  assert.equal(await bad(await owner.send('POST', `/me/collections/${slug}/alerts`, { metric: 'error_rate', threshold: 0.5, target: { email: 'not-an-address' } })),
    [400, 'bad_request']);
  assert.equal(await bad(await owner.send('POST', `/me/collections/${slug}/alerts`, { metric: 'error_rate', threshold: 0.5, window_minutes: 0, target: { webhook: hookUrl } })),
    [400, 'bad_request']);
  assert.equal(await bad(await owner.send('POST', `/me/collections/${slug}/alerts`, { metric: 'error_rate', threshold: 2, target: { webhook: hookUrl } })),
    [400, 'bad_request']);
  assert.equal(await bad(await owner.send('POST', `/me/collections/${slug}/alerts`, { metric: 'latency_p95', threshold: 100, target: {} })),
    [400, 'bad_request']);
  assert.equal(await bad(await owner.send('POST', `/me/collections/${slug}/alerts`, { metric: 'uptime', threshold: 1, target: { webhook: hookUrl } })),
    [400, 'bad_request']);
  const kept = [];
  for (let i = 0; i < 2; i++) {
    kept.push(await json(await owner.send('POST', `/me/collections/${slug}/alerts`, { metric: 'latency_p95', threshold: 60_000, target: { webhook: hookUrl } })));
  }
  assert.equal(await bad(await owner.send('POST', `/me/collections/${slug}/alerts`, { metric: 'latency_p95', threshold: 60_000, target: { webhook: hookUrl } })),
    [400, 'cap']);
  for (const a of kept) await owner.send('DELETE', `/me/collections/${slug}/alerts/${a.id}`);
  for (const q of ['days=0', 'days=91', 'days=x', 'weeks=1']) assert.equal(await bad(await owner.get(`/me/collections/${slug}/health?${q}`)), [400, 'bad_request'], q);
  const other = await signIn(gw, 'other@monitoring.example');
  for (const [method, path] of [['POST', `/me/collections/${slug}/check`], ['GET', `/me/collections/${slug}/health`],
    ['POST', `/me/collections/${slug}/monitor`], ['GET', `/me/collections/${slug}/alerts`]] as const) {
    const r = method === 'GET' ? await other.get(path) : await other.send(method, path, path.endsWith('monitor') ? { monitored: true } : undefined);
    assert.equal(await bad(r), [404, 'not_found'], path);
  }
});

test('a canary\'s error never shows the platform key a provider echoed back', async () => {
  together.setDefault({ kind: 'echo-auth', status: 401 });
  try {
    const h = await check();
    const t = h.steps.find((s: any) => s.provider === 'together');
    assert.is(t.last_canary.ok, false);
    assert.match(t.last_canary.error, /upstream 401: .*Invalid API key: Bearer \[redacted\]/);
    assert.not.ok(JSON.stringify(h).includes(TOGETHER_KEY.slice(0, 12)));
  } finally {
    together.setDefault({ kind: 'ok' });
  }
});

test.run();
