import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { signIn, type Browser } from '../support/session.js';
import { bearer, chatBody, waitFor } from '../support/wait.js';

// Workspaces (spec 4.11): list, create, rename, monthly ₹ budgets enforced by the data plane,
// archiving (which revokes the workspace's keys), and who may do what.
let gw: GatewayProcess;
let mock: MockProvider;

test.before(async () => {
  mock = await startMockProvider();
  gw = await startGateway({ limits: { publicRpmPerIp: 100_000 }, providers: { groq: { baseUrl: mock.url, apiKey: 'sk-groq-platform' } } });
});
test.after(async () => {
  await gw.cleanup();
  await mock.close();
});
test.before.each(() => mock.reset());

const json = async (r: Response) => (await r.json()) as any;
let seq = 0;
const email = (tag: string) => `${tag}-${++seq}@ws.example`;
const chat = (key: string, model = 'llama-3.3-70b-instruct') =>
  fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody({ model }) });

async function expectError(r: Response, status: number, code: string, what = ''): Promise<any> {
  const body = await json(r);
  assert.is(r.status, status, `${what} answered ${r.status} ${JSON.stringify(body)}`);
  assert.is(body.error?.code, code, `${what} code`);
  return body;
}

async function ok(r: Response, status = 200, what = ''): Promise<any> {
  const body = await json(r);
  assert.is(r.status, status, `${what} answered ${r.status} ${JSON.stringify(body)}`);
  return body;
}

const workspaces = async (b: Browser) => (await json(await b.get('/me/workspaces'))).data as any[];
const defaultWorkspace = async (b: Browser) => (await workspaces(b)).find((w) => w.default);

/** A signed-in user whose personal org has ₹100 of credit, so its keys are standard tier. */
async function fundedUser(tag: string): Promise<Browser> {
  const b = await signIn(gw, email(tag));
  await gw.cli('org', 'credit', (await json(await b.get('/me'))).org.id, '100');
  return b;
}

async function team(tag: string): Promise<{ owner: Browser; admin: Browser; member: Browser }> {
  const owner = await signIn(gw, email(`${tag}-owner`));
  const org = await ok(await owner.send('POST', '/me/orgs', { name: `${tag} team` }), 201);
  await ok(await owner.send('POST', '/me/orgs/switch', { org_id: org.id }));
  const join = async (role: string) => {
    const address = email(`${tag}-${role}`);
    const inv = await ok(await owner.send('POST', '/me/members', { email: address, role }), 201);
    const b = await signIn(gw, address);
    await ok(await b.send('POST', `/me/invitations/${inv.id}/accept`));
    await ok(await b.send('POST', '/me/orgs/switch', { org_id: org.id }));
    return b;
  };
  return { owner, admin: await join('admin'), member: await join('member') };
}

test('every org starts with one default workspace with no budget and nothing spent', async () => {
  const s = await signIn(gw, email('fresh'));
  const list = await workspaces(s);
  assert.is(list.length, 1);
  const [w] = list;
  assert.equal({ name: w.name, default: w.default, monthly_budget_inr: w.monthly_budget_inr, spent_month_inr: w.spent_month_inr, archived: w.archived, archived_at: w.archived_at },
    { name: 'default', default: true, monthly_budget_inr: null, spent_month_inr: 0, archived: false, archived_at: null });
  assert.match(w.id, /^ws_/);
  assert.ok(Date.parse(w.created_at) > 0);
});

