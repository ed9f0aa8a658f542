import * as assert from 'uvu/assert';
import type { KeyRecord } from '../../../src/domain/key-record.js';
import type { Session } from '../../../src/domain/session.js';
import type { InvitationStore } from '../../../src/domain/stores/invitation-store.js';
import type { KeyStore } from '../../../src/domain/stores/key-store.js';
import type { MemberStore } from '../../../src/domain/stores/member-store.js';
import type { SignInStore } from '../../../src/domain/stores/sign-in-store.js';
import { hashApiKey } from '../../../src/lib/api-key.js';
import { sqliteInvitationStore } from '../../../src/store/invitations.js';
import { keyByHashReader, sqliteKeyStore } from '../../../src/store/keys.js';
import { sqliteMemberStore } from '../../../src/store/members.js';
import { hasAnyOrg, insertMoneyEvent, sqliteOrgStore } from '../../../src/store/orgs.js';
import { connectPostgres, type Pg } from '../../../src/store/postgres/pg-database.js';
import { postgresInvitationStore } from '../../../src/store/postgres/pg-invitations.js';
import { postgresKeyByHash, postgresKeyStore } from '../../../src/store/postgres/pg-keys.js';
import { postgresMemberStore } from '../../../src/store/postgres/pg-members.js';
import { insertMoneyEventPg, postgresHasAnyOrg, postgresOrgStore } from '../../../src/store/postgres/pg-orgs.js';
import { postgresSessionReader } from '../../../src/store/postgres/pg-sessions.js';
import { postgresSignInStore } from '../../../src/store/postgres/pg-sign-in.js';
import { sessionReader } from '../../../src/store/sessions.js';
import { sqliteSignInStore } from '../../../src/store/sign-in.js';
import { rows, exec } from '../../support/seed-sql.js';
import { eachBackend, type Person } from '../../support/store-backends.js';

// The identity stores' rules where PostgreSQL differs from SQLite: writes run side by side, so a
// check-then-write under a cap, a first sign-in and a one-time link must hold when requests race.
// Each test runs over both backends, so the twins keep one contract.

/**
 * A second pool on the backend's database, wide enough that the racing writes really run side by
 * side on PostgreSQL (the backend's own pool is small).
 */
function widePool(pg: Pg): Pg {
  const o = pg.options;
  return connectPostgres(`postgres://${o.user}@${o.host[0]}:${o.port[0]}/${o.database}`, { max: 16 });
}

const count = async (be: Parameters<typeof rows>[0], text: string, ...args: string[]): Promise<number> =>
  Number((await rows<{ n: number }>(be, text, ...args))[0].n);

