import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connectPostgres, type Pg } from '../../src/store/postgres/pg-database.js';
import { startCluster, type Cluster } from '../support/cluster.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { GROQ, costOf } from '../support/ledger.js';
import { bearer, chatBody, waitFor } from '../support/wait.js';

// Issue 19: three gateway processes on one PostgreSQL and one Redis, behind a round-robin client.
// Limits and money are exact across them; a revocation reaches all of them within a second;
// every answered request has its ledger row.

const POLL_MS = 200;
let cluster: Cluster;
let mock: MockProvider;
let sql: Pg;

test.before(async () => {
  mock = await startMockProvider({ record: false });
  cluster = await startCluster(3, { changePollMs: POLL_MS, providers: { groq: { baseUrl: mock.url, apiKey: 'k' } } });
  sql = connectPostgres(cluster.pg.url, { max: 2 });
  // Each instance says where its state is: the shared PostgreSQL, not a SQLite file of its own.
  for (const gw of cluster.gateways) {
    const listening = JSON.parse(gw.lines.find((l) => l.includes('"msg":"listening"'))!);
    assert.is(listening.db, cluster.pg.url);
  }
});
test.after(async () => {
  await sql.end({ timeout: 1 });
  await cluster.stop();
  await mock.close();
});
test.before.each(() => mock.reset());

const cli = (...args: string[]) => cluster.gateways[0].cli(...args);
async function newKey(orgId: string, ...args: string[]): Promise<{ key: string; keyId: string }> {
  const k = await cli('key', 'create', '--org', orgId, '--name', `k${Math.random().toString(36).slice(2, 8)}`, '--force', ...args);
  return { key: k.key, keyId: k.id };
}
const sandbox = (key: string, url = cluster.next()) =>
  fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody({ model: 'sandbox/echo' }) });

/** Sends n requests at once, spread round-robin over the instances; the statuses and error codes. */
async function burst(n: number, send: (url: string) => Promise<Response>): Promise<{ ok: number; codes: Record<string, number> }> {
  const codes: Record<string, number> = {};
  let ok = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    const res = await send(cluster.next());
    const text = await res.text();
    if (res.status === 200) ok++;
    else {
      const code = `${res.status} ${JSON.parse(text).error.code}`;
      codes[code] = (codes[code] ?? 0) + 1;
    }
  }));
  return { ok, codes };
}

test('a key with rpm_limit 60 under 500 concurrent requests over three instances: exactly 60 admitted', async () => {
  const org = (await cli('org', 'create', 'rpm', '--credit', '100')).id;
  const { key } = await newKey(org, '--rpm', '60');
  const r = await burst(500, (url) => sandbox(key, url));
  assert.equal(r, { ok: 60, codes: { '429 rate_limit_exceeded': 440 } });
});

test('the gateway cap (120 a minute per key) holds across instances', async () => {
  const org = (await cli('org', 'create', 'cap', '--credit', '100')).id;
  const { key } = await newKey(org);
  const r = await burst(500, (url) => sandbox(key, url));
  assert.equal(r, { ok: 120, codes: { '429 rate_limit_exceeded': 380 } });
});

test('trial keys: the org allowance of 60 a minute holds across keys and instances', async () => {
  const org = (await cli('org', 'create', 'trial')).id;
  const a = await newKey(org);
  const b = await newKey(org);
  let i = 0;
  const r = await burst(300, (url) => sandbox(i++ % 2 ? a.key : b.key, url));
  assert.equal(r, { ok: 60, codes: { '429 rate_limit_exceeded': 240 } });
});

test('a ₹5 balance under 200 concurrent priced requests: overshoot within one request', async () => {
  const completion = 5_000;
  mock.setDefault({ kind: 'ok', usage: { prompt_tokens: 11, completion_tokens: completion } });
  const org = (await cli('org', 'create', 'five-rupees', '--credit', '5')).id;
  const { key } = await newKey(org);
  const one = costOf(GROQ, 11, completion);
  const r = await burst(200, (url) => fetch(`${url}/v1/chat/completions`, {
    method: 'POST', headers: bearer(key), body: chatBody({ max_tokens: completion }),
  }));
  assert.ok(r.ok >= Math.floor(5_000_000 / one) - 1, `served ${r.ok}, each ₹${one / 1e6}`);
  assert.equal(Object.keys(r.codes), ['402 insufficient_credits']);
  // Every answer is in the ledger, and the balance it leaves is within one request of zero.
  await waitFor(async () => (await sql`SELECT COUNT(*) AS n FROM usage WHERE org_id = ${org} AND status = 200`)[0].n === r.ok, 10_000, 'ledger rows');
  const [{ balance }] = await sql`SELECT balance_micros AS balance FROM orgs WHERE id = ${org}`;
  assert.is(balance, 5_000_000 - r.ok * one);
  assert.ok(balance > -one, `overshoot ${-balance} µ₹ is less than one request (${one})`);
});

test('a revocation through the CLI refuses the key on every instance within a second', async () => {
  const org = (await cli('org', 'create', 'revoke', '--credit', '10')).id;
  const { key, keyId } = await newKey(org);
  for (const url of cluster.urls) assert.is((await sandbox(key, url)).status, 200);
  await cli('key', 'revoke', keyId);
  const revokedAt = Date.now();
  await Promise.all(cluster.urls.map((url) => waitFor(async () => (await sandbox(key, url)).status === 401, 1_000, `401 on ${url}`)));
  assert.ok(Date.now() - revokedAt <= 1_000);
});

test('every 200 answered has its ledger row; a SIGTERM of one instance loses nothing', async () => {
  const org = (await cli('org', 'create', 'ledger', '--credit', '100')).id;
  const { key } = await newKey(org, '--rpm', '100000');
  const r = await burst(90, (url) => fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody() }));
  assert.is(r.ok, 90);
  assert.is(await cluster.gateways[2].stop('SIGTERM'), 0);
  const [{ n }] = await sql`SELECT COUNT(*) AS n FROM usage WHERE org_id = ${org} AND status = 200`;
  // The stopped instance flushed before exiting; the others within their flush window.
  await waitFor(async () => (await sql`SELECT COUNT(*) AS n FROM usage WHERE org_id = ${org} AND status = 200`)[0].n === 90, 5_000, `90 rows (had ${n})`);
});

test('the operator CLI works on PostgreSQL: org show, promo codes, tail', async () => {
  const org = (await cli('org', 'create', 'Ärzte & Co', '--credit', '12.5')).id;
  const shown = await cli('org', 'show', org);
  assert.equal([shown.name, shown.balance_inr, shown.tier, shown.money_events.length], ['Ärzte & Co', 12.5, 'standard', 1]);
  const promo = await cli('promo', 'create', 'Diwali', '--bonus-inr', '10');
  assert.is(promo.code, 'Diwali');
  const dup = await cluster.gateways[0].cli('promo', 'create', 'DIWALI', '--bonus-inr', '5').then(() => 'made', (e: { stderr?: string }) => e.stderr ?? '');
  assert.match(dup, 'exists already');
  const { key, keyId } = await newKey(org);
  assert.is((await sandbox(key)).status, 200);
  await waitFor(async () => (await sql`SELECT COUNT(*) AS n FROM usage WHERE key_id = ${keyId}`)[0].n === 1, 5_000, 'the row');
  const last = await cli('tail', '--key', keyId, '-n', '5', '--no-follow');
  assert.equal([last.key_id, last.model, last.status], [keyId, 'sandbox/echo', 200]);
});

test.run();