test('creating a workspace answers 201 with its budget; names are unique ignoring case (400 duplicate_workspace)', async () => {
  const s = await signIn(gw, email('creator'));
  const w = await ok(await s.send('POST', '/me/workspaces', { name: ' Research ', monthly_budget_inr: 12.5 }), 201);
  assert.equal({ name: w.name, default: w.default, monthly_budget_inr: w.monthly_budget_inr, spent_month_inr: w.spent_month_inr, archived: w.archived },
    { name: 'Research', default: false, monthly_budget_inr: 12.5, spent_month_inr: 0, archived: false });
  const plain = await ok(await s.send('POST', '/me/workspaces', { name: 'Staging' }), 201);
  assert.is(plain.monthly_budget_inr, null);
  await expectError(await s.send('POST', '/me/workspaces', { name: 'research' }), 400, 'duplicate_workspace', 'other case');
  await expectError(await s.send('POST', '/me/workspaces', { name: 'RESEARCH  ' }), 400, 'duplicate_workspace', 'trimmed');
  await expectError(await s.send('POST', '/me/workspaces', { name: 'DEFAULT' }), 400, 'duplicate_workspace', 'the default workspace\'s name');
  await ok(await s.send('POST', '/me/workspaces', { name: 'Ünïcode' }), 201);
  await expectError(await s.send('POST', '/me/workspaces', { name: 'üNÏCODE' }), 400, 'duplicate_workspace', 'non-ASCII case folding');
  assert.equal((await workspaces(s)).map((x) => x.name), ['default', 'Research', 'Staging', 'Ünïcode']);
});

test('workspace names and budgets are validated: bad_name, and bad_request for a negative or non-number budget', async () => {
  const s = await signIn(gw, email('validate'));
  for (const name of ['', '  ', 'x'.repeat(65), 'new\nline', '<b>']) {
    await expectError(await s.send('POST', '/me/workspaces', { name }), 400, 'bad_name', JSON.stringify(name));
  }
  for (const monthly_budget_inr of [-1, '10', true, 10_000_001]) {
    await expectError(await s.send('POST', '/me/workspaces', { name: 'x', monthly_budget_inr }), 400, 'bad_request', JSON.stringify(monthly_budget_inr));
  }
  await expectError(await s.send('POST', '/me/workspaces', {}), 400, 'bad_request', 'no name');
  await expectError(await s.send('POST', '/me/workspaces', { name: 'x', colour: 'red' }), 400, 'bad_request', 'unknown field');
  const w = await ok(await s.send('POST', '/me/workspaces', { name: 'x'.repeat(64), monthly_budget_inr: 0 }), 201);
  await expectError(await s.send('PATCH', `/me/workspaces/${w.id}`, { name: '' }), 400, 'bad_name');
  await expectError(await s.send('PATCH', `/me/workspaces/${w.id}`, { monthly_budget_inr: -0.5 }), 400, 'bad_request');
  assert.equal(await workspaces(s).then((l) => l.length), 2, 'nothing invalid was created');
});

test('PATCH renames and sets or clears the budget; renaming onto another workspace\'s name is duplicate_workspace', async () => {
  const s = await signIn(gw, email('patch'));
  const a = await ok(await s.send('POST', '/me/workspaces', { name: 'alpha' }), 201);
  await ok(await s.send('POST', '/me/workspaces', { name: 'beta' }), 201);
  let w = await ok(await s.send('PATCH', `/me/workspaces/${a.id}`, { monthly_budget_inr: 250.75 }));
  assert.equal({ name: w.name, monthly_budget_inr: w.monthly_budget_inr }, { name: 'alpha', monthly_budget_inr: 250.75 });
  w = await ok(await s.send('PATCH', `/me/workspaces/${a.id}`, { name: 'ALPHA' }));
  assert.equal({ name: w.name, monthly_budget_inr: w.monthly_budget_inr }, { name: 'ALPHA', monthly_budget_inr: 250.75 }, 'own name in another case');
  await expectError(await s.send('PATCH', `/me/workspaces/${a.id}`, { name: 'Beta' }), 400, 'duplicate_workspace');
  w = await ok(await s.send('PATCH', `/me/workspaces/${a.id}`, { monthly_budget_inr: null }));
  assert.is(w.monthly_budget_inr, null, 'null clears the cap');
  const def = await defaultWorkspace(s);
  w = await ok(await s.send('PATCH', `/me/workspaces/${def.id}`, { name: 'main', monthly_budget_inr: 1 }));
  assert.equal({ name: w.name, default: w.default, monthly_budget_inr: w.monthly_budget_inr }, { name: 'main', default: true, monthly_budget_inr: 1 });
  await expectError(await s.send('PATCH', '/me/workspaces/ws_nope', { name: 'x' }), 404, 'not_found');
});

