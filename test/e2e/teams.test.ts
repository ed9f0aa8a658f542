import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { signIn, type Browser } from '../support/session.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';
import { waitFor } from '../support/wait.js';

// Teams (spec 4.11): orgs, switching, members, invitations, roles, last-owner protection and
// cross-org isolation, driven through the real gateway with signed-in browsers.
let gw: GatewayProcess;
let smtp: SmtpReceiver;

test.before(async () => {
  smtp = await startSmtpReceiver();
  gw = await startGateway({ limits: { publicRpmPerIp: 100_000 }, smtp: { host: '127.0.0.1', port: smtp.port, from: 'teams@gw.example' } });
});
test.after(async () => {
  await gw.cleanup();
  await smtp.close();
});

const json = async (r: Response) => (await r.json()) as any;
let seq = 0;
const email = (tag: string) => `${tag}-${++seq}@teams.example`;

async function expectError(r: Response, status: number, code: string, what = ''): Promise<any> {
  const body = await json(r);
  assert.is(r.status, status, `${what} answered ${r.status} ${JSON.stringify(body)}`);
  assert.is(body.error?.code, code, `${what} code`);
  assert.type(body.error.message, 'string');
  assert.type(body.error.type, 'string');
  return body;
}

async function ok(r: Response, status = 200, what = ''): Promise<any> {
  const body = await json(r);
  assert.is(r.status, status, `${what} answered ${r.status} ${JSON.stringify(body)}`);
  return body;
}

async function createTeam(owner: Browser, name = 'Team'): Promise<string> {
  const org = await ok(await owner.send('POST', '/me/orgs', { name }), 201, 'create org');
  await ok(await owner.send('POST', '/me/orgs/switch', { org_id: org.id }), 200, 'switch');
  return org.id;
}

/** Invites `email` with `role`, signs them in, accepts, and switches their session to the org. */
async function join(inviter: Browser, orgId: string, address: string, role: string): Promise<{ b: Browser; userId: string; invitationId: string }> {
  const inv = await ok(await inviter.send('POST', '/me/members', { email: address, role }), 201, `invite ${address}`);
  const b = await signIn(gw, address);
  await ok(await b.send('POST', `/me/invitations/${inv.id}/accept`), 200, 'accept');
  await ok(await b.send('POST', '/me/orgs/switch', { org_id: orgId }), 200, 'switch');
  const me = await json(await b.get('/me'));
  return { b, userId: me.id, invitationId: inv.id };
}

interface Team { orgId: string; owner: Browser; ownerId: string; admin: Browser; adminId: string; member: Browser; memberId: string }

async function team(tag: string): Promise<Team> {
  const owner = await signIn(gw, email(`${tag}-owner`));
  const orgId = await createTeam(owner, `${tag} team`);
  const ownerId = (await json(await owner.get('/me'))).id;
  const admin = await join(owner, orgId, email(`${tag}-admin`), 'admin');
  const member = await join(owner, orgId, email(`${tag}-member`), 'member');
  return { orgId, owner, ownerId, admin: admin.b, adminId: admin.userId, member: member.b, memberId: member.userId };
}

test('a new user belongs to their personal org only, and it is the active one', async () => {
  const s = await signIn(gw, email('solo'));
  const { data } = await ok(await s.get('/me/orgs'));
  assert.is(data.length, 1);
  assert.is(data[0].personal, true);
  assert.is(data[0].role, 'owner');
  assert.is(data[0].active, true);
  assert.is(data[0].id, (await json(await s.get('/me'))).org.id);
});

