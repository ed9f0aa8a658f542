import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { balanceMismatches, costOf, errorOf, GROQ, query, waitForValue } from '../support/ledger.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { bearer, chatBody } from '../support/wait.js';

/** llama-3.3-70b-instruct's context window in the catalog. */
const CONTEXT = 131_072;
/** Tokens a prompt may have beyond its body's bytes (src/billing/usage-bounds.ts). */
const ALLOWANCE = 1024;
const HUGE = { prompt_tokens: 1e15, completion_tokens: 1e15 };

let gw: GatewayProcess;
let mock: MockProvider;
let orgId: string;
let key: string;

test.before(async () => {
  mock = await startMockProvider();
  gw = await startGateway({ providers: { groq: { baseUrl: mock.url, apiKey: 'k' } } });
  ({ orgId, key } = await gw.orgAndKey({ credit: 1000 }));
});
test.after(async () => {
  await gw.cleanup();
  await mock.close();
});
test.before.each(() => mock.reset());

const chat = (body: string, k = key) => fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(k), body });

interface Row { prompt_tokens: number; completion_tokens: number; cost_micros: number; usage_clamped: number }

function row(requestId: string): Promise<Row> {
  return waitForValue(() => query(gw.dbPath, (db) => db.prepare(
    'SELECT prompt_tokens, completion_tokens, cost_micros, usage_clamped FROM usage WHERE request_id = ? AND billable = 1').get(requestId) as Row | undefined),
  5_000, `the ledger row of ${requestId}`);
}

const balance = () => query(gw.dbPath, (db) => db.prepare('SELECT balance_micros FROM orgs WHERE id = ?').pluck().get(orgId) as number);

test('a provider reporting 1e15 tokens is billed at the bounds (prompt: body bytes plus allowance; output: max_tokens), flagged and logged', async () => {
  const body = chatBody({ max_tokens: 50 });
  const before = balance();
  mock.enqueue({ kind: 'ok', usage: HUGE });
  const r = await chat(body);
  assert.is(r.status, 200);
  await r.arrayBuffer();
  const got = await row(r.headers.get('x-gw-request-id')!);
  const prompt = Buffer.byteLength(body) + ALLOWANCE;
  assert.equal(got, { prompt_tokens: prompt, completion_tokens: 50, cost_micros: costOf(GROQ, prompt, 50), usage_clamped: 1 });
  await waitForValue(() => balance() === before - got.cost_micros, 5_000, 'the debit');
  assert.ok(Number.isSafeInteger(balance()));
  assert.equal(query(gw.dbPath, balanceMismatches), []);
  assert.ok(gw.lines.some((l) => l.includes('billed at the bounds') && l.includes('1000000000000000')), 'the clamp is logged');

  // Usage within the bounds is billed as reported and not flagged.
  const plain = await chat(body);
  await plain.arrayBuffer();
  const ok = await row(plain.headers.get('x-gw-request-id')!);
  assert.equal(ok, { prompt_tokens: 11, completion_tokens: 7, cost_micros: costOf(GROQ, 11, 7), usage_clamped: 0 });
});

test('a stream reporting 1e15 tokens without max_tokens is billed at the context window', async () => {
  const body = chatBody({ stream: true, stream_options: { include_usage: true } });
  mock.enqueue({ kind: 'stream', usage: HUGE });
  const r = await chat(body);
  assert.is(r.status, 200);
  await r.text();
  const got = await row(r.headers.get('x-gw-request-id')!);
  const prompt = Buffer.byteLength(body) + ALLOWANCE;
  assert.equal(got, { prompt_tokens: prompt, completion_tokens: CONTEXT, cost_micros: costOf(GROQ, prompt, CONTEXT), usage_clamped: 1 });
});

test('a prompt with an image part may use the whole context window, since a short URL can stand for many tokens', async () => {
  const body = JSON.stringify({
    model: 'llama-3.3-70b-instruct', max_tokens: 10,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }],
  });
  mock.enqueue({ kind: 'ok', usage: { prompt_tokens: 5_000, completion_tokens: 3 } }, { kind: 'ok', usage: HUGE });
  const fine = await chat(body);
  await fine.arrayBuffer();
  assert.equal(await row(fine.headers.get('x-gw-request-id')!),
    { prompt_tokens: 5_000, completion_tokens: 3, cost_micros: costOf(GROQ, 5_000, 3), usage_clamped: 0 });
  const huge = await chat(body);
  await huge.arrayBuffer();
  assert.equal(await row(huge.headers.get('x-gw-request-id')!),
    { prompt_tokens: CONTEXT, completion_tokens: 10, cost_micros: costOf(GROQ, CONTEXT, 10), usage_clamped: 1 });
});

test('a ₹5 budget under inflated usage stops within one bounded request of ₹5', async () => {
  const k = await gw.orgAndKey({ credit: 1000, name: 'budgeted', keyArgs: ['--budget-inr', '5'] });
  const body = chatBody({ max_tokens: 4000 });
  const perRequest = costOf(GROQ, Buffer.byteLength(body) + ALLOWANCE, 4000);
  mock.setDefault({ kind: 'ok', usage: HUGE });
  let served = 0;
  for (;;) {
    const r = await chat(body, k.key);
    if (r.status !== 200) {
      assert.is((await errorOf(r)).code, 'budget_exceeded');
      break;
    }
    await r.arrayBuffer();
    served++;
    assert.ok(served < 100, 'the budget stops it');
  }
  const spent = await waitForValue(() => query(gw.dbPath, (db) => {
    const s = db.prepare('SELECT COUNT(*) AS n, SUM(cost_micros) AS cost FROM usage WHERE key_id = ? AND billable = 1').get(k.keyId) as { n: number; cost: number };
    return s.n === served && s.cost;
  }), 5_000, 'every served request in the ledger');
  assert.is(spent, served * perRequest);
  assert.ok(spent >= 5_000_000 && spent < 5_000_000 + perRequest, `spent ${spent} micro-rupees of a ₹5 budget`);
});

test('a max_tokens of 1e15 holds no more than the context window allows, so the org can still serve another request meanwhile', async () => {
  const o = await gw.orgAndKey({ credit: 100, name: 'small' });
  mock.enqueue({ kind: 'ok', delayMs: 500 }, { kind: 'ok' });
  const first = chat(chatBody({ max_tokens: 1e15 }), o.key);
  await mock.waitForRequests(1, 5_000);
  const second = await chat(chatBody(), o.key);
  assert.is(second.status, 200, 'the first request\'s hold did not take the whole balance');
  await second.arrayBuffer();
  const r = await first;
  assert.is(r.status, 200);
  await r.arrayBuffer();
  await waitForValue(() => query(gw.dbPath, (db) =>
    db.prepare('SELECT balance_micros FROM orgs WHERE id = ?').pluck().get(o.orgId) === 100_000_000 - 2 * costOf(GROQ, 11, 7)), 5_000, 'both debits');
});

test.run();
