import type { Db } from './database.js';
import type { Role } from '../domain/session.js';
import { insertOrg } from './orgs.js';

export interface OrgOfUserRow {
  id: string;
  name: string;
  personal: number;
  role: Role;
  created_at: number;
}

export interface MemberRow {
  user_id: string;
  email: string;
  name: string | null;
  role: Role;
  created_at: number;
}

const MEMBER_COLUMNS = 'm.user_id, u.email, u.name, m.role, m.created_at';

/** The orgs a user belongs to, personal org first, then by when they joined. */
export function listOrgsOfUser(db: Db, userId: string): OrgOfUserRow[] {
  return db.prepare(`SELECT o.id, o.name, o.personal, m.role, o.created_at FROM memberships m JOIN orgs o ON o.id = m.org_id
    WHERE m.user_id = ? ORDER BY o.personal DESC, m.created_at, o.id`).all(userId) as OrgOfUserRow[];
}

export function findOrgOfUser(db: Db, userId: string, orgId: string): OrgOfUserRow | undefined {
  return db.prepare(`SELECT o.id, o.name, o.personal, m.role, o.created_at FROM memberships m JOIN orgs o ON o.id = m.org_id
    WHERE m.user_id = ? AND m.org_id = ?`).get(userId, orgId) as OrgOfUserRow | undefined;
}

/** Team (non-personal) orgs the user belongs to, in any role: what the team-org cap counts. */
export function countTeamOrgsOfUser(db: Db, userId: string): number {
  return db.prepare(`SELECT COUNT(*) FROM memberships m JOIN orgs o ON o.id = m.org_id WHERE m.user_id = ? AND o.personal = 0`)
    .pluck().get(userId) as number;
}

/** Creates a team org with its default workspace and the creator as its owner, in one transaction. */
export function insertTeamOrg(db: Db, name: string, ownerId: string, now: number): { orgId: string; workspaceId: string } {
  return db.transaction(() => {
    const created = insertOrg(db, name, { now });
    insertMember(db, created.orgId, ownerId, 'owner', now);
    return created;
  })();
}

export function insertMember(db: Db, orgId: string, userId: string, role: Role, now: number): void {
  db.prepare('INSERT INTO memberships (org_id, user_id, role, created_at) VALUES (?, ?, ?, ?)').run(orgId, userId, role, now);
}

export function listMembers(db: Db, orgId: string): MemberRow[] {
  return db.prepare(`SELECT ${MEMBER_COLUMNS} FROM memberships m JOIN users u ON u.id = m.user_id
    WHERE m.org_id = ? ORDER BY m.created_at, u.email`).all(orgId) as MemberRow[];
}

export function findMember(db: Db, orgId: string, userId: string): MemberRow | undefined {
  return db.prepare(`SELECT ${MEMBER_COLUMNS} FROM memberships m JOIN users u ON u.id = m.user_id
    WHERE m.org_id = ? AND m.user_id = ?`).get(orgId, userId) as MemberRow | undefined;
}

/** Case-insensitive, as users.email is. */
export function findMemberByEmail(db: Db, orgId: string, email: string): MemberRow | undefined {
  return db.prepare(`SELECT ${MEMBER_COLUMNS} FROM memberships m JOIN users u ON u.id = m.user_id
    WHERE m.org_id = ? AND u.email = ?`).get(orgId, email) as MemberRow | undefined;
}

export function countMembers(db: Db, orgId: string): number {
  return db.prepare('SELECT COUNT(*) FROM memberships WHERE org_id = ?').pluck().get(orgId) as number;
}

export function countOwners(db: Db, orgId: string): number {
  return db.prepare("SELECT COUNT(*) FROM memberships WHERE org_id = ? AND role = 'owner'").pluck().get(orgId) as number;
}

export function updateMemberRole(db: Db, orgId: string, userId: string, role: Role): boolean {
  return db.prepare('UPDATE memberships SET role = ? WHERE org_id = ? AND user_id = ?').run(role, orgId, userId).changes === 1;
}

/**
 * Removes a membership and moves the user's sessions that were acting in that org to their
 * personal org, so their next request does not start in an org they no longer belong to (the
 * session reader would fall back too; doing it here keeps sessions rows truthful at once).
 */
export function deleteMember(db: Db, orgId: string, userId: string): boolean {
  return db.transaction(() => {
    const res = db.prepare('DELETE FROM memberships WHERE org_id = ? AND user_id = ?').run(orgId, userId);
    if (res.changes === 0) return false;
    const personal = db.prepare(`SELECT m.org_id FROM memberships m JOIN orgs o ON o.id = m.org_id
      WHERE m.user_id = ? AND o.personal = 1`).pluck().get(userId) as string | undefined;
    if (personal) db.prepare('UPDATE sessions SET active_org_id = ? WHERE user_id = ? AND active_org_id = ?').run(personal, userId, orgId);
    return true;
  })();
}
