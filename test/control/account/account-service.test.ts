import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { accountRoutes } from '../../../src/control/account/account-routes.js';
import { AccountService } from '../../../src/control/account/account-service.js';
import { insertMoneyEvent } from '../../../src/store/orgs.js';
import { sqliteMemberStore } from '../../../src/store/members.js';
import { sqliteOrgStore } from '../../../src/store/orgs.js';
import { sqliteSessionStore } from '../../../src/store/sessions.js';
import { sqliteUserStore } from '../../../src/store/users.js';
import { controlFixture } from '../../support/control-fixture.js';
import type { SignInService } from '../../../src/control/sign-in/sign-in-service.js';

// The /me rules through the router, in process, over SQLite: names, the owner-only rename, the
// one-time survey, the tier, signing out.

const fx = controlFixture();
const account = new AccountService({
  users: sqliteUserStore(fx.db), orgs: sqliteOrgStore(fx.db), sessions: sqliteSessionStore(fx.db), clock: { now: () => Date.now() },
});
// Only the login link route reads the sign-in service; its own tests are e2e.
const call = fx.injector(accountRoutes(account, {} as SignInService, () => 'http://gw.example'));
const ana = fx.signUp('ana@team.example');

test('GET /me: the user and the active org, on the trial until money comes in', async () => {
  const me = (await call({ method: 'GET', url: '/me', headers: ana.headers })).json();
  assert.equal([me.email, me.name, me.role, me.attribution_pending], ['ana@team.example', null, 'owner', true]);
  assert.equal(me.org, { id: ana.personalOrgId, name: 'ana', personal: true, domain: null, balance_inr: 0, tier: 'trial' });
  insertMoneyEvent(fx.db, ana.personalOrgId, 'operator_credit', 2_500_000, { now: Date.now() });
  const funded = (await call({ method: 'GET', url: '/me', headers: ana.headers })).json().org;
  assert.equal([funded.balance_inr, funded.tier], [2.5, 'standard']);
});

test('a team org shows the email domain; only its owner renames it, to a clean name', async () => {
  const { orgId } = await sqliteMemberStore(fx.db).createTeamOrg('Team', ana.userId, Date.now(), () => {});
  fx.db.prepare('UPDATE sessions SET active_org_id = ?').run(orgId);
  const renamed = await call({ method: 'PATCH', url: '/me/org', headers: ana.headers, body: { name: ' Team Two ' } });
  assert.equal([renamed.json().org.name, renamed.json().org.domain], ['Team Two', 'team.example']);
  assert.is((await call({ method: 'PATCH', url: '/me/org', headers: ana.headers, body: { name: 'a\u0007b' } })).json().error.code, 'bad_name');
  fx.db.prepare("UPDATE memberships SET role = 'admin' WHERE org_id = ?").run(orgId);
  assert.is((await call({ method: 'PATCH', url: '/me/org', headers: ana.headers, body: { name: 'Mine' } })).status, 403);
});

test('PATCH /me sets and clears the display name; the survey is answered once', async () => {
  const named = await call({ method: 'PATCH', url: '/me', headers: ana.headers, body: { name: 'अना' } });
  assert.is(named.json().name, 'अना');
  assert.is((await call({ method: 'PATCH', url: '/me', headers: ana.headers, body: { name: null } })).json().name, null);
  assert.is((await call({ method: 'PATCH', url: '/me', headers: ana.headers, body: { name: '<script>' } })).json().error.code, 'bad_name');
  const survey = { source: 'friend', details: 'a colleague' };
  assert.is((await call({ method: 'POST', url: '/me/attribution', headers: ana.headers, body: survey })).status, 201);
  const again = await call({ method: 'POST', url: '/me/attribution', headers: ana.headers, body: survey });
  assert.equal([again.status, again.json().error.code], [400, 'already_answered']);
  assert.is((await call({ method: 'GET', url: '/me', headers: ana.headers })).json().attribution_pending, false);
});

test('signing out ends the session server-side', async () => {
  const out = await call({ method: 'POST', url: '/auth/logout', headers: ana.headers });
  assert.equal(out.json(), { signed_out: true });
  assert.match(String(out.headers['set-cookie']), /gw_session=;/);
  assert.is((await call({ method: 'GET', url: '/me', headers: ana.headers })).status, 401);
});

test.after(() => {
  fx.db.close();
});
test.run();
