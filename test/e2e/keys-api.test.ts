import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { signIn, type Browser } from '../support/session.js';
import { bearer, chatBody } from '../support/wait.js';

let gw: GatewayProcess;
let mock: MockProvider;

test.before(async () => {
  mock = await startMockProvider();
  gw = await startGateway({ providers: { groq: { baseUrl: mock.url, apiKey: 'k' } } });
});
test.after(async () => {
  await gw.cleanup();
  await mock.close();
});

const json = async (r: Response) => (await r.json()) as any;
const orgOf = async (b: Browser) => (await json(await b.get('/me'))).org.id as string;
const chat = (key: string) => fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody() });

test('a new org gets trial keys; the full key is returned exactly once and works for inference', async () => {
  const s = await signIn(gw, 'trial@example.com');
  const r = await s.send('POST', '/me/keys', { name: 'laptop' });
  assert.is(r.status, 201);
  const k = await json(r);
  assert.match(k.key, /^gw-trial-[A-Za-z0-9_-]{32}$/);
  assert.is(k.tier, 'trial');
  assert.is(k.prefix, k.key.slice(0, 12));
  const list = await json(await s.get('/me/keys'));
  assert.is(list.data.length, 1);
  assert.not.ok(JSON.stringify(list).includes(k.key), 'listings never show the full key');
  const item = list.data[0];
  assert.is(item.prefix, k.prefix);
  assert.is(item.rpm_limit, 60);
  assert.is(item.daily_limit, 200);
  assert.is(item.status, 'active');
  assert.is(item.scope, 'full');
  assert.is((await chat(k.key)).status, 200);
});

test('once the org has credit, new keys are standard (gw-) and accept budget_inr and expires_days', async () => {
  const s = await signIn(gw, 'std@example.com');
  await gw.cli('org', 'credit', await orgOf(s), '100');
  const r = await s.send('POST', '/me/keys', { name: 'prod', budget_inr: 25.5, expires_days: 30 });
  assert.is(r.status, 201);
  const k = await json(r);
  assert.match(k.key, /^gw-[A-Za-z0-9_-]{32}$/);
  assert.is(k.tier, 'standard');
  assert.is(k.budget_inr, 25.5);
  assert.is(k.expires_days, 30);
  const item = (await json(await s.get('/me/keys'))).data[0];
  assert.is(item.monthly_budget, 25.5);
  assert.is(item.spent_month, 0);
  assert.ok(Date.parse(item.expires_at) > Date.now() + 29 * 86_400_000);
});

test('key creation rules: duplicate_key_name, at most 5 active keys (cap), expires_days 1-365', async () => {
  const s = await signIn(gw, 'rules@example.com');
  assert.is((await s.send('POST', '/me/keys', { name: 'a' })).status, 201);
  let r = await s.send('POST', '/me/keys', { name: 'a' });
  assert.is(r.status, 400);
  assert.is((await json(r)).error.code, 'duplicate_key_name');
  for (const bad of [0, 366, 1.5, 'ten']) {
    r = await s.send('POST', '/me/keys', { name: `e${bad}`, expires_days: bad });
    assert.is(r.status, 400, `expires_days ${bad}`);
    assert.is((await json(r)).error.code, 'bad_request');
  }
  for (const n of ['b', 'c', 'd', 'e']) assert.is((await s.send('POST', '/me/keys', { name: n })).status, 201);
  r = await s.send('POST', '/me/keys', { name: 'f' });
  assert.is(r.status, 400);
  assert.is((await json(r)).error.code, 'cap');
  const first = (await json(await s.get('/me/keys'))).data.find((k: any) => k.name === 'a');
  assert.is((await s.send('DELETE', `/me/keys/${first.id}`)).status, 200);
  assert.is((await s.send('POST', '/me/keys', { name: 'a' })).status, 201, 'a revoked key frees its name and its slot');
});