test('creating a team org makes the caller its owner with a default workspace; switching makes it active', async () => {
  const s = await signIn(gw, email('creator'));
  const personalId = (await json(await s.get('/me'))).org.id;
  const org = await ok(await s.send('POST', '/me/orgs', { name: '  Acme Labs  ' }), 201);
  assert.is(org.name, 'Acme Labs', 'the name is trimmed');
  assert.is(org.personal, false);
  assert.is(org.role, 'owner');
  assert.is(org.active, false, 'creating does not move the session');
  assert.is((await json(await s.get('/me'))).org.id, personalId);

  const switched = await ok(await s.send('POST', '/me/orgs/switch', { org_id: org.id }));
  assert.equal({ id: switched.id, active: switched.active, role: switched.role }, { id: org.id, active: true, role: 'owner' });
  const me = await json(await s.get('/me'));
  assert.is(me.org.id, org.id);
  assert.is(me.org.personal, false);
  assert.is(me.role, 'owner');
  const list = (await json(await s.get('/me/orgs'))).data;
  assert.equal(list.map((o: any) => [o.id, o.active]), [[personalId, false], [org.id, true]]);
  const ws = (await json(await s.get('/me/workspaces'))).data;
  assert.is(ws.length, 1);
  assert.is(ws[0].default, true);
  const members = await json(await s.get('/me/members'));
  assert.is(members.members.length, 1);
  assert.is(members.members[0].role, 'owner');
  assert.equal(members.invitations, []);
});

test('org names are validated: empty, too long, control characters or angle brackets give 400 bad_name', async () => {
  const s = await signIn(gw, email('names'));
  for (const name of ['', '   ', 'x'.repeat(81), 'tab\there', 'a <script>']) {
    await expectError(await s.send('POST', '/me/orgs', { name }), 400, 'bad_name', JSON.stringify(name));
  }
  await ok(await s.send('POST', '/me/orgs', { name: 'x'.repeat(80) }), 201, '80 characters');
  await ok(await s.send('POST', '/me/orgs', { name: 'हिंदी टीम' }), 201, 'non-Latin names');
  await expectError(await s.send('POST', '/me/orgs', { name: 42 }), 400, 'bad_request', 'a number');
  await expectError(await s.send('POST', '/me/orgs', {}), 400, 'bad_request', 'no name');
  await expectError(await s.send('POST', '/me/orgs'), 400, 'bad_request', 'no body');
});

test('a user can belong to at most 5 team orgs: the sixth, created or accepted, is refused with 400 team_cap', async () => {
  const s = await signIn(gw, email('capped'));
  for (let i = 1; i <= 5; i++) await ok(await s.send('POST', '/me/orgs', { name: `team ${i}` }), 201, `team ${i}`);
  await expectError(await s.send('POST', '/me/orgs', { name: 'team 6' }), 400, 'team_cap');
  assert.is((await json(await s.get('/me/orgs'))).data.length, 6, 'personal org plus five teams');

  const other = await signIn(gw, email('inviter'));
  await createTeam(other, 'one more');
  const inv = await ok(await other.send('POST', '/me/members', { email: s.email, role: 'member' }), 201);
  await expectError(await s.send('POST', `/me/invitations/${inv.id}/accept`), 400, 'team_cap', 'accepting a sixth');
  assert.is((await json(await s.get('/me/invitations'))).data.length, 1, 'the invitation stays pending');
});

test('switching to an org the user does not belong to is 404 not_found, and the session stays put', async () => {
  const s = await signIn(gw, email('switcher'));
  const other = await signIn(gw, email('elsewhere'));
  const foreign = await createTeam(other, 'not yours');
  const before = (await json(await s.get('/me'))).org.id;
  await expectError(await s.send('POST', '/me/orgs/switch', { org_id: foreign }), 404, 'not_found');
  await expectError(await s.send('POST', '/me/orgs/switch', { org_id: 'org_doesnotexist' }), 404, 'not_found');
  await expectError(await s.send('POST', '/me/orgs/switch', {}), 400, 'bad_request');
  assert.is((await json(await s.get('/me'))).org.id, before);
});

