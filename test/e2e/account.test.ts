import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { browserWith, signIn } from '../support/session.js';

let gw: GatewayProcess;

test.before(async () => {
  gw = await startGateway();
});
test.after(async () => {
  await gw.cleanup();
});

test('a login link signs in once: cookie HttpOnly, SameSite=Lax, with an expiry; a second use is refused', async () => {
  const { url } = await gw.cli('login-link', '--email', 'Asha@Example.com', '--base-url', gw.url);
  const first = await fetch(url, { redirect: 'manual' });
  assert.is(first.status, 302);
  assert.is(first.headers.get('location'), '/', 'lands on the dashboard');
  const cookie = first.headers.get('set-cookie')!;
  assert.match(cookie, /^gw_session=[A-Za-z0-9_-]{43};/);
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Lax/);
  assert.match(cookie, /Expires=/);
  assert.not.match(cookie, /Secure/, 'not Secure on an http base URL');
  const again = await fetch(url, { redirect: 'manual' });
  assert.is(again.status, 403);
  assert.is(((await again.json()) as any).error.code, 'forbidden');
  assert.is(again.headers.get('set-cookie'), null);
});

test('the first sign-in creates the user and a personal org where they are owner; later sign-ins reuse them', async () => {
  const a = await signIn(gw, 'ravi@example.com');
  const me1 = (await (await a.get('/me')).json()) as any;
  assert.is(me1.email, 'ravi@example.com');
  assert.is(me1.role, 'owner');
  assert.is(me1.org.personal, true);
  assert.is(me1.org.tier, 'trial');
  const b = await signIn(gw, 'RAVI@example.com');
  const me2 = (await (await b.get('/me')).json()) as any;
  assert.is(me2.id, me1.id);
  assert.is(me2.org.id, me1.org.id);
});

test('/me without a session, with an unknown cookie, or after logout gives 401 no_session', async () => {
  for (const headers of [{}, { cookie: 'gw_session=nope' }, { cookie: 'other=1' }] as Record<string, string>[]) {
    const r = await fetch(`${gw.url}/me`, { headers });
    assert.is(r.status, 401);
    assert.is(((await r.json()) as any).error.code, 'no_session');
  }
  const s = await signIn(gw, 'leaver@example.com');
  assert.is((await s.get('/me')).status, 200);
  const out = await s.send('POST', '/auth/logout');
  assert.is(out.status, 200);
  assert.match(out.headers.get('set-cookie')!, /gw_session=;.*Max-Age=0/);
  const after = await s.get('/me');
  assert.is(after.status, 401, 'the session is gone server-side, not only in the browser');
});

test('a logout posted from another site is refused 403 forbidden and the session lives on', async () => {
  const s = await signIn(gw, 'stays@example.com');
  for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }] as Record<string, string>[]) {
    const r = await fetch(`${gw.url}/auth/logout`, { method: 'POST', headers: { cookie: s.cookie, ...headers } });
    assert.is(r.status, 403, JSON.stringify(headers));
    assert.is(((await r.json()) as any).error.code, 'forbidden');
    assert.is(r.headers.get('set-cookie'), null, 'the cookie is not cleared either');
    assert.is((await s.get('/me')).status, 200, 'the session still works');
  }
  const out = await s.send('POST', '/auth/logout');
  assert.is(out.status, 200, 'the same origin signs out');
  assert.is((await s.get('/me')).status, 401);
});

test('PATCH /me changes the display name; invalid names are refused', async () => {
  const s = await signIn(gw, 'meera@example.com');
  let r = await s.send('PATCH', '/me', { name: 'Meera K' });
  assert.is(r.status, 200);
  assert.is(((await r.json()) as any).name, 'Meera K');
  r = await s.send('PATCH', '/me', { name: '<script>' });
  assert.is(r.status, 400);
  assert.is(((await r.json()) as any).error.code, 'bad_name');
  r = await s.send('PATCH', '/me', { nickname: 'x' });
  assert.is(r.status, 400);
  assert.is(((await r.json()) as any).error.code, 'bad_request');
});

test('PATCH /me/org renames the org for its owner', async () => {
  const s = await signIn(gw, 'owner@example.com');
  const r = await s.send('PATCH', '/me/org', { name: 'Owner Labs' });
  assert.is(r.status, 200);
  assert.is(((await r.json()) as any).org.name, 'Owner Labs');
});

test('the signup survey is accepted once and refused the second time; GET /me says whether it is still pending', async () => {
  const s = await signIn(gw, 'survey@example.com');
  assert.is(((await (await s.get('/me')).json()) as any).attribution_pending, true);
  let r = await s.send('POST', '/me/attribution', { source: 'a friend' });
  assert.is(r.status, 201);
  assert.is(((await (await s.get('/me')).json()) as any).attribution_pending, false);
  r = await s.send('POST', '/me/attribution', { source: 'twitter' });
  assert.is(r.status, 400);
  assert.is(((await r.json()) as any).error.code, 'already_answered');
});

test('cookie-authenticated writes from another origin are refused with 403; same-origin and non-browser writes pass', async () => {
  const s = await signIn(gw, 'csrf@example.com');
  let r = await s.send('PATCH', '/me', { name: 'A' }, { origin: 'https://evil.example' });
  assert.is(r.status, 403);
  assert.is(((await r.json()) as any).error.code, 'forbidden');
  r = await fetch(`${gw.url}/me`, { method: 'PATCH', headers: { cookie: s.cookie, 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }, body: '{"name":"B"}' });
  assert.is(r.status, 403);
  r = await fetch(`${gw.url}/me`, { method: 'PATCH', headers: { cookie: s.cookie, 'content-type': 'application/json' }, body: '{"name":"C"}' });
  assert.is(r.status, 200, 'a client that sends no Origin (curl, scripts) is not a browser cross-site request');
  r = await fetch(`${gw.url}/me`, { headers: { cookie: s.cookie, origin: 'https://evil.example' } });
  assert.is(r.status, 200, 'reads are not writes');
});

test('malformed JSON on a session route gives 400 bad_request in the envelope', async () => {
  const s = await signIn(gw, 'json@example.com');
  const r = await fetch(`${gw.url}/me`, { method: 'PATCH', headers: { cookie: s.cookie, origin: gw.url, 'content-type': 'application/json' }, body: '{"name":' });
  assert.is(r.status, 400);
  assert.is(((await r.json()) as any).error.code, 'bad_request');
  void browserWith;
});

test.run();