test('the default workspace cannot be archived (400 bad_request)', async () => {
  const s = await signIn(gw, email('keepdefault'));
  const def = await defaultWorkspace(s);
  await expectError(await s.send('DELETE', `/me/workspaces/${def.id}`), 400, 'bad_request');
  assert.is((await defaultWorkspace(s)).archived, false);
});

test('archiving a workspace revokes its keys at once (401 invalid_api_key), keeps other keys, and frees its name', async () => {
  const s = await signIn(gw, email('archive'));
  const w = await ok(await s.send('POST', '/me/workspaces', { name: 'temp' }), 201);
  const inWs = await ok(await s.send('POST', '/me/keys', { name: 'in-temp', workspace_id: w.id }), 201);
  const other = await ok(await s.send('POST', '/me/keys', { name: 'elsewhere' }), 201);
  assert.is(inWs.workspace_id, w.id);
  assert.is((await chat(inWs.key, 'sandbox/echo')).status, 200, 'the key works before');

  const res = await ok(await s.send('DELETE', `/me/workspaces/${w.id}`));
  assert.equal(res, { id: w.id, archived: true, revoked_keys: 1 });
  await expectError(await chat(inWs.key, 'sandbox/echo'), 401, 'invalid_api_key', 'the archived workspace\'s key');
  assert.is((await chat(other.key, 'sandbox/echo')).status, 200, 'a key in another workspace still works');
  const keys = (await json(await s.get('/me/keys'))).data;
  assert.is(keys.find((k: any) => k.id === inWs.id).status, 'revoked');
  assert.is(keys.find((k: any) => k.id === other.id).status, 'active');

  const listed = (await workspaces(s)).find((x) => x.id === w.id);
  assert.is(listed.archived, true);
  assert.ok(Date.parse(listed.archived_at) > 0);
  await expectError(await s.send('PATCH', `/me/workspaces/${w.id}`, { name: 'again' }), 404, 'not_found', 'editing an archived workspace');
  await expectError(await s.send('POST', '/me/keys', { name: 'late', workspace_id: w.id }), 404, 'not_found', 'a key in an archived workspace');
  assert.equal(await ok(await s.send('DELETE', `/me/workspaces/${w.id}`)), { id: w.id, archived: true, revoked_keys: 0 }, 'archiving again changes nothing');
  await ok(await s.send('POST', '/me/workspaces', { name: 'TEMP' }), 201, 'the name is free again');
});

test('role matrix for workspace writes: owner and admin may create, edit and archive; a member gets 403 forbidden', async () => {
  const t = await team('roles');
  for (const as of ['owner', 'admin', 'member'] as const) {
    const b = t[as];
    const created = await b.send('POST', '/me/workspaces', { name: `by ${as}` });
    // The member works on one the owner made, so each check is about the role alone.
    const target = as === 'member'
      ? (await expectError(created, 403, 'forbidden', 'member creates'), await ok(await t.owner.send('POST', '/me/workspaces', { name: 'for member' }), 201))
      : await ok(created, 201, `${as} creates`);
    const patch = await b.send('PATCH', `/me/workspaces/${target.id}`, { monthly_budget_inr: 3 });
    const del = async () => b.send('DELETE', `/me/workspaces/${target.id}`);
    if (as === 'member') {
      await expectError(patch, 403, 'forbidden', 'member edits');
      await expectError(await del(), 403, 'forbidden', 'member archives');
    } else {
      assert.is((await ok(patch, 200, `${as} edits`)).monthly_budget_inr, 3);
      assert.is((await ok(await del(), 200, `${as} archives`)).archived, true);
    }
  }
  const seen = await workspaces(t.member);
  assert.equal(seen.map((w) => [w.name, w.archived]), [['default', false], ['for member', false], ['by owner', true], ['by admin', true]],
    'a member can read the list');
});

