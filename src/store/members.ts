import type { Db } from './database.js';
import type { Role } from '../domain/session.js';
import type { Member, MemberChangeFacts, MemberStore, OrgOfUser } from '../domain/stores/member-store.js';
import { insertOrg } from './orgs.js';

const ORG_OF_USER = `SELECT o.id, o.name, o.personal = 1 AS personal, m.role, o.created_at AS createdAt
  FROM memberships m JOIN orgs o ON o.id = m.org_id`;
const MEMBER = `SELECT m.user_id AS userId, u.email, u.name, m.role, m.created_at AS joinedAt
  FROM memberships m JOIN users u ON u.id = m.user_id`;

// SQLite answers a comparison with 0 or 1: the domain's boolean.
const orgOfUser = (row: (Omit<OrgOfUser, 'personal'> & { personal: number }) | undefined): OrgOfUser | undefined =>
  row && { ...row, personal: row.personal === 1 };

export function insertMember(db: Db, orgId: string, userId: string, role: Role, now: number): void {
  db.prepare('INSERT INTO memberships (org_id, user_id, role, created_at) VALUES (?, ?, ?, ?)').run(orgId, userId, role, now);
}

/** The MemberStore on SQLite: statements prepared once; a check and its write in one immediate transaction. */
export function sqliteMemberStore(db: Db): MemberStore {
  const orgs = db.prepare(`${ORG_OF_USER} WHERE m.user_id = ? ORDER BY o.personal DESC, m.created_at, o.id`);
  const org = db.prepare(`${ORG_OF_USER} WHERE m.user_id = ? AND m.org_id = ?`);
  // What the team-org cap counts: non-personal orgs, in any role.
  const teamOrgs = db.prepare('SELECT COUNT(*) FROM memberships m JOIN orgs o ON o.id = m.org_id WHERE m.user_id = ? AND o.personal = 0').pluck();
  const list = db.prepare(`${MEMBER} WHERE m.org_id = ? ORDER BY m.created_at, u.email`);
  const find = db.prepare(`${MEMBER} WHERE m.org_id = ? AND m.user_id = ?`);
  const owners = db.prepare("SELECT COUNT(*) FROM memberships WHERE org_id = ? AND role = 'owner'").pluck();
  const personal = db.prepare('SELECT personal FROM orgs WHERE id = ?').pluck();
  const setRole = db.prepare('UPDATE memberships SET role = ? WHERE org_id = ? AND user_id = ?');
  const remove = db.prepare('DELETE FROM memberships WHERE org_id = ? AND user_id = ?');
  const personalOrg = db.prepare(`SELECT m.org_id FROM memberships m JOIN orgs o ON o.id = m.org_id
    WHERE m.user_id = ? AND o.personal = 1`).pluck();
  const moveSessions = db.prepare('UPDATE sessions SET active_org_id = ? WHERE user_id = ? AND active_org_id = ?');

  const facts = (orgId: string, userId: string): MemberChangeFacts => ({
    member: find.get(orgId, userId) as Member | undefined,
    owners: owners.get(orgId) as number,
    personal: personal.get(orgId) === 1,
  });
  const createTeamOrg = db.transaction((name: string, ownerId: string, now: number, check: (f: { teamOrgs: number }) => void) => {
    check({ teamOrgs: teamOrgs.get(ownerId) as number });
    const created = insertOrg(db, name, { now });
    insertMember(db, created.orgId, ownerId, 'owner', now);
    return created;
  });
  const changeRole = db.transaction((orgId: string, userId: string, role: Role, check: (f: MemberChangeFacts) => void) => {
    check(facts(orgId, userId));
    setRole.run(role, orgId, userId);
  });
  // The user's sessions acting in the org move to their personal org, so the sessions rows are
  // truthful at once (the session reader would fall back too).
  const removeMember = db.transaction((orgId: string, userId: string, check: (f: MemberChangeFacts) => void) => {
    check(facts(orgId, userId));
    if (remove.run(orgId, userId).changes === 0) return;
    const to = personalOrg.get(userId) as string | undefined;
    if (to) moveSessions.run(to, userId, orgId);
  });
  return {
    orgsOfUser: async (userId) => (orgs.all(userId) as Parameters<typeof orgOfUser>[0][]).map((o) => orgOfUser(o)!),
    orgOfUser: async (userId, orgId) => orgOfUser(org.get(userId, orgId) as Parameters<typeof orgOfUser>[0]),
    createTeamOrg: async (name, ownerId, now, check) => createTeamOrg.immediate(name, ownerId, now, check),
    list: async (orgId) => list.all(orgId) as Member[],
    find: async (orgId, userId) => find.get(orgId, userId) as Member | undefined,
    changeRole: async (orgId, userId, role, check) => changeRole.immediate(orgId, userId, role, check),
    remove: async (orgId, userId, check) => removeMember.immediate(orgId, userId, check),
  };
}
