import * as assert from 'uvu/assert';
import { teamRoutes } from '../../../src/control/teams/team-routes.js';
import { TeamService } from '../../../src/control/teams/team-service.js';
import type { InvitationNotice } from '../../../src/control/teams/invitation-mail.js';
import { sqliteInvitationStore } from '../../../src/store/invitations.js';
import { sqliteMemberStore } from '../../../src/store/members.js';
import { sqliteOrgStore } from '../../../src/store/orgs.js';
import { postgresInvitationStore } from '../../../src/store/postgres/pg-invitations.js';
import { postgresMemberStore } from '../../../src/store/postgres/pg-members.js';
import { postgresOrgStore } from '../../../src/store/postgres/pg-orgs.js';
import { postgresSessionStore } from '../../../src/store/postgres/pg-sessions.js';
import { sqliteSessionStore } from '../../../src/store/sessions.js';
import { eachBackend, type Person, type StoreBackend } from '../../support/store-backends.js';

// The team rules through the router, in process, over SQLite and over PostgreSQL: caps, roles,
// the last owner, and ids of another org answering 404.

eachBackend('teams', (test, be) => {
  const mailed: InvitationNotice[] = [];
  let call: ReturnType<StoreBackend['injector']>;
  const as = (p: Person, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: object) => call({ method, url, headers: p.headers, body });
  let owner: Person;
  let admin: Person;
  let member: Person;
  let stranger: Person;
  let teamId = '';
  let clockAt = Date.now();

  /** Invites `p` to the team as `role` (by the owner) and has them accept. */
  async function join(p: Person, role: string): Promise<void> {
    const inv = await as(owner, 'POST', '/me/members', { email: p.email.toUpperCase(), role });
    assert.is(inv.status, 201, inv.body);
    assert.is((await as(p, 'POST', `/me/invitations/${inv.json().id}/accept`)).status, 200);
  }

  test.before(async () => {
    const teams = new TeamService({
      members: be().pick(sqliteMemberStore, postgresMemberStore), invitations: be().pick(sqliteInvitationStore, postgresInvitationStore),
      orgs: be().pick(sqliteOrgStore, postgresOrgStore), sessions: be().pick(sqliteSessionStore, postgresSessionStore),
      // A clock that moves on each read: two orgs made in the same millisecond would otherwise be
      // listed by their random ids, and the listing order is what one test checks.
      clock: { now: () => (clockAt += 1) },
      caps: { maxTeamOrgsPerUser: 2, maxMembersPerOrg: 3 },
      invited: (n) => mailed.push(n),
    });
    call = be().injector(teamRoutes(teams));
    owner = await be().signUp('owner@example.com');
    admin = await be().signUp('admin@example.com');
    member = await be().signUp('member@example.com');
    stranger = await be().signUp('stranger@example.com');
  });

  test('creating a team org makes the caller its owner, within the cap of team orgs a user may belong to', async () => {
    const made = await as(owner, 'POST', '/me/orgs', { name: '  Acme  ' });
    assert.is(made.status, 201);
    assert.equal({ ...made.json(), id: '', created_at: '' }, { id: '', name: 'Acme', personal: false, role: 'owner', active: false, created_at: '' });
    teamId = made.json().id;
    assert.is((await as(owner, 'POST', '/me/orgs', { name: 'Second' })).status, 201);
    const third = await as(owner, 'POST', '/me/orgs', { name: 'Third' });
    assert.is(third.status, 400);
    assert.is(third.json().error.code, 'team_cap');
    const bad = await as(owner, 'POST', '/me/orgs', { name: '<b>' });
    assert.is(bad.json().error.code, 'bad_name');
  });

  test('switching acts in another of your orgs; an org you do not belong to is 404', async () => {
    assert.is((await as(owner, 'POST', '/me/orgs/switch', { org_id: stranger.personalOrgId })).status, 404);
    const switched = await as(owner, 'POST', '/me/orgs/switch', { org_id: teamId });
    assert.equal([switched.json().id, switched.json().active], [teamId, true]);
    const orgs = (await as(owner, 'GET', '/me/orgs')).json().data as { id: string; personal: boolean; active: boolean }[];
    assert.equal(orgs.map((o) => [o.personal, o.active]), [[true, false], [false, true], [false, false]]);
  });

  test('a personal org takes no invitations; email and role are checked; only an owner invites an owner', async () => {
    const personal = await as(stranger, 'POST', '/me/members', { email: 'x@example.com' });
    assert.equal([personal.status, personal.json().error.code], [400, 'personal_org']);
    assert.is((await as(owner, 'POST', '/me/members', { email: 'not-an-email' })).json().error.code, 'bad_email');
    assert.is((await as(owner, 'POST', '/me/members', { email: 'x@example.com', role: 'boss' })).json().error.code, 'bad_role');
    await join(admin, 'admin');
    await as(admin, 'POST', '/me/orgs/switch', { org_id: teamId });
    const byAdmin = await as(admin, 'POST', '/me/members', { email: 'x@example.com', role: 'owner' });
    assert.is(byAdmin.status, 403);
    assert.equal(mailed.map((m) => [m.email, m.role, m.orgName, m.invitedBy]), [['admin@example.com', 'admin', 'Acme', 'owner@example.com']]);
  });

  test('an invitation is once per email and members plus pending invitations stay within the cap', async () => {
    const first = await as(owner, 'POST', '/me/members', { email: 'member@example.com' });
    assert.is(first.status, 201);
    assert.is((await as(owner, 'POST', '/me/members', { email: 'Member@Example.com' })).json().error.code, 'already_invited');
    assert.is((await as(owner, 'POST', '/me/members', { email: 'admin@example.com' })).json().error.code, 'already_member');
    // owner, admin and one pending invitation fill a cap of 3.
    assert.is((await as(owner, 'POST', '/me/members', { email: 'late@example.com' })).json().error.code, 'member_cap');
    const listed = (await as(owner, 'GET', '/me/members')).json();
    assert.equal(listed.members.map((m: { email: string }) => m.email), ['owner@example.com', 'admin@example.com']);
    assert.equal(listed.invitations.map((i: { email: string }) => i.email), ['member@example.com']);
  });

  test('only the addressee accepts or declines an invitation; another org revoking it is 404', async () => {
    const inv = (await as(member, 'GET', '/me/invitations')).json().data[0];
    assert.equal([inv.org_name, inv.invited_by], ['Acme', 'owner@example.com']);
    assert.is((await as(stranger, 'POST', `/me/invitations/${inv.id}/accept`)).status, 404);
    assert.is((await as(stranger, 'POST', `/me/invitations/${inv.id}/decline`)).status, 404);
    assert.is((await as(stranger, 'DELETE', `/me/invitations/${inv.id}`)).status, 404);
    const accepted = await as(member, 'POST', `/me/invitations/${inv.id}/accept`);
    assert.equal([accepted.json().status, accepted.json().org.role, accepted.json().org.active], ['accepted', 'member', false]);
    assert.is((await as(member, 'POST', `/me/invitations/${inv.id}/accept`)).status, 404);
  });

  test('roles: the last owner is never demoted or removed, members cannot remove, admins cannot remove owners', async () => {
    await as(member, 'POST', '/me/orgs/switch', { org_id: teamId });
    const demote = await as(owner, 'PATCH', `/me/members/${owner.userId}`, { role: 'admin' });
    assert.equal([demote.status, demote.json().error.code], [400, 'last_owner']);
    assert.is((await as(owner, 'PATCH', `/me/members/${stranger.userId}`, { role: 'admin' })).status, 404);
    assert.is((await as(admin, 'PATCH', `/me/members/${member.userId}`, { role: 'admin' })).status, 403);
    assert.is((await as(member, 'DELETE', `/me/members/${admin.userId}`)).status, 403);
    assert.is((await as(admin, 'DELETE', `/me/members/${owner.userId}`)).status, 403);
    assert.is((await as(owner, 'DELETE', `/me/members/${owner.userId}`)).json().error.code, 'last_owner');
    const promoted = await as(owner, 'PATCH', `/me/members/${admin.userId}`, { role: 'owner' });
    assert.is(promoted.json().role, 'owner');
    assert.equal((await as(owner, 'DELETE', `/me/members/${owner.userId}`)).json(), { id: owner.userId, removed: true, left: true });
    // The session that acted in the team is back in the personal org.
    assert.is((await as(owner, 'GET', '/me/orgs')).json().data.length, 2);
    assert.is((await as(owner, 'GET', '/me/orgs')).json().data.find((o: { active: boolean }) => o.active).id, owner.personalOrgId);
  });

  test('nobody leaves their personal org', async () => {
    const left = await as(stranger, 'DELETE', `/me/members/${stranger.userId}`);
    assert.equal([left.status, left.json().error.code], [400, 'personal_org']);
  });
});
