import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { balanceMismatches, costOf, errorOf, GROQ, holdOf, query, waitForValue, write } from '../support/ledger.js';
import { startMockProvider, type Behavior, type MockProvider } from '../support/mock-provider.js';
import { bearer, chatBody, waitFor } from '../support/wait.js';
import { istMonth, nextIstMonthStart } from '../../src/lib/ist.js';

const POLL_MS = 200;
/** The mock's default answer: 11 prompt and 7 completion tokens on groq. */
const DEFAULT_COST = costOf(GROQ, 11, 7);
let gw: GatewayProcess;
let mock: MockProvider;
let funded: string;

test.before(async () => {
  mock = await startMockProvider();
  gw = await startGateway({
    changePollMs: POLL_MS,
    // The concurrency tests send 200 requests on one key inside a second.
    limits: { gatewayRpm: 10_000 },
    providers: { groq: { baseUrl: mock.url, apiKey: 'k' } },
  });
  funded = (await gw.cli('org', 'create', 'funded', '--credit', '1000')).id;
});
test.after(async () => {
  await gw.cleanup();
  await mock.close();
});
test.before.each(() => mock.reset());

async function newKey(orgId: string, ...args: string[]): Promise<{ key: string; keyId: string }> {
  const k = await gw.cli('key', 'create', '--org', orgId, '--name', `k${Math.random().toString(36).slice(2, 8)}`, ...args);
  return { key: k.key, keyId: k.id };
}

const chat = (key: string, body = chatBody()) => fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body });

async function status(res: Promise<Response>): Promise<number> {
  const r = await res;
  await r.arrayBuffer();
  return r.status;
}

const toMonth = () => Math.ceil((nextIstMonthStart(Date.now()) - Date.now()) / 1000);

async function budgetRefusal(res: Response, which: RegExp) {
  assert.is(res.status, 429);
  const e = await errorOf(res);
  assert.is(e.code, 'budget_exceeded');
  assert.is(e.type, 'rate_limit_error');
  assert.match(e.message, which);
  assert.ok(Math.abs(e.retryAfter - toMonth()) <= 2, `retry-after ${e.retryAfter}; the next IST month is ${toMonth()} s away`);
  return e;
}

const month = () => istMonth(Date.now());
const spentBy = (scope: string) => query(gw.dbPath, (db) =>
  (db.prepare('SELECT spent_micros FROM monthly_spend WHERE scope_id = ? AND ist_month = ?').pluck().get(scope, month()) as number | undefined) ?? 0);
const billableSum = (keyId: string) => query(gw.dbPath, (db) =>
  db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(cost_micros), 0) AS cost FROM usage WHERE key_id = ? AND billable = 1').get(keyId) as { n: number; cost: number });