test('invite (the invitee is mailed the accept link), accept, switch: the new member sees the org\'s members and the invitation is gone', async () => {
  const owner = await signIn(gw, email('host'));
  const orgId = await createTeam(owner, 'Welcoming');
  const guestEmail = email('guest');
  const inv = await ok(await owner.send('POST', '/me/members', { email: guestEmail.toUpperCase(), role: 'admin' }), 201);
  assert.is(inv.email, guestEmail, 'emails are stored lower-case');
  assert.is(inv.role, 'admin');
  assert.is(inv.invited_by, owner.email);
  assert.ok(Date.parse(inv.created_at) > 0);
  const pending = await json(await owner.get('/me/members'));
  assert.equal(pending.invitations.map((i: any) => [i.id, i.email, i.role, i.invited_by]), [[inv.id, guestEmail, 'admin', owner.email]]);

  // The invitee is mailed, with who invited them, to what, and the accept link.
  const mail = await waitFor(() => smtp.decoded().find((m) => m.includes(`To: ${guestEmail}`)), 5_000, 'the invitation mail') as string;
  assert.match(mail, new RegExp(`Subject: \\[gw\\] ${owner.email} invited you to Welcoming`));
  assert.ok(mail.includes(`POST ${gw.url}/me/invitations/${inv.id}/accept`), mail);
  assert.ok(mail.includes(`as admin`) && mail.includes(`Sign in as ${guestEmail}`), mail);
  assert.is(smtp.decoded().filter((m) => m.includes(`To: ${owner.email}`)).length, 0, 'nobody else is mailed');

  const guest = await signIn(gw, guestEmail);
  const mine = (await json(await guest.get('/me/invitations'))).data;
  assert.equal(mine.map((i: any) => [i.id, i.org_id, i.org_name, i.role, i.invited_by]), [[inv.id, orgId, 'Welcoming', 'admin', owner.email]]);
  const accepted = await ok(await guest.send('POST', `/me/invitations/${inv.id}/accept`));
  assert.is(accepted.status, 'accepted');
  assert.equal({ id: accepted.org.id, role: accepted.org.role, active: accepted.org.active }, { id: orgId, role: 'admin', active: false });
  assert.equal((await json(await guest.get('/me/invitations'))).data, []);
  await expectError(await guest.send('POST', `/me/invitations/${inv.id}/accept`), 404, 'not_found', 'accepting twice');

  await ok(await guest.send('POST', '/me/orgs/switch', { org_id: orgId }));
  const me = await json(await guest.get('/me'));
  assert.is(me.org.id, orgId);
  assert.is(me.role, 'admin');
  const seen = await json(await guest.get('/me/members'));
  assert.equal(seen.members.map((m: any) => [m.email, m.role]), [[owner.email, 'owner'], [guestEmail, 'admin']]);
  assert.is(seen.members[1].id, me.id);
  assert.ok(Date.parse(seen.members[1].joined_at) > 0);
  assert.equal(seen.invitations, []);
});

test('declining an invitation removes it; it cannot be accepted or declined afterwards', async () => {
  const owner = await signIn(gw, email('decl-owner'));
  const orgId = await createTeam(owner);
  const who = email('decliner');
  const inv = await ok(await owner.send('POST', '/me/members', { email: who, role: 'member' }), 201);
  const b = await signIn(gw, who);
  const res = await ok(await b.send('POST', `/me/invitations/${inv.id}/decline`));
  assert.equal(res, { id: inv.id, status: 'declined' });
  assert.equal((await json(await b.get('/me/invitations'))).data, []);
  assert.equal((await json(await owner.get('/me/members'))).invitations, []);
  await expectError(await b.send('POST', `/me/invitations/${inv.id}/accept`), 404, 'not_found');
  await expectError(await b.send('POST', `/me/invitations/${inv.id}/decline`), 404, 'not_found');
  await expectError(await b.send('POST', '/me/orgs/switch', { org_id: orgId }), 404, 'not_found');
  await ok(await owner.send('POST', '/me/members', { email: who, role: 'member' }), 201, 'a declined address can be invited again');
});

