import * as assert from 'uvu/assert';
import { accountRoutes } from '../../../src/control/account/account-routes.js';
import { AccountService } from '../../../src/control/account/account-service.js';
import type { SignInService } from '../../../src/control/sign-in/sign-in-service.js';
import { sqliteMemberStore } from '../../../src/store/members.js';
import { insertMoneyEvent, sqliteOrgStore } from '../../../src/store/orgs.js';
import { postgresMemberStore } from '../../../src/store/postgres/pg-members.js';
import { insertMoneyEventPg, postgresOrgStore } from '../../../src/store/postgres/pg-orgs.js';
import { postgresSessionStore } from '../../../src/store/postgres/pg-sessions.js';
import { postgresUserStore } from '../../../src/store/postgres/pg-users.js';
import { sqliteSessionStore } from '../../../src/store/sessions.js';
import { sqliteUserStore } from '../../../src/store/users.js';
import { exec } from '../../support/seed-sql.js';
import { eachBackend, type Person, type StoreBackend } from '../../support/store-backends.js';

// The /me rules through the router, in process, over SQLite and over PostgreSQL: names, the
// owner-only rename, the one-time survey, the tier, signing out.

eachBackend('account', (test, be) => {
  let call: ReturnType<StoreBackend['injector']>;
  let ana: Person;

  test.before(async () => {
    const account = new AccountService({
      users: be().pick(sqliteUserStore, postgresUserStore), orgs: be().pick(sqliteOrgStore, postgresOrgStore),
      sessions: be().pick(sqliteSessionStore, postgresSessionStore), clock: { now: () => Date.now() },
    });
    // Only the login link route reads the sign-in service; its own tests are e2e.
    call = be().injector(accountRoutes(account, {} as SignInService, () => 'http://gw.example'));
    ana = await be().signUp('ana@team.example');
    // A first sign-in names the personal org after the email's local part.
    await exec(be(), 'UPDATE orgs SET name = ? WHERE id = ?', 'ana', ana.personalOrgId);
  });

  test('GET /me: the user and the active org, on the trial until money comes in', async () => {
    const me = (await call({ method: 'GET', url: '/me', headers: ana.headers })).json();
    assert.equal([me.email, me.name, me.role, me.attribution_pending], ['ana@team.example', null, 'owner', true]);
    assert.equal(me.org, { id: ana.personalOrgId, name: 'ana', personal: true, domain: null, balance_inr: 0, tier: 'trial', guardrails: null,
      response_cache: null, prompt_cache: null });
    const { db, pg } = be();
    if (db) insertMoneyEvent(db, ana.personalOrgId, 'operator_credit', 2_500_000, { now: Date.now() });
    else await insertMoneyEventPg(pg!, ana.personalOrgId, 'operator_credit', 2_500_000, { now: Date.now() });
    const funded = (await call({ method: 'GET', url: '/me', headers: ana.headers })).json().org;
    assert.equal([funded.balance_inr, funded.tier], [2.5, 'standard']);
  });

  test('a team org shows the email domain; only its owner renames it, to a clean name, or sets its guardrail policy and cache settings', async () => {
    const { orgId } = await be().pick(sqliteMemberStore, postgresMemberStore).createTeamOrg('Team', ana.userId, Date.now(), () => {});
    await exec(be(), 'UPDATE sessions SET active_org_id = ?', orgId);
    const renamed = await call({ method: 'PATCH', url: '/me/org', headers: ana.headers, body: { name: ' Team Two ' } });
    assert.equal([renamed.json().org.name, renamed.json().org.domain], ['Team Two', 'team.example']);
    assert.is((await call({ method: 'PATCH', url: '/me/org', headers: ana.headers, body: { name: 'a\u0007b' } })).json().error.code, 'bad_name');
    const guarded = await call({ method: 'PATCH', url: '/me/org', headers: ana.headers, body: { guardrails: 'block=secret; redact=india' } });
    assert.equal([guarded.json().org.name, guarded.json().org.guardrails], ['Team Two', 'redact=aadhaar,pan,gstin,upi,ifsc,mobile;block=secret']);
    const bad = await call({ method: 'PATCH', url: '/me/org', headers: ana.headers, body: { guardrails: 'redact' } });
    assert.equal([bad.status, bad.json().error.code], [400, 'bad_request']);
    assert.is((await call({ method: 'PATCH', url: '/me/org', headers: ana.headers, body: {} })).status, 400, 'nothing to change');
    const cached = await call({ method: 'PATCH', url: '/me/org', headers: ana.headers, body: { response_cache: 'always', prompt_cache: 'auto' } });
    assert.equal([cached.json().org.response_cache, cached.json().org.prompt_cache, cached.json().org.guardrails],
      ['always', 'auto', 'redact=aadhaar,pan,gstin,upi,ifsc,mobile;block=secret']);
    const half = await call({ method: 'PATCH', url: '/me/org', headers: ana.headers, body: { prompt_cache: null } });
    assert.equal([half.json().org.response_cache, half.json().org.prompt_cache], ['always', null], 'a member left out is left as it is');
    const wrong = await call({ method: 'PATCH', url: '/me/org', headers: ana.headers, body: { response_cache: 'sometimes' } });
    assert.equal([wrong.status, wrong.json().error.code, /response_cache/.test(wrong.json().error.message)], [400, 'bad_request', true]);
    await exec(be(), "UPDATE memberships SET role = 'admin' WHERE org_id = ?", orgId);
    assert.is((await call({ method: 'PATCH', url: '/me/org', headers: ana.headers, body: { name: 'Mine' } })).status, 403);
    assert.is((await call({ method: 'PATCH', url: '/me/org', headers: ana.headers, body: { guardrails: null } })).status, 403);
    assert.is((await call({ method: 'PATCH', url: '/me/org', headers: ana.headers, body: { response_cache: null } })).status, 403);
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
});
