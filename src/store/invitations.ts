import type { Db } from './database.js';
import type { AcceptFacts, Invitation, InvitationStore, NewInvitation, NewInvitationFacts } from '../domain/stores/invitation-store.js';
import { newId } from '../lib/ids.js';
import { insertMember } from './members.js';

export type { InvitationStatus } from '../domain/stores/invitation-store.js';

const SELECT = `SELECT i.id, i.org_id AS orgId, o.name AS orgName, i.email, i.role, i.invited_by AS invitedBy,
  u.email AS invitedByEmail, i.status, i.created_at AS createdAt, i.decided_at AS decidedAt
  FROM invitations i JOIN users u ON u.id = i.invited_by JOIN orgs o ON o.id = i.org_id`;

/** The InvitationStore on SQLite: statements prepared once; a check and its write in one immediate transaction. */
export function sqliteInvitationStore(db: Db): InvitationStore {
  const find = db.prepare(`${SELECT} WHERE i.id = ?`);
  const pendingOfOrg = db.prepare(`${SELECT} WHERE i.org_id = ? AND i.status = 'pending' ORDER BY i.created_at, i.id`);
  // The email column is COLLATE NOCASE: any case matches.
  const pendingForEmail = db.prepare(`${SELECT} WHERE i.email = ? AND i.status = 'pending' ORDER BY i.created_at, i.id`);
  const memberByEmail = db.prepare('SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.org_id = ? AND u.email = ?');
  const invitedEmail = db.prepare("SELECT 1 FROM invitations WHERE org_id = ? AND email = ? AND status = 'pending'");
  const members = db.prepare('SELECT COUNT(*) FROM memberships WHERE org_id = ?').pluck();
  const pending = db.prepare("SELECT COUNT(*) FROM invitations WHERE org_id = ? AND status = 'pending'").pluck();
  const isMember = db.prepare('SELECT 1 FROM memberships WHERE org_id = ? AND user_id = ?');
  const teamOrgs = db.prepare('SELECT COUNT(*) FROM memberships m JOIN orgs o ON o.id = m.org_id WHERE m.user_id = ? AND o.personal = 0').pluck();
  const insert = db.prepare(`INSERT INTO invitations (id, org_id, email, role, invited_by, status, created_at)
    VALUES (?, ?, ?, ?, ?, 'pending', ?)`);
  const decide = db.prepare("UPDATE invitations SET status = ?, decided_at = ? WHERE id = ? AND status = 'pending'");

  const create = db.transaction((inv: NewInvitation, now: number, check: (f: NewInvitationFacts) => void): Invitation => {
    check({
      alreadyMember: memberByEmail.get(inv.orgId, inv.email) !== undefined,
      alreadyInvited: invitedEmail.get(inv.orgId, inv.email) !== undefined,
      members: members.get(inv.orgId) as number,
      pending: pending.get(inv.orgId) as number,
    });
    const id = newId('inv');
    insert.run(id, inv.orgId, inv.email, inv.role, inv.invitedBy, now);
    return find.get(id) as Invitation;
  });
  const accept = db.transaction((id: string, userId: string, now: number, check: (f: AcceptFacts) => void): Invitation => {
    const invitation = find.get(id) as Invitation | undefined;
    check(invitation === undefined
      ? { invitation, alreadyMember: false, teamOrgs: 0, members: 0 }
      : {
        invitation,
        alreadyMember: isMember.get(invitation.orgId, userId) !== undefined,
        teamOrgs: teamOrgs.get(userId) as number,
        members: members.get(invitation.orgId) as number,
      });
    if (invitation === undefined) throw new Error('accept: the check let a missing invitation through');
    insertMember(db, invitation.orgId, userId, invitation.role, now);
    decide.run('accepted', now, id);
    return find.get(id) as Invitation;
  });
  return {
    create: async (inv, now, check) => create.immediate(inv, now, check),
    find: async (id) => find.get(id) as Invitation | undefined,
    listPendingOfOrg: async (orgId) => pendingOfOrg.all(orgId) as Invitation[],
    listPendingForEmail: async (email) => pendingForEmail.all(email) as Invitation[],
    decide: async (id, status, now) => decide.run(status, now, id).changes === 1,
    accept: async (id, userId, now, check) => accept.immediate(id, userId, now, check),
  };
}