test('an invitation addressed to someone else cannot be seen, accepted or declined (404 not_found)', async () => {
  const owner = await signIn(gw, email('addr-owner'));
  await createTeam(owner);
  const inv = await ok(await owner.send('POST', '/me/members', { email: email('intended'), role: 'member' }), 201);
  const stranger = await signIn(gw, email('stranger'));
  assert.equal((await json(await stranger.get('/me/invitations'))).data, []);
  for (const act of ['accept', 'decline']) {
    const body = await expectError(await stranger.send('POST', `/me/invitations/${inv.id}/${act}`), 404, 'not_found', act);
    assert.not.ok(JSON.stringify(body).includes('intended'));
  }
  await expectError(await stranger.send('POST', '/me/invitations/inv_nope/accept'), 404, 'not_found');
});

test('inviting checks the request: bad_email, bad_role, already_member, already_invited', async () => {
  const owner = await signIn(gw, email('rules-owner'));
  await createTeam(owner);
  for (const bad of ['', 'no-at-sign', 'a@b', 'two@@x.example', 'sp ace@x.example']) {
    await expectError(await owner.send('POST', '/me/members', { email: bad, role: 'member' }), 400, 'bad_email', JSON.stringify(bad));
  }
  for (const bad of ['', 'superuser', 'Owner', 'billing']) {
    await expectError(await owner.send('POST', '/me/members', { email: email('r'), role: bad }), 400, 'bad_role', JSON.stringify(bad));
  }
  await expectError(await owner.send('POST', '/me/members', { email: owner.email.toUpperCase(), role: 'member' }), 400, 'already_member', 'the owner themselves');
  const who = email('twice');
  const first = await ok(await owner.send('POST', '/me/members', { email: who }), 201, 'role defaults to member');
  assert.is(first.role, 'member');
  await expectError(await owner.send('POST', '/me/members', { email: who, role: 'admin' }), 400, 'already_invited');
  await expectError(await owner.send('POST', '/me/members', { role: 'member' }), 400, 'bad_request', 'no email');
  await expectError(await owner.send('POST', '/me/members', { email: who, role: 'member', extra: 1 }), 400, 'bad_request', 'unknown field');
});

test('a personal org takes no members: inviting there is 400 personal_org', async () => {
  const s = await signIn(gw, email('personal'));
  await expectError(await s.send('POST', '/me/members', { email: email('friend'), role: 'member' }), 400, 'personal_org');
});

test('members plus pending invitations are capped at 25 per org (member_cap); revoking one frees a slot', async () => {
  const owner = await signIn(gw, email('cap-owner'));
  await createTeam(owner);
  const ids: string[] = [];
  for (let i = 0; i < 24; i++) ids.push((await ok(await owner.send('POST', '/me/members', { email: `cap${i}-${seq}@cap.example` }), 201)).id);
  await expectError(await owner.send('POST', '/me/members', { email: email('one-too-many') }), 400, 'member_cap');
  assert.equal(await ok(await owner.send('DELETE', `/me/invitations/${ids[0]}`)), { id: ids[0], status: 'revoked' });
  await ok(await owner.send('POST', '/me/members', { email: email('now-fits') }), 201);
});

