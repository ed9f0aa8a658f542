import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { errorOf, query, waitForValue, write } from '../support/ledger.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { bearer, chatBody, readSse, waitFor } from '../support/wait.js';
import { istDay, nextIstMidnight } from '../../src/lib/ist.js';

const POLL_MS = 200;
let gw: GatewayProcess;
let mock: MockProvider;
let funded: string;
let unfunded: string;

test.before(async () => {
  mock = await startMockProvider();
  gw = await startGateway({ changePollMs: POLL_MS, providers: { groq: { baseUrl: mock.url, apiKey: 'k' } } });
  funded = (await gw.cli('org', 'create', 'funded', '--credit', '1000')).id;
  unfunded = (await gw.cli('org', 'create', 'on-trial')).id;
});

/**
 * A new key in one of the two orgs (each CLI run costs most of a second, so orgs are shared, and
 * --force lifts the 5-active-keys cap the operator CLI applies like the API).
 */
async function newKey(orgId: string, ...args: string[]): Promise<{ key: string; keyId: string; orgId: string }> {
  const k = await gw.cli('key', 'create', '--org', orgId, '--name', `k${Math.random().toString(36).slice(2, 8)}`, '--force', ...args);
  return { key: k.key, keyId: k.id, orgId };
}
/** An org of its own for each trial test: the trial allowance is the org's, shared by its keys. */
const trialOrg = async (): Promise<string> => (await gw.cli('org', 'create', 'on-trial')).id;
test.after(async () => {
  await gw.cleanup();
  await mock.close();
});
test.before.each(() => mock.reset());

const sandbox = (key: string, extra: Record<string, unknown> = {}) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody({ model: 'sandbox/echo', ...extra }) });
const llama = (key: string, extra: Record<string, unknown> = {}) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody(extra) });
const embed = (key: string) =>
  fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: bearer(key), body: JSON.stringify({ model: 'sandbox/embed', input: 'hello' }) });

async function refused(res: Response, status: number, code: string) {
  assert.is(res.status, status, `expected ${status} ${code}`);
  assert.ok(res.headers.get('content-type')!.startsWith('application/json'), 'an error envelope, not a stream');
  const e = await errorOf(res);
  assert.is(e.code, code);
  if (status === 429) {
    assert.is(e.type, 'rate_limit_error');
    assert.match(res.headers.get('retry-after') ?? '', /^[1-9]\d*$/, 'retry-after is whole seconds');
  }
  return e;
}

/** Seconds from now to the next IST midnight, as the gateway would say it, give or take the request's own time. */
const toMidnight = () => Math.ceil((nextIstMidnight(Date.now()) - Date.now()) / 1000);

async function ok(res: Response | Promise<Response>): Promise<Response> {
  const r = await res;
  assert.is(r.status, 200, `expected 200, got ${r.status}: ${r.status === 200 ? '' : await r.clone().text()}`);
  return r;
}

test('a standard key with no rpm_limit meets the gateway cap of 120 per rolling minute', async () => {
  const { key } = await newKey(funded);
  const first = Date.now();
  for (let i = 0; i < 6; i++) {
    const batch = await Promise.all(Array.from({ length: 20 }, () => sandbox(key)));
    for (const r of batch) assert.is(r.status, 200);
  }
  const e = await refused(await sandbox(key), 429, 'rate_limit_exceeded');
  assert.match(e.message, /120/);
  // The first request leaves the minute 60 s after its second began: never more, and no sooner than elapsed allows.
  const elapsed = Math.ceil((Date.now() - first) / 1000);
  assert.ok(e.retryAfter <= 60 && e.retryAfter >= 59 - elapsed, `retry-after ${e.retryAfter} after ${elapsed} s`);
});

test('a key rpm_limit applies alike to chat, streaming and embeddings, refusing before any stream starts', async () => {
  const { key } = await newKey(funded, '--rpm', '3');
  await ok(sandbox(key));
  const s = await ok(sandbox(key, { stream: true }));
  assert.is((await readSse(s)).at(-1), '[DONE]');
  await ok(embed(key));
  for (const r of [await sandbox(key, { stream: true }), await embed(key), await sandbox(key)]) {
    const e = await refused(r, 429, 'rate_limit_exceeded');
    assert.match(e.message, /key limit of 3/);
    assert.ok(e.retryAfter >= 58 && e.retryAfter <= 60, `retry-after ${e.retryAfter}`);
  }
});