test('a key monthly budget refuses the request after it is spent, until the next IST month', async () => {
  const { key, keyId } = await newKey(funded, '--budget-inr', '0.002');
  assert.is(await status(chat(key)), 200);
  assert.is(await status(chat(key)), 200, `${DEFAULT_COST} spent of 2 000 micro-rupees`);
  await budgetRefusal(await chat(key), /key's monthly budget/);
  await budgetRefusal(await chat(key, chatBody({ stream: true })), /key's monthly budget/);
  assert.is(mock.requests.length, 2, 'refused requests never reach the upstream');
  await waitFor(() => spentBy(keyId) === 2 * DEFAULT_COST, 5_000, 'the spend in the ledger');
});

test('a standard key whose org balance is used up gets 402 insufficient_credits until a credit arrives', async () => {
  const org = await gw.cli('org', 'create', 'tiny', '--credit', '0.001');
  const { key } = await newKey(org.id);
  assert.ok(key.startsWith('gw-') && !key.startsWith('gw-trial-'), 'funded: a standard key');
  assert.is(await status(chat(key)), 200, 'a positive balance admits one request, which may overshoot it');
  const r = await chat(key);
  assert.is(r.status, 402);
  const e = await errorOf(r);
  assert.is(e.code, 'insufficient_credits');
  await waitFor(() => query(gw.dbPath, (db) => db.prepare('SELECT balance_micros FROM orgs WHERE id = ?').pluck().get(org.id)) === 1_000 - DEFAULT_COST,
    5_000, 'the debit');
  await gw.cli('org', 'credit', org.id, '1');
  const after = Date.now();
  await waitFor(async () => (await status(chat(key))) === 200, POLL_MS + 1_000, 'the credit to reach the gateway');
  assert.ok(Date.now() - after <= POLL_MS + 1_000);
  await waitFor(() => query(gw.dbPath, (db) => balanceMismatches(db).length === 0 &&
    db.prepare('SELECT balance_micros FROM orgs WHERE id = ?').pluck().get(org.id) === 1_001_000 - 2 * DEFAULT_COST), 5_000, 'a consistent balance');
});

test('a workspace budget is shared by the keys in it and follows changes made in the database', async () => {
  const org = await gw.cli('org', 'create', 'teams', '--credit', '10');
  const a = await newKey(org.id);
  const b = await newKey(org.id);
  const ws = org.workspace_id as string;
  const setBudget = (micros: number | null) => write(gw.dbPath, (db) => {
    db.prepare('UPDATE workspaces SET monthly_budget_micros = ? WHERE id = ?').run(micros, ws);
    db.prepare("INSERT INTO change_log (at, kind, ref) VALUES (?, 'workspace', ?)").run(Date.now(), ws);
  });
  setBudget(3_000);
  for (const k of [a, b, a]) assert.is(await status(chat(k.key)), 200); // 0, 1 059, 2 118 spent when each entered
  await budgetRefusal(await chat(b.key), /workspace's monthly budget/);
  await budgetRefusal(await chat(a.key), /workspace's monthly budget/);
  await waitFor(() => spentBy(ws) === 3 * DEFAULT_COST, 5_000, 'the workspace spend in the ledger');

  setBudget(5_000);
  const after = Date.now();
  await waitFor(async () => (await status(chat(b.key))) === 200, POLL_MS + 1_000, 'the raised budget'); // 3 177 spent
  assert.ok(Date.now() - after <= POLL_MS + 1_000);
  assert.is(await status(chat(a.key)), 200); // 4 236 spent
  await budgetRefusal(await chat(a.key), /workspace's monthly budget/);
  setBudget(null);
  await waitFor(async () => (await status(chat(a.key))) === 200, POLL_MS + 1_000, 'the budget removed');
});

test('200 concurrent requests against a small key budget stop at the budget, overshooting by less than one hold', async () => {
  const BUDGET = 10_000; // ₹0.01
  const body = chatBody({ max_tokens: 16 });
  const hold = holdOf(GROQ, Buffer.byteLength(body), 16);
  // Each answer costs exactly its hold, so spent + held never shrinks: an admission check that
  // ignored in-flight holds would let every one of the 200 through.
  mock.setDefault({ kind: 'ok', delayMs: 30, usage: { prompt_tokens: Math.ceil(Buffer.byteLength(body) / 4), completion_tokens: 16 } });
  assert.is(costOf(GROQ, Math.ceil(Buffer.byteLength(body) / 4), 16), hold);
  const { key, keyId } = await newKey(funded, '--budget-inr', '0.01');
  const responses = await Promise.all(Array.from({ length: 200 }, () => chat(key, body)));
  const codes = await Promise.all(responses.map(async (r) => (r.status === 200 ? (await r.arrayBuffer(), 'ok') : (await errorOf(r)).code)));
  const served = codes.filter((c) => c === 'ok').length;
  assert.equal(codes.filter((c) => c !== 'ok' && c !== 'budget_exceeded'), [], 'every refusal is budget_exceeded');
  assert.is(served, Math.ceil(BUDGET / hold), `admitted while spent + held < budget (hold ${hold})`);
  const ledger = await waitForValue(() => { const s = billableSum(keyId); return s.n === served && s; }, 5_000, 'every served request in the ledger');
  assert.ok(ledger.cost >= BUDGET && ledger.cost < BUDGET + hold, `spent ${ledger.cost} of ${BUDGET}, hold ${hold}`);
  assert.is(spentBy(keyId), ledger.cost);
});

test('200 concurrent requests of varied true cost never spend past the budget by more than one hold, and the budget is used up', async () => {
  const BUDGET = 10_000;
  const body = chatBody({ max_tokens: 16 });
  const hold = holdOf(GROQ, Buffer.byteLength(body), 16);
  const maxPrompt = Math.ceil(Buffer.byteLength(body) / 4);
  let seed = 11;
  const rand = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
  const behaviours: Behavior[] = Array.from({ length: 200 }, () => ({
    kind: 'ok', delayMs: rand(40), usage: { prompt_tokens: 1 + rand(maxPrompt), completion_tokens: rand(17) },
  }));
  mock.enqueue(...behaviours);
  const { key, keyId } = await newKey(funded, '--budget-inr', '0.01');
  const responses = await Promise.all(Array.from({ length: 200 }, () => chat(key, body)));
  let expected = 0;
  let served = 0;
  let refused = 0;
  for (const r of responses) {
    if (r.status === 200) {
      const u = ((await r.json()) as any).usage;
      expected += costOf(GROQ, u.prompt_tokens, u.completion_tokens);
      served++;
    } else {
      assert.is((await errorOf(r)).code, 'budget_exceeded');
      refused++;
    }
  }
  assert.ok(refused > 0, 'some of the burst was refused');
  // Then one at a time, as a client would carry on, until the budget refuses: spent is then at or past it.
  mock.setDefault({ kind: 'ok', usage: { prompt_tokens: maxPrompt, completion_tokens: 8 } });
  for (;;) {
    const r = await chat(key, body);
    if (r.status !== 200) {
      await budgetRefusal(r, /key's monthly budget/);
      break;
    }
    const u = ((await r.json()) as any).usage;
    expected += costOf(GROQ, u.prompt_tokens, u.completion_tokens);
    served++;
    assert.ok(served < 200, 'the budget stops it');
  }
  const ledger = await waitForValue(() => { const s = billableSum(keyId); return s.n === served && s; }, 5_000, 'every served request in the ledger');
  assert.is(ledger.cost, expected, 'the ledger holds what the responses reported, priced');
  assert.ok(ledger.cost >= BUDGET && ledger.cost < BUDGET + hold, `spent ${ledger.cost} of ${BUDGET}, hold ${hold}`);
  assert.is(spentBy(keyId), ledger.cost);
  assert.equal(query(gw.dbPath, balanceMismatches), []);
});

test.run();