test('role matrix for member writes: owner and admin may invite, remove and revoke; only an owner may change roles', async () => {
  const t = await team('matrix');
  for (const as of ['owner', 'admin', 'member'] as const) {
    // invite
    const invite = await t[as].send('POST', '/me/members', { email: email(`by-${as}`), role: 'member' });
    if (as === 'member') await expectError(invite, 403, 'forbidden', 'member invites');
    else await ok(invite, 201, `${as} invites`);

    // revoke a pending invitation (made by the owner)
    const inv = await ok(await t.owner.send('POST', '/me/members', { email: email(`revokee-${as}`) }), 201);
    const revoke = await t[as].send('DELETE', `/me/invitations/${inv.id}`);
    if (as === 'member') await expectError(revoke, 403, 'forbidden', 'member revokes');
    else assert.equal(await ok(revoke, 200, `${as} revokes`), { id: inv.id, status: 'revoked' });

    // change a role
    const target = await join(t.owner, t.orgId, email(`target-${as}`), 'member');
    const patch = await t[as].send('PATCH', `/me/members/${target.userId}`, { role: 'admin' });
    if (as === 'owner') assert.is((await ok(patch, 200, 'owner changes a role')).role, 'admin');
    else await expectError(patch, 403, 'forbidden', `${as} changes a role`);

    // remove another member
    const del = await t[as].send('DELETE', `/me/members/${target.userId}`);
    if (as === 'member') await expectError(del, 403, 'forbidden', 'member removes');
    else assert.equal(await ok(del, 200, `${as} removes`), { id: target.userId, removed: true, left: false });
  }
  const members = (await json(await t.owner.get('/me/members'))).members.map((m: any) => m.role).sort();
  assert.equal(members, ['admin', 'member', 'member', 'owner'], 'the owner and admin removed their targets; the member could not');
});

test('an admin cannot remove an owner (403 forbidden) nor invite an owner; an owner can do both', async () => {
  const t = await team('adm');
  await expectError(await t.admin.send('DELETE', `/me/members/${t.ownerId}`), 403, 'forbidden', 'admin removes owner');
  await expectError(await t.admin.send('POST', '/me/members', { email: email('new-owner'), role: 'owner' }), 403, 'forbidden', 'admin invites owner');
  const co = await join(t.owner, t.orgId, email('co-owner'), 'owner');
  assert.is((await json(await co.b.get('/me'))).role, 'owner');
  assert.equal(await ok(await t.owner.send('DELETE', `/me/members/${co.userId}`)), { id: co.userId, removed: true, left: false });
  assert.ok((await json(await t.admin.get('/me/members'))).members.every((m: any) => m.id !== co.userId));
});

test('changing a role: bad_role, 404 for a non-member, and the new role applies to the member\'s next request', async () => {
  const t = await team('promote');
  await expectError(await t.owner.send('PATCH', `/me/members/${t.memberId}`, { role: 'emperor' }), 400, 'bad_role');
  await expectError(await t.owner.send('PATCH', `/me/members/${t.memberId}`, {}), 400, 'bad_request');
  await expectError(await t.owner.send('PATCH', '/me/members/usr_nobody', { role: 'admin' }), 404, 'not_found');
  await expectError(await t.member.send('POST', '/me/workspaces', { name: 'before' }), 403, 'forbidden');
  const m = await ok(await t.owner.send('PATCH', `/me/members/${t.memberId}`, { role: 'admin' }));
  assert.equal({ id: m.id, role: m.role }, { id: t.memberId, role: 'admin' });
  assert.is((await json(await t.member.get('/me'))).role, 'admin');
  await ok(await t.member.send('POST', '/me/workspaces', { name: 'after' }), 201, 'the promoted member writes as admin');
  await ok(await t.owner.send('PATCH', `/me/members/${t.memberId}`, { role: 'member' }));
  await expectError(await t.member.send('POST', '/me/workspaces', { name: 'demoted' }), 403, 'forbidden');
});

test('the last owner cannot be demoted or leave (400 last_owner); once another owner exists, they can', async () => {
  const t = await team('last');
  await expectError(await t.owner.send('PATCH', `/me/members/${t.ownerId}`, { role: 'admin' }), 400, 'last_owner', 'demote self');
  await expectError(await t.owner.send('DELETE', `/me/members/${t.ownerId}`), 400, 'last_owner', 'leave');
  await ok(await t.owner.send('PATCH', `/me/members/${t.adminId}`, { role: 'owner' }));
  assert.is((await ok(await t.owner.send('PATCH', `/me/members/${t.ownerId}`, { role: 'admin' }))).role, 'admin', 'two owners: one may step down');
  await expectError(await t.admin.send('PATCH', `/me/members/${t.adminId}`, { role: 'member' }), 400, 'last_owner', 'the new sole owner');
  await ok(await t.admin.send('PATCH', `/me/members/${t.ownerId}`, { role: 'owner' }));
  assert.equal(await ok(await t.admin.send('DELETE', `/me/members/${t.adminId}`)), { id: t.adminId, removed: true, left: true });
  const left = await json(await t.owner.get('/me/members'));
  assert.equal(left.members.map((m: any) => m.role).sort(), ['member', 'owner']);
});