test('a trial key is capped at 60 requests a minute: the 61st is refused', async () => {
  const { key } = await newKey(await trialOrg());
  assert.ok(key.startsWith('gw-trial-'));
  const rs = await Promise.all(Array.from({ length: 60 }, () => sandbox(key)));
  assert.equal(rs.map((r) => r.status), Array(60).fill(200));
  const e = await refused(await sandbox(key), 429, 'rate_limit_exceeded');
  assert.match(e.message, /60/);
});

test('a trial key pays ₹0 for a priced model and needs no balance, though its tokens are recorded', async () => {
  const { key, keyId, orgId } = await newKey(await trialOrg());
  for (let i = 0; i < 3; i++) await ok(llama(key));
  assert.is(mock.requests.length, 3);
  const rows = await waitForValue(() => {
    const r = query(gw.dbPath, (db) => db.prepare('SELECT * FROM usage WHERE key_id = ?').all(keyId) as any[]);
    return r.length === 3 && r;
  }, 5_000, 'three ledger rows');
  for (const r of rows) {
    assert.is(r.cost_micros, 0);
    assert.is(r.billable, 1);
    assert.is(r.prompt_tokens, 11);
    assert.is(r.completion_tokens, 7);
  }
  assert.is(query(gw.dbPath, (db) => db.prepare('SELECT balance_micros FROM orgs WHERE id = ?').pluck().get(orgId)), 0);
});

test('a trial key is capped at 200 requests per IST day even when its own daily_limit is higher', async () => {
  const { key, keyId } = await newKey(await trialOrg());
  // The CLI and the API refuse to raise a trial key (trial_ceiling); a record that says so anyway
  // (edited by hand, or older) must still be capped by the gateway.
  write(gw.dbPath, (db) => db.prepare('UPDATE api_keys SET daily_limit = 500 WHERE id = ?').run(keyId));
  // 199 requests already made today, as the ledger would hold them; the gateway reads this when it first meets the key.
  write(gw.dbPath, (db) => db.prepare('INSERT INTO key_daily_counts (key_id, ist_day, requests) VALUES (?, ?, 199)').run(keyId, istDay(Date.now())));
  await ok(sandbox(key));
  const expected = toMidnight();
  const e = await refused(await sandbox(key), 429, 'daily_limit_reached');
  assert.match(e.message, /200/);
  assert.ok(Math.abs(e.retryAfter - expected) <= 2, `retry-after ${e.retryAfter}, midnight IST is ${expected} s away`);
});

test('the trial allowance is per org: a second key shares its minute, and a key revoked and made again gets no fresh 200 a day, even after a restart', async () => {
  const orgId = await trialOrg();
  const a = await newKey(orgId);
  const b = await newKey(orgId);
  const both = await Promise.all(Array.from({ length: 60 }, (_, i) => sandbox(i % 2 ? a.key : b.key)));
  assert.equal(both.map((r) => r.status), Array(60).fill(200));
  assert.match((await refused(await sandbox(b.key), 429, 'rate_limit_exceeded')).message, /60 requests per minute per organisation/);

  // 199 requests already made today by another trial key of the org (revoked since), as the ledger holds them.
  const old = await newKey(orgId);
  write(gw.dbPath, (db) => db.prepare('INSERT INTO key_daily_counts (key_id, ist_day, requests) VALUES (?, ?, 139)').run(old.keyId, istDay(Date.now())));
  await gw.cli('key', 'revoke', old.keyId);
  await gw.stop();
  await gw.restart();
  const fresh = await newKey(orgId);
  await ok(sandbox(fresh.key)); // 60 + 139 + 1 = 200
  const e = await refused(await sandbox(fresh.key), 429, 'daily_limit_reached');
  assert.match(e.message, /200 per organisation on trial keys/);
  assert.ok(Math.abs(e.retryAfter - toMidnight()) <= 2);
  // Once more, a key created after the refusal is refused as well; another trial org is not.
  await refused(await sandbox((await newKey(orgId)).key), 429, 'daily_limit_reached');
  await ok(sandbox((await newKey(await trialOrg())).key));
});

test('the operator CLI refuses to raise a trial key past 60/min or 200/day (trial_ceiling)', async () => {
  for (const flags of [['--rpm', '61'], ['--daily', '201']]) {
    const err = await gw.cli('key', 'create', '--org', unfunded, '--name', `x${flags[1]}`, ...flags).then(() => null, (e: Error) => e);
    assert.ok(err, `key create ${flags.join(' ')} must fail`);
    assert.match(String((err as any).stderr ?? err.message), /trial_ceiling/);
  }
});