test('a workspace budget is enforced by the data plane: once spent, its keys get 429 budget_exceeded; clearing it lifts the block', async () => {
  const s = await fundedUser('budget');
  const key = await ok(await s.send('POST', '/me/keys', { name: 'prod' }), 201);
  assert.is(key.tier, 'standard');
  const def = await defaultWorkspace(s);
  assert.is(key.workspace_id, def.id);
  assert.is((await chat(key.key)).status, 200, 'no budget yet');

  // One mock answer costs 11 × ₹52 + 7 × ₹69.5 per 1M tokens = 1,059 micro-rupees; the first
  // request already spent that, so a ₹0.002 cap is reached within one or two more.
  await ok(await s.send('PATCH', `/me/workspaces/${def.id}`, { monthly_budget_inr: 0.002 }));
  const statuses: number[] = [];
  let refusal: Response | null = null;
  for (let i = 0; i < 6 && !refusal; i++) {
    const r = await chat(key.key);
    if (r.status === 429) refusal = r;
    else {
      statuses.push(r.status);
      await r.arrayBuffer();
    }
  }
  assert.ok(refusal, `never refused: ${statuses}`);
  assert.ok(statuses.length <= 3, `refused only after ${statuses.length} more requests`);
  assert.ok(statuses.every((x) => x === 200));
  const body = await expectError(refusal!, 429, 'budget_exceeded');
  assert.match(body.error.message, /workspace/);
  assert.ok(Number(refusal!.headers.get('retry-after')) > 0, 'retry-after: until the next IST month');
  const upstreamCalls = mock.requests.length;
  await expectError(await chat(key.key), 429, 'budget_exceeded', 'still refused');
  assert.is(mock.requests.length, upstreamCalls, 'refused requests never reach the provider');

  const spent = await waitFor(async () => {
    const w = await defaultWorkspace(s);
    return w.spent_month_inr >= 0.002 ? w : null;
  }, 5_000, 'the workspace spend to reach the ledger');
  assert.is(spent.monthly_budget_inr, 0.002);
  assert.is(Math.round(spent.spent_month_inr * 1_000_000) % 1_059, 0, `spend ${spent.spent_month_inr} is whole requests`);

  await ok(await s.send('PATCH', `/me/workspaces/${def.id}`, { monthly_budget_inr: null }));
  assert.is((await chat(key.key)).status, 200, 'clearing the budget takes effect at once');
});

test('a zero budget on one workspace blocks only that workspace\'s keys', async () => {
  const s = await fundedUser('zero');
  const w = await ok(await s.send('POST', '/me/workspaces', { name: 'frozen', monthly_budget_inr: 0 }), 201);
  const frozen = await ok(await s.send('POST', '/me/keys', { name: 'frozen-key', workspace_id: w.id }), 201);
  const free = await ok(await s.send('POST', '/me/keys', { name: 'free-key' }), 201);
  await expectError(await chat(frozen.key), 429, 'budget_exceeded');
  assert.is((await chat(free.key)).status, 200);
  await ok(await s.send('PATCH', `/me/workspaces/${w.id}`, { monthly_budget_inr: 10 }));
  assert.is((await chat(frozen.key)).status, 200, 'raising the budget takes effect at once');
});

test('another org\'s workspace ids answer 404 not_found and leak nothing', async () => {
  const a = await signIn(gw, email('iso-a'));
  const b = await signIn(gw, email('iso-b'));
  const bw = await ok(await b.send('POST', '/me/workspaces', { name: 'hidden-ws', monthly_budget_inr: 9 }), 201);
  const bDefault = await defaultWorkspace(b);
  for (const id of [bw.id, bDefault.id]) {
    for (const [method, body] of [['PATCH', { name: 'taken' }], ['PATCH', { monthly_budget_inr: 0 }], ['DELETE', undefined]] as const) {
      const r = await a.send(method, `/me/workspaces/${id}`, body);
      const text = await r.text();
      assert.is(r.status, 404, `${method} ${id}: ${text}`);
      assert.not.ok(text.includes('hidden-ws') || text.includes(id));
    }
  }
  const text = await (await a.get('/me/workspaces')).text();
  assert.not.ok(text.includes(bw.id) || text.includes('hidden-ws'));
  const after = (await workspaces(b)).find((w) => w.id === bw.id);
  assert.equal({ name: after.name, budget: after.monthly_budget_inr, archived: after.archived }, { name: 'hidden-ws', budget: 9, archived: false });
});

test.run();