test('revoking a key answers revoked: true and the key stops working at once', async () => {
  const s = await signIn(gw, 'revoke@example.com');
  const k = await json(await s.send('POST', '/me/keys', { name: 'x' }));
  assert.is((await chat(k.key)).status, 200);
  const r = await s.send('DELETE', `/me/keys/${k.id}`);
  assert.equal(await json(r), { id: k.id, revoked: true });
  const refused = await chat(k.key);
  assert.is(refused.status, 401);
  assert.is((await json(refused)).error.code, 'invalid_api_key');
  assert.is((await json(await s.get('/me/keys'))).data[0].status, 'revoked');
});

test('PATCH limits reach the data plane at once and are answered as GET shows them; trial keys cannot be raised past 60/min or 200/day', async () => {
  const s = await signIn(gw, 'limits@example.com');
  const trial = await json(await s.send('POST', '/me/keys', { name: 't' }));
  let r = await s.send('PATCH', `/me/keys/${trial.id}`, { rpm_limit: 61 });
  assert.is(r.status, 400);
  assert.is((await json(r)).error.code, 'trial_ceiling');
  r = await s.send('PATCH', `/me/keys/${trial.id}`, { daily_limit: 201 });
  assert.is((await json(r)).error.code, 'trial_ceiling');
  r = await s.send('PATCH', `/me/keys/${trial.id}`, { rpm_limit: 2 });
  assert.is(r.status, 200);
  const patched = await json(r);
  // PATCH answers the limits the gateway applies, as GET does: a trial key's daily cap is 200, not null.
  assert.equal([patched.rpm_limit, patched.daily_limit], [2, 200]);
  const listed = (await json(await s.get('/me/keys'))).data.find((k: any) => k.id === trial.id);
  assert.equal([listed.rpm_limit, listed.daily_limit, listed.monthly_budget], [patched.rpm_limit, patched.daily_limit, patched.monthly_budget]);
  const cleared = await json(await s.send('PATCH', `/me/keys/${trial.id}`, { daily_limit: null }));
  assert.equal([cleared.rpm_limit, cleared.daily_limit], [2, 200]);
  assert.is((await chat(trial.key)).status, 200);
  assert.is((await chat(trial.key)).status, 200);
  const third = await chat(trial.key);
  assert.is(third.status, 429);
  assert.is((await json(third)).error.code, 'rate_limit_exceeded');
  assert.ok(Number(third.headers.get('retry-after')) >= 1);
});

test('a budget set with PATCH is enforced by the data plane', async () => {
  const s = await signIn(gw, 'budget@example.com');
  await gw.cli('org', 'credit', await orgOf(s), '100');
  const k = await json(await s.send('POST', '/me/keys', { name: 'b' }));
  assert.is((await chat(k.key)).status, 200);
  const r = await s.send('PATCH', `/me/keys/${k.id}`, { budget_inr: 0 });
  assert.is((await json(r)).monthly_budget, 0);
  const refused = await chat(k.key);
  assert.is(refused.status, 429);
  assert.is((await json(refused)).error.code, 'budget_exceeded');
});

test('another org\'s key gives 404 not_found on PATCH and DELETE, and the key keeps working', async () => {
  const a = await signIn(gw, 'orga@example.com');
  const b = await signIn(gw, 'orgb@example.com');
  const kb = await json(await b.send('POST', '/me/keys', { name: 'mine' }));
  for (const [m, body] of [['PATCH', { rpm_limit: 1 }], ['DELETE', undefined]] as const) {
    const r = await a.send(m, `/me/keys/${kb.id}`, body);
    assert.is(r.status, 404);
    const e = await json(r);
    assert.is(e.error.code, 'not_found');
    assert.not.ok(JSON.stringify(e).includes('mine'));
  }
  assert.is((await json(await a.get('/me/keys'))).data.length, 0);
  assert.is((await chat(kb.key)).status, 200);
});

test.run();
