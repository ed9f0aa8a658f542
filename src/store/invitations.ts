import type { Db } from './database.js';
import type { Role } from '../domain/session.js';
import { newId } from '../lib/ids.js';

export type InvitationStatus = 'pending' | 'accepted' | 'declined' | 'revoked';

export interface InvitationRow {
  id: string;
  org_id: string;
  email: string;
  role: Role;
  invited_by: string;
  status: InvitationStatus;
  created_at: number;
  decided_at: number | null;
}

/** An invitation as listed: with the inviter's email and the org's name. */
export interface InvitationListRow extends InvitationRow {
  invited_by_email: string;
  org_name: string;
}

const LIST_SELECT = `SELECT i.*, u.email AS invited_by_email, o.name AS org_name FROM invitations i
  JOIN users u ON u.id = i.invited_by JOIN orgs o ON o.id = i.org_id`;

export function insertInvitation(db: Db, inv: { orgId: string; email: string; role: Role; invitedBy: string }, now: number): InvitationRow {
  const id = newId('inv');
  db.prepare(`INSERT INTO invitations (id, org_id, email, role, invited_by, status, created_at) VALUES (?, ?, ?, ?, ?, 'pending', ?)`)
    .run(id, inv.orgId, inv.email, inv.role, inv.invitedBy, now);
  return findInvitation(db, id)!;
}

export function findInvitation(db: Db, id: string): InvitationRow | undefined {
  return db.prepare('SELECT * FROM invitations WHERE id = ?').get(id) as InvitationRow | undefined;
}

export function findInvitationForList(db: Db, id: string): InvitationListRow | undefined {
  return db.prepare(`${LIST_SELECT} WHERE i.id = ?`).get(id) as InvitationListRow | undefined;
}

/** Case-insensitive on the email, as the column is. */
export function findPendingInvitationByEmail(db: Db, orgId: string, email: string): InvitationRow | undefined {
  return db.prepare("SELECT * FROM invitations WHERE org_id = ? AND email = ? AND status = 'pending'").get(orgId, email) as InvitationRow | undefined;
}

export function countPendingInvitations(db: Db, orgId: string): number {
  return db.prepare("SELECT COUNT(*) FROM invitations WHERE org_id = ? AND status = 'pending'").pluck().get(orgId) as number;
}

export function listPendingInvitationsOfOrg(db: Db, orgId: string): InvitationListRow[] {
  return db.prepare(`${LIST_SELECT} WHERE i.org_id = ? AND i.status = 'pending' ORDER BY i.created_at, i.id`).all(orgId) as InvitationListRow[];
}

/** The invitations waiting for an email address, across every org. */
export function listPendingInvitationsForEmail(db: Db, email: string): InvitationListRow[] {
  return db.prepare(`${LIST_SELECT} WHERE i.email = ? AND i.status = 'pending' ORDER BY i.created_at, i.id`).all(email) as InvitationListRow[];
}

/** Moves a pending invitation to its final state; false when it was not pending. */
export function decideInvitation(db: Db, id: string, status: Exclude<InvitationStatus, 'pending'>, now: number): boolean {
  return db.prepare("UPDATE invitations SET status = ?, decided_at = ? WHERE id = ? AND status = 'pending'").run(status, now, id).changes === 1;
}
