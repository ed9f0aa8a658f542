import type { AcceptFacts, Invitation, InvitationStore, NewInvitation, NewInvitationFacts } from '../../domain/stores/invitation-store.js';
import { newId } from '../../lib/ids.js';
import type { Pg } from './pg-database.js';
import { lockScope, type Tx } from './pg-locks.js';
import { insertMemberPg, teamOrgCountPg } from './pg-members.js';

const SELECT = `SELECT i.id, i.org_id AS "orgId", o.name AS "orgName", i.email, i.role, i.invited_by AS "invitedBy",
  u.email AS "invitedByEmail", i.status, i.created_at AS "createdAt", i.decided_at AS "decidedAt"
  FROM invitations i JOIN users u ON u.id = i.invited_by JOIN orgs o ON o.id = i.org_id`;

/**
 * The InvitationStore on PostgreSQL. A new invitation's rules (once per email, the member cap)
 * read under `org:<id>`; an acceptance reads the user's team orgs under `user:<id>` and the org's
 * members under `org:<id>` (always in that order, so two writes never wait on each other in a
 * circle), with the invitation's row locked against a concurrent decline or revocation.
 */
export function postgresInvitationStore(sql: Pg): InvitationStore {
  const findOne = async (q: Pg | Tx, id: string): Promise<Invitation | undefined> =>
    (await q.unsafe<Invitation[]>(`${SELECT} WHERE i.id = $1`, [id]))[0];
  const memberCount = async (tx: Tx, orgId: string): Promise<number> =>
    (await tx<{ n: number }[]>`SELECT COUNT(*)::bigint AS n FROM memberships WHERE org_id = ${orgId}`)[0].n;
  return {
    create: (inv: NewInvitation, now: number, check: (f: NewInvitationFacts) => void) => sql.begin(async (tx) => {
      await lockScope(tx, `org:${inv.orgId}`);
      // The email columns are CITEXT: any case matches.
      const [f] = await tx<Omit<NewInvitationFacts, 'members'>[]>`SELECT
        EXISTS (SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.org_id = ${inv.orgId} AND u.email = ${inv.email}::citext)
          AS "alreadyMember",
        EXISTS (SELECT 1 FROM invitations WHERE org_id = ${inv.orgId} AND email = ${inv.email}::citext AND status = 'pending') AS "alreadyInvited",
        (SELECT COUNT(*) FROM invitations WHERE org_id = ${inv.orgId} AND status = 'pending')::bigint AS pending`;
      check({ ...f, members: await memberCount(tx, inv.orgId) });
      const id = newId('inv');
      await tx`INSERT INTO invitations (id, org_id, email, role, invited_by, status, created_at)
        VALUES (${id}, ${inv.orgId}, ${inv.email}, ${inv.role}, ${inv.invitedBy}, 'pending', ${now})`;
      return (await findOne(tx, id))!;
    }),
    find: (id) => findOne(sql, id),
    listPendingOfOrg: (orgId) => sql.unsafe<Invitation[]>(`${SELECT} WHERE i.org_id = $1 AND i.status = 'pending'
      ORDER BY i.created_at, i.id COLLATE "C"`, [orgId]),
    listPendingForEmail: (email) => sql.unsafe<Invitation[]>(`${SELECT} WHERE i.email = $1::citext AND i.status = 'pending'
      ORDER BY i.created_at, i.id COLLATE "C"`, [email]),
    decide: async (id, status, now) =>
      (await sql`UPDATE invitations SET status = ${status}, decided_at = ${now} WHERE id = ${id} AND status = 'pending'`).count === 1,
    accept: (id: string, userId: string, now: number, check: (f: AcceptFacts) => void) => sql.begin(async (tx) => {
      await lockScope(tx, `user:${userId}`);
      const [row] = await tx<{ orgId: string }[]>`SELECT org_id AS "orgId" FROM invitations WHERE id = ${id} FOR UPDATE`;
      if (row) await lockScope(tx, `org:${row.orgId}`);
      const invitation = row && await findOne(tx, id);
      check(invitation === undefined
        ? { invitation, alreadyMember: false, teamOrgs: 0, members: 0 }
        : {
          invitation,
          alreadyMember: (await tx`SELECT 1 FROM memberships WHERE org_id = ${invitation.orgId} AND user_id = ${userId}`).length > 0,
          teamOrgs: await teamOrgCountPg(tx, userId),
          members: await memberCount(tx, invitation.orgId),
        });
      if (invitation === undefined) throw new Error('accept: the check let a missing invitation through');
      await insertMemberPg(tx, invitation.orgId, userId, invitation.role, now);
      await tx`UPDATE invitations SET status = 'accepted', decided_at = ${now} WHERE id = ${id} AND status = 'pending'`;
      return (await findOne(tx, id))!;
    }),
  };
}
