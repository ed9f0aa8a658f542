import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { signIn, type Browser } from '../support/session.js';

// Walks every /me route in /openapi.json as a member of org A, aimed at org B's resources, and
// proves none of B's data comes back and nothing of B's changes.
let gw: GatewayProcess;
let a: Browser;
let b: Browser;
const bSecrets: string[] = [];
const bIds: string[] = [];

const json = async (r: Response) => (await r.json()) as any;

async function snapshotOfB(): Promise<string> {
  const parts: string[] = [];
  for (const path of ['/me', '/me/keys', '/me/members', '/me/workspaces', '/me/orgs', '/me/routing', '/me/collections']) {
    const r = await b.get(path);
    parts.push(`${path} ${r.status} ${r.status === 200 ? JSON.stringify(stripVolatile(await json(r))) : ''}`);
  }
  return parts.join('\n');
}

/** A small body that satisfies a route's request schema, so the ownership check is what answers. */
function sampleBody(schema: any): unknown {
  if (!schema) return undefined;
  const value = (name: string, s: any): unknown => {
    const t = s.anyOf ? s.anyOf.find((x: any) => x.type !== 'null') ?? s.anyOf[0] : s;
    if (t.const !== undefined) return t.const;
    if (t.type === 'string') return name === 'role' ? 'member' : name === 'email' ? 'x@a.example' : (t.minLength ?? 1) > 1 ? 'x'.repeat(t.minLength) : 'x';
    if (t.type === 'integer' || t.type === 'number') return Math.max(1, t.minimum ?? 1);
    if (t.type === 'boolean') return true;
    if (t.type === 'array') return [];
    if (t.type === 'object') return {};
    return null;
  };
  const props = Object.entries((schema.properties ?? {}) as Record<string, any>);
  const required = new Set<string>(schema.required ?? []);
  const chosen = props.filter(([k]) => required.has(k));
  if (chosen.length === 0 && props.length > 0) chosen.push(props[0]);
  return Object.fromEntries(chosen.map(([k, v]) => [k, value(k, v)]));
}

function stripVolatile(v: any): any {
  return JSON.parse(JSON.stringify(v, (k, x) => (k === 'last_used_at' || k === 'active' ? undefined : x)));
}

test.before(async () => {
  gw = await startGateway({ limits: { publicRpmPerIp: 100_000 } });
  a = await signIn(gw, 'alice@a.example');
  b = await signIn(gw, 'bob@b.example');
  const bMe = await json(await b.get('/me'));
  await gw.cli('org', 'credit', bMe.org.id, '50');
  bIds.push(bMe.org.id, bMe.id);
  bSecrets.push('bob@b.example', 'carol@b.example', 'bob-secret-key', 'bob-workspace');
  const key = await json(await b.send('POST', '/me/keys', { name: 'bob-secret-key' }));
  bIds.push(key.id);
  bSecrets.push(key.prefix);
  const ws = await b.send('POST', '/me/workspaces', { name: 'bob-workspace' });
  if (ws.status === 201 || ws.status === 200) bIds.push((await json(ws)).id);
  // A private collection and a saved chain of B's: their ids and slug must not reach A either.
  const col = await json(await b.send('POST', '/me/collections', { name: 'bob-collection', model: 'sandbox/echo', steps: [{}], readme_md: 'bob-readme' }));
  bIds.push(col.id, col.slug);
  bSecrets.push('bob-readme');
  await b.send('PUT', '/me/routing/sandbox/echo', { steps: [{ provider: 'sandbox' }] });
  // A team org of B's with a pending invitation, so member and invitation ids exist too.
  const team = await b.send('POST', '/me/orgs', { name: 'bob-team' });
  if (team.status === 201 || team.status === 200) {
    const t = await json(team);
    const teamId = t.id ?? t.org?.id;
    bIds.push(teamId);
    await b.send('POST', '/me/orgs/switch', { org_id: teamId });
    const inv = await b.send('POST', '/me/members', { email: 'carol@b.example', role: 'member' });
    if (inv.status < 300) {
      const i = await json(inv);
      if (i.id) bIds.push(i.id);
    }
    await b.send('POST', '/me/orgs/switch', { org_id: bMe.org.id });
  }
});
test.after(async () => {
  await gw.cleanup();
});

test('the resources of org B exist and B can see them', async () => {
  assert.ok(bIds.length >= 3);
  assert.is((await json(await b.get('/me/keys'))).data.length, 1);
  assert.is((await json(await b.get('/me/collections'))).data.length, 1);
  assert.is((await json(await b.get('/me/routing'))).data.length, 1);
});

test('every /me list read by a member of org A shows none of org B\'s data', async () => {
  const doc = await json(await fetch(`${gw.url}/openapi.json`));
  const lists = Object.entries(doc.paths as Record<string, any>).filter(([p, ops]) => p.startsWith('/me') && !p.includes('{') && ops.get).map(([p]) => p);
  assert.ok(lists.includes('/me/keys'));
  for (const path of lists) {
    const r = await a.get(path);
    const text = await r.text();
    for (const s of [...bSecrets, ...bIds]) assert.not.ok(text.includes(s), `${path} leaked ${s}`);
  }
});

test('every /me route with an id, called by org A with org B\'s ids, answers 4xx and leaks nothing', async () => {
  const before = await snapshotOfB();
  const doc = await json(await fetch(`${gw.url}/openapi.json`));
  let calls = 0;
  for (const [path, ops] of Object.entries(doc.paths as Record<string, any>)) {
    if (!path.startsWith('/me') || !path.includes('{')) continue;
    for (const method of Object.keys(ops)) {
      for (const id of bIds) {
        const concrete = path.replace(/\{[^}]+\}/g, encodeURIComponent(id));
        const schema = ops[method].requestBody?.content?.['application/json']?.schema;
        const body = method === 'get' || method === 'delete' ? undefined : sampleBody(schema) ?? {};
        const r = await a.send(method.toUpperCase(), concrete, body);
        calls++;
        const text = await r.text();
        // /me/routing, /me/byok and the PIN lookup are addressed by catalog model ids, provider ids and
        // postal codes, not by a resource of some org: anything else is 400 bad_model, unknown_provider or bad_request.
        const expected = path.startsWith('/me/routing/') ? [400, 'bad_model'] : path.startsWith('/me/byok/') ? [400, 'unknown_provider']
          : path.startsWith('/me/billing/pincode/') ? [400, 'bad_request'] : [404, 'not_found'];
        assert.equal([r.status, JSON.parse(text).error?.code], expected, `${method.toUpperCase()} ${concrete} answered ${r.status}`);
        for (const s of [...bSecrets, ...bIds.filter((x) => x !== id)]) assert.not.ok(text.includes(s), `${method} ${concrete} leaked ${s}`);
      }
    }
  }
  assert.ok(calls > 0);
  assert.is(await snapshotOfB(), before, 'nothing of org B changed');
});

test('switching the active org to one the user does not belong to is refused with 404', async () => {
  const r = await a.send('POST', '/me/orgs/switch', { org_id: bIds[0] });
  assert.is(r.status, 404);
});

test.run();