test('leaving: a member removes themselves; their session falls back to the personal org and the team is gone from their list', async () => {
  const t = await team('leave');
  const personal = (await json(await t.member.get('/me/orgs'))).data.find((o: any) => o.personal).id;
  assert.equal(await ok(await t.member.send('DELETE', `/me/members/${t.memberId}`)), { id: t.memberId, removed: true, left: true });
  const me = await ok(await t.member.get('/me'), 200, 'still signed in');
  assert.is(me.org.id, personal);
  assert.is(me.role, 'owner');
  const orgs = (await json(await t.member.get('/me/orgs'))).data;
  assert.equal(orgs.map((o: any) => [o.id, o.active]), [[personal, true]]);
  await expectError(await t.member.send('POST', '/me/orgs/switch', { org_id: t.orgId }), 404, 'not_found');
  assert.ok((await json(await t.owner.get('/me/members'))).members.every((m: any) => m.id !== t.memberId));
});

test('a removed member is moved back to their personal org on their next request and cannot act in the team', async () => {
  const t = await team('removed');
  await ok(await t.owner.send('DELETE', `/me/members/${t.memberId}`));
  const me = await json(await t.member.get('/me'));
  assert.is(me.org.personal, true);
  const members = await json(await t.member.get('/me/members'));
  assert.equal(members.members.map((m: any) => m.id), [t.memberId], 'they now see their personal org only');
  await expectError(await t.owner.send('DELETE', `/me/members/${t.memberId}`), 404, 'not_found', 'removing twice');
});

test('nobody can leave their personal org (400 personal_org)', async () => {
  const s = await signIn(gw, email('stay'));
  const me = await json(await s.get('/me'));
  await expectError(await s.send('DELETE', `/me/members/${me.id}`), 400, 'personal_org');
  await expectError(await s.send('PATCH', `/me/members/${me.id}`, { role: 'member' }), 400, 'last_owner');
});

test('a revoked invitation disappears for both sides; revoking it again is 404', async () => {
  const owner = await signIn(gw, email('rev-owner'));
  await createTeam(owner);
  const who = email('rev-guest');
  const inv = await ok(await owner.send('POST', '/me/members', { email: who, role: 'admin' }), 201);
  const guest = await signIn(gw, who);
  assert.is((await json(await guest.get('/me/invitations'))).data.length, 1);
  await ok(await owner.send('DELETE', `/me/invitations/${inv.id}`));
  assert.equal((await json(await guest.get('/me/invitations'))).data, []);
  assert.equal((await json(await owner.get('/me/members'))).invitations, []);
  await expectError(await guest.send('POST', `/me/invitations/${inv.id}/accept`), 404, 'not_found');
  await expectError(await owner.send('DELETE', `/me/invitations/${inv.id}`), 404, 'not_found');
});

test('accepting when already a member (added meanwhile by an operator) is 400 already_member', async () => {
  const owner = await signIn(gw, email('dup-owner'));
  const orgId = await createTeam(owner);
  const who = email('dup-guest');
  const inv = await ok(await owner.send('POST', '/me/members', { email: who }), 201);
  const guest = await signIn(gw, who);
  const userId = (await json(await guest.get('/me'))).id;
  const db = new Database(gw.dbPath);
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare("INSERT INTO memberships (org_id, user_id, role, created_at) VALUES (?, ?, 'member', ?)").run(orgId, userId, Date.now());
  } finally {
    db.close();
  }
  await expectError(await guest.send('POST', `/me/invitations/${inv.id}/accept`), 400, 'already_member');
});