eachBackend('identity stores', (test, be) => {
  let keys: KeyStore;
  let members: MemberStore;
  let signIns: SignInStore;
  let invitations: InvitationStore;
  let byHash: (hash: string) => Promise<KeyRecord | undefined>;
  let readSession: (token: string, now: number) => Promise<Session | null>;
  let ana: Person;
  let wsId: string;
  let wide: Pg | undefined;

  test.before(async () => {
    wide = be().pg && widePool(be().pg!);
    keys = be().pick(sqliteKeyStore, () => postgresKeyStore(wide!));
    members = be().pick(sqliteMemberStore, () => postgresMemberStore(wide!));
    signIns = be().pick(sqliteSignInStore, () => postgresSignInStore(wide!));
    invitations = be().pick(sqliteInvitationStore, () => postgresInvitationStore(wide!));
    byHash = be().pick((db) => { const read = keyByHashReader(db); return async (h: string) => read(h); }, postgresKeyByHash);
    readSession = be().pick((db) => { const read = sessionReader(db); return async (t: string, now: number) => read(t, now); }, postgresSessionReader);
    ana = await be().signUp('ana@example.com');
    wsId = (await rows<{ id: string }>(be(), 'SELECT id FROM workspaces WHERE org_id = ?', ana.personalOrgId))[0].id;
  });

  test('concurrent key creations pass the cap on active keys in turn: exactly the cap is made', async () => {
    const cap = 5;
    const results = await Promise.allSettled(Array.from({ length: 24 }, (_, i) => keys.create(
      { orgId: ana.personalOrgId, workspaceId: wsId, name: `k${i}`, tier: 'trial' }, Date.now(),
      (f) => { if (f.active >= cap) throw new Error('key_cap'); },
    )));
    assert.is(results.filter((r) => r.status === 'fulfilled').length, cap);
    assert.ok(results.every((r) => r.status === 'fulfilled' || (r.reason as Error).message === 'key_cap'));
    assert.is(await keys.countActive(ana.personalOrgId, Date.now()), cap);
  });

  test('concurrent creations of one key name: one is made', async () => {
    const org = await be().org('names');
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => keys.create(
      { orgId: org.orgId, workspaceId: org.workspaceId, name: 'same', tier: 'trial' }, Date.now(),
      (f) => { if (f.nameTaken) throw new Error('duplicate_key_name'); },
    )));
    assert.is(results.filter((r) => r.status === 'fulfilled').length, 1);
  });

  test('a revocation is in the change feed once; limits changes too; the key by its hash reads as find does, in numbers', async () => {
    const made = await keys.create({ orgId: ana.personalOrgId, workspaceId: wsId, name: 'feed', tier: 'standard', rpmLimit: 60,
      dailyLimit: 1000, monthlyBudgetMicros: 5_000_000, expiresAt: Date.now() + 86_400_000 }, Date.now());
    const found = await keys.find(made.id);
    assert.equal(await byHash(hashApiKey(made.key)), found);
    assert.equal([typeof found!.rpmLimit, typeof found!.expiresAt, found!.revokedAt], ['number', 'number', null]);
    assert.is(await byHash(hashApiKey(`${made.key}x`)), undefined);

    const before = await count(be(), 'SELECT COALESCE(MAX(seq), 0) AS n FROM change_log');
    const revokes = await Promise.all([keys.revoke(made.id, Date.now()), keys.revoke(made.id, Date.now())]);
    assert.equal(revokes.sort(), [false, true]);
    assert.ok(await keys.updateLimits(made.id, { rpmLimit: null }, Date.now()));
    assert.not.ok(await keys.updateLimits('key_none', { rpmLimit: 1 }, Date.now()));
    const feed = await rows<{ kind: string; ref: string }>(be(), 'SELECT kind, ref FROM change_log WHERE seq > ? ORDER BY seq', before);
    assert.equal(feed.map((c) => ({ ...c })), [{ kind: 'key', ref: made.id }, { kind: 'key', ref: made.id }]);
    const revoked = await byHash(hashApiKey(made.key));
    assert.equal([typeof revoked!.revokedAt, revoked!.rpmLimit], ['number', null]);
  });

  test('concurrent team org creations by one user stay within the cap', async () => {
    const made = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => members.createTeamOrg(`T${i}`, ana.userId, Date.now(),
      (f) => { if (f.teamOrgs >= 2) throw new Error('team_cap'); })));
    assert.is(made.filter((r) => r.status === 'fulfilled').length, 2);
    assert.is((await members.orgsOfUser(ana.userId)).filter((o) => !o.personal).length, 2);
  });

  test('a session acting in an org its user left falls back to the personal org, and stays there; an expired one is null', async () => {
    const bo = await be().signUp('bo@example.com');
    const team = await be().org('Team');
    await exec(be(), "INSERT INTO memberships (org_id, user_id, role, created_at) VALUES (?, ?, 'admin', ?)", team.orgId, bo.userId, Date.now());
    await exec(be(), 'UPDATE sessions SET active_org_id = ? WHERE user_id = ?', team.orgId, bo.userId);
    const token = bo.headers.cookie.replace('gw_session=', '');
    assert.equal([(await readSession(token, Date.now()))!.orgId, (await readSession(token, Date.now()))!.role], [team.orgId, 'admin']);
    await exec(be(), 'DELETE FROM memberships WHERE org_id = ? AND user_id = ?', team.orgId, bo.userId);
    const back = await readSession(token, Date.now());
    assert.equal([back!.orgId, back!.role, back!.userId, back!.email], [bo.personalOrgId, 'owner', bo.userId, 'bo@example.com']);
    assert.equal(await rows(be(), 'SELECT active_org_id AS "orgId" FROM sessions WHERE user_id = ?', bo.userId)
      .then((r) => r.map((x) => ({ ...(x as object) }))), [{ orgId: bo.personalOrgId }]);
    assert.is(await readSession(token, Date.now() + 7_200_000), null);
    assert.is(await readSession('no-such-token', Date.now()), null);
  });

  test('first sign-ins of one new email racing (in any case) make one user, one personal org and one signup credit', async () => {
    const emails = ['new@example.com', 'New@Example.com', 'NEW@EXAMPLE.COM'];
    const opened = await Promise.all(Array.from({ length: 12 }, (_, i) =>
      signIns.signIn({ email: emails[i % 3], signupCreditMicros: 1_000_000 }, 3_600_000, Date.now())));
    const userIds = new Set(opened.map((o) => o.userId));
    assert.is(userIds.size, 1);
    const [userId] = userIds;
    assert.is(await count(be(), "SELECT COUNT(*) AS n FROM users WHERE lower(email) = 'new@example.com'"), 1);
    const orgs = await members.orgsOfUser(userId);
    // Named after the local part of whichever spelling came first.
    assert.equal(orgs.map((o) => [o.personal, o.role, o.name.toLowerCase()]), [[true, 'owner', 'new']]);
    assert.is(await count(be(), 'SELECT COUNT(*) AS n FROM money_events WHERE org_id = ?', orgs[0].id), 1);
    assert.is(await count(be(), 'SELECT balance_micros AS n FROM orgs WHERE id = ?', orgs[0].id), 1_000_000);
    for (const o of opened) assert.equal((await readSession(o.token, Date.now()))!.orgId, orgs[0].id);
  });

  test('a sign-in through a provider identity finds its user by the identity next time, whatever the email', async () => {
    const identity = { provider: 'github', subject: '42' };
    const first = await signIns.signIn({ email: 'cy@example.com', identity, name: 'Cy', signupCreditMicros: 0 }, 60_000, Date.now());
    const again = await signIns.signIn({ email: 'cy@elsewhere.example', identity, signupCreditMicros: 0 }, 60_000, Date.now());
    assert.is(again.userId, first.userId);
    assert.equal((await members.orgsOfUser(first.userId)).map((o) => o.name), ["Cy's org"]);
  });

  test('a login link is used once when two clicks race; an expired or unknown one is null', async () => {
    const now = Date.now();
    await signIns.saveLoginLink('tok-race', 'Ana@Example.com', now, now + 600_000);
    const used = await Promise.all(Array.from({ length: 10 }, () => signIns.useLoginLink('tok-race', Date.now())));
    assert.equal(used.filter((e) => e !== null), ['Ana@Example.com']);
    await signIns.saveLoginLink('tok-old', 'ana@example.com', now - 10, now - 1);
    assert.is(await signIns.useLoginLink('tok-old', now), null);
    assert.is(await signIns.useLoginLink('tok-none', now), null);
  });

  test('an oauth state is taken once when two callbacks race; saving sweeps the expired', async () => {
    const now = Date.now();
    const row = { state: 's1', provider: 'github', code_verifier: 'v', nonce: null, return_to: '/x', created_at: now, expires_at: now + 600_000 };
    await signIns.saveState({ ...row, state: 'old', created_at: now - 700_000, expires_at: now - 100_000 });
    await signIns.saveState(row);
    assert.is(await count(be(), "SELECT COUNT(*) AS n FROM oauth_states WHERE state = 'old'"), 0);
    const taken = await Promise.all(Array.from({ length: 6 }, () => signIns.takeState('s1')));
    assert.equal(taken.filter((t) => t !== undefined).map((t) => ({ ...t })), [row]);
  });

  test('a money event with a ref applies once when repeated at once; the first credit marks the org funded', async () => {
    const org = await be().org('paid');
    const credit = (ref: string) => {
      const { db } = be();
      const opts = { ref, now: 1_700_000_000_000 };
      return db ? Promise.resolve(insertMoneyEvent(db, org.orgId, 'payment', 2_000_000, opts)) : insertMoneyEventPg(wide!, org.orgId, 'payment', 2_000_000, opts);
    };
    const results = await Promise.all(Array.from({ length: 8 }, () => credit('pay_1')));
    assert.is(results.filter((r) => r.applied).length, 1);
    assert.ok(results.every((r) => r.balanceMicros === 2_000_000));
    const [o] = await rows<{ b: number; f: number }>(be(), 'SELECT balance_micros AS b, funded_at AS f FROM orgs WHERE id = ?', org.orgId);
    assert.equal([Number(o.b), Number(o.f)], [2_000_000, 1_700_000_000_000]);
    assert.is(await count(be(), "SELECT COUNT(*) AS n FROM change_log WHERE kind = 'org' AND ref = ?", org.orgId), 1);
  });

  test('concurrent invitations to one org stay within its member cap; one email is invited once', async () => {
    const dee = await be().signUp('dee@example.com');
    const team = await be().org('Invites');
    await exec(be(), "INSERT INTO memberships (org_id, user_id, role, created_at) VALUES (?, ?, 'owner', ?)", team.orgId, dee.userId, Date.now());
    const cap = 4;
    const invite = (orgId: string, email: string) => invitations.create({ orgId, email, role: 'member', invitedBy: dee.userId }, Date.now(), (f) => {
      if (f.alreadyInvited) throw new Error('already_invited');
      if (f.members + f.pending >= cap) throw new Error('member_cap');
    });
    const made = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => invite(team.orgId, `p${i}@example.com`)));
    assert.is(made.filter((r) => r.status === 'fulfilled').length, cap - 1);
    assert.is((await invitations.listPendingOfOrg(team.orgId)).length, cap - 1);

    const other = await be().org('Once');
    await exec(be(), "INSERT INTO memberships (org_id, user_id, role, created_at) VALUES (?, ?, 'owner', ?)", other.orgId, dee.userId, Date.now());
    const spellings = ['same@example.com', 'Same@Example.com', 'SAME@EXAMPLE.COM'];
    const once = await Promise.allSettled(Array.from({ length: 9 }, (_, i) => invite(other.orgId, spellings[i % 3])));
    assert.is(once.filter((r) => r.status === 'fulfilled').length, 1);
    assert.is((await invitations.listPendingOfOrg(other.orgId)).length, 1);
    assert.is((await invitations.listPendingForEmail('same@EXAMPLE.com')).length, 1);
  });

  test('a user accepting invitations at once stays within the team-org cap; an acceptance racing a revocation is one or the other', async () => {
    const eve = await be().signUp('eve@example.com');
    const ids: string[] = [];
    for (const name of ['A', 'B', 'C', 'D']) {
      const team = await be().org(name);
      await exec(be(), "INSERT INTO memberships (org_id, user_id, role, created_at) VALUES (?, ?, 'owner', ?)", team.orgId, ana.userId, Date.now());
      ids.push((await invitations.create({ orgId: team.orgId, email: 'eve@example.com', role: 'member', invitedBy: ana.userId }, Date.now(), () => {})).id);
    }
    const accepted = await Promise.allSettled(ids.map((id) => invitations.accept(id, eve.userId, Date.now(), (f) => {
      if (f.invitation?.status !== 'pending') throw new Error('not_found');
      if (f.teamOrgs >= 2) throw new Error('team_cap');
    })));
    assert.is(accepted.filter((r) => r.status === 'fulfilled').length, 2);
    assert.is((await members.orgsOfUser(eve.userId)).filter((o) => !o.personal).length, 2);

    const fay = await be().signUp('fay@example.com');
    const team = await be().org('Race');
    await exec(be(), "INSERT INTO memberships (org_id, user_id, role, created_at) VALUES (?, ?, 'owner', ?)", team.orgId, ana.userId, Date.now());
    const inv = await invitations.create({ orgId: team.orgId, email: 'fay@example.com', role: 'member', invitedBy: ana.userId }, Date.now(), () => {});
    const [acc, rev] = await Promise.allSettled([
      invitations.accept(inv.id, fay.userId, Date.now(), (f) => { if (f.invitation?.status !== 'pending') throw new Error('not_found'); }),
      invitations.decide(inv.id, 'revoked', Date.now()),
    ]);
    const isMember = (await members.find(team.orgId, fay.userId)) !== undefined;
    const status = (await invitations.find(inv.id))!.status;
    assert.ok(acc.status === 'fulfilled' ? isMember && status === 'accepted' && rev.status === 'fulfilled' && rev.value === false
      : !isMember && status === 'revoked', `${acc.status} ${status} ${isMember}`);
  });

  test('two owners demoting each other at once: the org keeps an owner (five rounds)', async () => {
    const gus = await be().signUp('gus@example.com');
    const lastOwner = (f: { member?: { role: string }; owners: number }) => { if (f.member?.role === 'owner' && f.owners <= 1) throw new Error('last_owner'); };
    for (let round = 0; round < 5; round++) {
      const team = await be().org(`Owners ${round}`);
      for (const u of [ana.userId, gus.userId]) {
        await exec(be(), "INSERT INTO memberships (org_id, user_id, role, created_at) VALUES (?, ?, 'owner', ?)", team.orgId, u, Date.now());
      }
      const done = await Promise.allSettled([
        members.changeRole(team.orgId, ana.userId, 'admin', lastOwner),
        members.changeRole(team.orgId, gus.userId, 'admin', lastOwner),
        members.remove(team.orgId, ana.userId, lastOwner),
      ]);
      assert.ok(done.some((r) => r.status === 'rejected'));
      assert.is((await members.list(team.orgId)).filter((m) => m.role === 'owner').length, 1);
    }
  });

  test('a key list carries spend, last use and creation; active keys exclude revoked and expired; the account reads counters', async () => {
    const org = await be().org('list');
    const now = Date.now();
    const mk = (name: string, extra: object = {}) => keys.create({ orgId: org.orgId, workspaceId: org.workspaceId, name, tier: 'trial', ...extra }, now);
    const full = await mk('full');
    const mcp = await mk('mcp', { scope: 'inference' });
    const old = await mk('old', { expiresAt: now - 1 });
    await exec(be(), 'INSERT INTO monthly_spend (scope_id, ist_month, spent_micros) VALUES (?, ?, ?)', full.id, '2026-11', 1234);
    await exec(be(), 'INSERT INTO key_daily_counts (key_id, ist_day, requests) VALUES (?, ?, ?)', full.id, '2026-11-24', 7);
    await exec(be(), 'UPDATE orgs SET balance_micros = ? WHERE id = ?', 99, org.orgId);
    const listed = await keys.list(org.orgId, '2026-11');
    // One creation time: the order among them is by id, so compare by name.
    const byName = [...listed].sort((a, b) => a.name.localeCompare(b.name));
    assert.equal(byName.map((k) => [k.name, k.scope, k.spentMonthMicros, k.lastUsedAt, k.createdAt]),
      [['full', 'full', 1234, null, now], ['mcp', 'inference', 0, null, now], ['old', 'full', 0, null, now]]);
    assert.equal(listed.map((k) => k.id).sort(), [full.id, mcp.id, old.id].sort());
    assert.equal((await keys.listActive(org.orgId, now)).map((k) => k.id).sort(), [full.id, mcp.id].sort());
    assert.equal([await keys.countActive(org.orgId, now), await keys.countActive(org.orgId, now, 'inference')], [1, 1]);
    assert.equal(await keys.account(org.orgId, full.id, '2026-11-24', '2026-11'), { balanceMicros: 99, requestsToday: 7, spentMonthMicros: 1234 });
    assert.equal(await keys.account(org.orgId, mcp.id, '2026-11-24', '2026-11'), { balanceMicros: 99, requestsToday: 0, spentMonthMicros: 0 });
  });

  test("an org's owners' emails are sorted ignoring case; its default and active workspaces are known", async () => {
    const orgs = be().pick(sqliteOrgStore, postgresOrgStore);
    assert.ok(await be().pick((db) => async () => hasAnyOrg(db), (pg) => () => postgresHasAnyOrg(pg))());
    const org = await be().org('owners');
    for (const email of ['Zed@example.com', 'amy@example.com', 'Bob@example.com']) {
      const p = await be().signUp(email);
      await exec(be(), "INSERT INTO memberships (org_id, user_id, role, created_at) VALUES (?, ?, 'owner', ?)", org.orgId, p.userId, Date.now());
    }
    assert.equal(await orgs.ownerEmails(org.orgId), ['amy@example.com', 'Bob@example.com', 'Zed@example.com']);
    assert.is(await orgs.defaultWorkspaceId(org.orgId), org.workspaceId);
    assert.ok(await orgs.hasActiveWorkspace(org.orgId, org.workspaceId));
    assert.not.ok(await orgs.hasActiveWorkspace(ana.personalOrgId, org.workspaceId));
    await orgs.rename(org.orgId, 'Renamed');
    assert.equal(await orgs.find(org.orgId), { id: org.orgId, name: 'Renamed', personal: false, balanceMicros: 0, fundedAt: null,
      createdAt: (await orgs.find(org.orgId))!.createdAt, guardrails: null,
      responseCache: null, promptCache: null });
    assert.is(typeof (await orgs.find(org.orgId))!.createdAt, 'number');
    assert.is(await orgs.find('org_none'), undefined);
  });

  test.after(async () => {
    await wide?.end({ timeout: 1 });
  });
});