test('a standard key daily_limit refuses the next request until midnight IST', async () => {
  const { key } = await newKey(funded, '--daily', '2');
  await ok(sandbox(key));
  await ok(embed(key));
  const expected = toMidnight();
  const e = await refused(await sandbox(key, { stream: true }), 429, 'daily_limit_reached');
  assert.ok(Math.abs(e.retryAfter - expected) <= 2, `retry-after ${e.retryAfter}, midnight IST is ${expected} s away`);
});

/** Runs a CLI change, then waits for the gateway to show it; fails if that takes longer than the poll window allows. */
async function changeSeen(cli: string[], seen: () => Promise<boolean>, what: string): Promise<void> {
  await gw.cli(...cli);
  const after = Date.now();
  await waitFor(seen, POLL_MS + 1_000, what);
  assert.ok(Date.now() - after <= POLL_MS + 1_000, `${what} took ${Date.now() - after} ms`);
}

test('operator changes to rpm, daily and budget limits reach the running gateway within the poll window', async () => {
  const { key, keyId } = await newKey(funded);
  await ok(llama(key)); // cached now, with ₹0.001059 spent
  await changeSeen(['key', 'limits', keyId, '--rpm', '1'], async () => (await llama(key)).status === 429, 'rpm 1');
  await refused(await llama(key), 429, 'rate_limit_exceeded');
  await changeSeen(['key', 'limits', keyId, '--rpm', 'none'], async () => (await llama(key)).status === 200, 'rpm none');
  await changeSeen(['key', 'limits', keyId, '--daily', '1'], async () => (await llama(key)).status === 429, 'daily 1');
  await refused(await llama(key), 429, 'daily_limit_reached');
  await changeSeen(['key', 'limits', keyId, '--daily', 'none'], async () => (await llama(key)).status === 200, 'daily none');
  await changeSeen(['key', 'limits', keyId, '--budget-inr', '0.001'], async () => (await llama(key)).status === 429, 'budget ₹0.001');
  await refused(await llama(key), 429, 'budget_exceeded');
  await changeSeen(['key', 'limits', keyId, '--budget-inr', 'none'], async () => (await llama(key)).status === 200, 'budget none');
});

test('a key revoked with the CLI is refused with 401 within the poll window', async () => {
  const { key, keyId } = await newKey(funded);
  await ok(sandbox(key));
  await changeSeen(['key', 'revoke', keyId], async () => (await sandbox(key)).status === 401, 'revocation');
  await refused(await sandbox(key), 401, 'invalid_api_key');
});

test('unauthenticated reads of /v1/models and /health share a limit of 120 a minute per IP; reads with a valid key are limited per key', async () => {
  const { key } = await newKey(funded);
  const first = Date.now();
  const rs = await Promise.all(Array.from({ length: 120 }, (_, i) => fetch(`${gw.url}${i % 2 ? '/health' : '/v1/models'}`)));
  assert.equal(rs.map((r) => r.status), Array(120).fill(200));
  await Promise.all(rs.map((r) => r.arrayBuffer()));
  for (const path of ['/health', '/v1/models']) {
    const e = await refused(await fetch(`${gw.url}${path}`), 429, 'rate_limit_exceeded');
    const elapsed = Math.ceil((Date.now() - first) / 1000);
    assert.ok(e.retryAfter <= 60 && e.retryAfter >= 59 - elapsed, `retry-after ${e.retryAfter}`);
  }
  await ok(sandbox(key));

  // A read that carries a valid key is counted against that key, not the IP; an invalid key changes nothing.
  const withKey = (k: string, path = '/v1/models') => fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${k}` } });
  await refused(await withKey('gw-' + 'A'.repeat(32)), 429, 'rate_limit_exceeded');
  await refused(await withKey('not a key'), 429, 'rate_limit_exceeded');
  const keyed = await Promise.all(Array.from({ length: 120 }, (_, i) => withKey(key, i % 2 ? '/health' : '/v1/models')));
  assert.equal(keyed.map((r) => r.status), Array(120).fill(200));
  await Promise.all(keyed.map((r) => r.arrayBuffer()));
  assert.match((await refused(await withKey(key), 429, 'rate_limit_exceeded')).message, /per API key/);
  const other = await newKey(funded);
  assert.is((await withKey(other.key)).status, 200, 'another key has a window of its own');
});

test.run();