test('every teams route needs a session (401 no_session) and writes need a same-origin Origin (403)', async () => {
  for (const [method, path] of [['GET', '/me/orgs'], ['POST', '/me/orgs'], ['GET', '/me/members'], ['POST', '/me/members'],
    ['GET', '/me/invitations'], ['POST', '/me/invitations/x/accept'], ['DELETE', '/me/members/x'], ['GET', '/me/workspaces']]) {
    const r = await fetch(gw.url + path, { method, headers: { 'content-type': 'application/json' }, body: method === 'GET' ? undefined : '{}' });
    await expectError(r, 401, 'no_session', `${method} ${path}`);
  }
  const s = await signIn(gw, email('csrf'));
  const r = await s.send('POST', '/me/orgs', { name: 'evil' }, { origin: 'https://evil.example' });
  await expectError(r, 403, 'forbidden');
  assert.is((await json(await s.get('/me/orgs'))).data.length, 1, 'nothing was created');
});

test('cross-org isolation: org A\'s owner and member get 404 and none of org B\'s data for every teams route with B\'s ids', async () => {
  const a = await team('iso-a');
  const b = await team('iso-b');
  const bWs = await ok(await b.owner.send('POST', '/me/workspaces', { name: 'b-secret-ws', monthly_budget_inr: 5 }), 201);
  const bInv = await ok(await b.owner.send('POST', '/me/members', { email: email('b-invitee') }), 201);
  const snapshot = async () => JSON.stringify(await Promise.all(['/me/members', '/me/workspaces', '/me/orgs'].map(async (p) => json(await b.owner.get(p)))));
  const before = await snapshot();
  const bSecrets = [b.orgId, b.ownerId, b.adminId, b.memberId, bWs.id, bInv.id, 'b-secret-ws', 'iso-b', bInv.email];

  const calls: [string, string, unknown?][] = [
    ['POST', '/me/orgs/switch', { org_id: b.orgId }],
    ['PATCH', `/me/members/${b.memberId}`, { role: 'admin' }],
    ['DELETE', `/me/members/${b.memberId}`],
    ['DELETE', `/me/members/${b.ownerId}`],
    ['DELETE', `/me/invitations/${bInv.id}`],
    ['POST', `/me/invitations/${bInv.id}/accept`],
    ['POST', `/me/invitations/${bInv.id}/decline`],
    ['PATCH', `/me/workspaces/${bWs.id}`, { monthly_budget_inr: 0 }],
    ['PATCH', `/me/workspaces/${bWs.id}`, { name: 'renamed' }],
    ['DELETE', `/me/workspaces/${bWs.id}`],
  ];
  for (const [method, path, body] of calls) {
    const r = await a.owner.send(method, path, body);
    const text = await r.text();
    assert.is(r.status, 404, `owner: ${method} ${path} answered ${r.status} ${text}`);
    assert.is(JSON.parse(text).error.code, 'not_found');
    for (const s of bSecrets) assert.not.ok(text.includes(s), `${method} ${path} leaked ${s}`);
  }
  // A plain member of A: the routes a member may call answer 404; role-gated writes stop at 403.
  for (const [method, path, body] of calls) {
    const r = await a.member.send(method, path, body);
    const text = await r.text();
    assert.ok(r.status === 404 || r.status === 403, `member: ${method} ${path} answered ${r.status}`);
    for (const s of bSecrets) assert.not.ok(text.includes(s), `${method} ${path} leaked ${s}`);
  }
  for (const p of ['/me/orgs', '/me/members', '/me/invitations', '/me/workspaces']) {
    const text = await (await a.owner.get(p)).text();
    for (const s of bSecrets) assert.not.ok(text.includes(s), `${p} leaked ${s}`);
  }
  assert.is(await snapshot(), before, 'nothing of org B changed');
});

test.run();
