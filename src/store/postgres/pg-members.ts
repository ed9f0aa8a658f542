import type { Role } from '../../domain/session.js';
import type { Member, MemberChangeFacts, MemberStore, OrgOfUser } from '../../domain/stores/member-store.js';
import type { Pg } from './pg-database.js';
import { lockScope, type Tx } from './pg-locks.js';
import { insertOrgPg } from './pg-orgs.js';

const ORG_OF_USER = `SELECT o.id, o.name, o.personal = 1 AS personal, m.role, o.created_at AS "createdAt"
  FROM memberships m JOIN orgs o ON o.id = m.org_id`;
const MEMBER = `SELECT m.user_id AS "userId", u.email, u.name, m.role, m.created_at AS "joinedAt"
  FROM memberships m JOIN users u ON u.id = m.user_id`;

export async function insertMemberPg(tx: Tx, orgId: string, userId: string, role: Role, now: number): Promise<void> {
  await tx`INSERT INTO memberships (org_id, user_id, role, created_at) VALUES (${orgId}, ${userId}, ${role}, ${now})`;
}

/** What the team-org cap counts: non-personal orgs the user belongs to, in any role. Read under `user:<id>`. */
export async function teamOrgCountPg(tx: Tx, userId: string): Promise<number> {
  return (await tx<{ n: number }[]>`SELECT COUNT(*)::bigint AS n FROM memberships m JOIN orgs o ON o.id = m.org_id
    WHERE m.user_id = ${userId} AND o.personal = 0`)[0].n;
}

/** The user's personal org, if any. */
export async function personalOrgPg(q: Pg | Tx, userId: string): Promise<string | undefined> {
  return (await q<{ id: string }[]>`SELECT m.org_id AS id FROM memberships m JOIN orgs o ON o.id = m.org_id
    WHERE m.user_id = ${userId} AND o.personal = 1`)[0]?.id;
}

/**
 * The MemberStore on PostgreSQL. Rules over one user's orgs (the team-org cap) read under
 * `user:<id>`; rules over one org's members (the last owner) under `org:<id>`.
 */
export function postgresMemberStore(sql: Pg): MemberStore {
  const findMember = async (q: Pg | Tx, orgId: string, userId: string): Promise<Member | undefined> =>
    (await q.unsafe<Member[]>(`${MEMBER} WHERE m.org_id = $1 AND m.user_id = $2`, [orgId, userId]))[0];
  const facts = async (tx: Tx, orgId: string, userId: string): Promise<MemberChangeFacts> => {
    const [org] = await tx<{ owners: number; personal: boolean }[]>`SELECT
      (SELECT COUNT(*) FROM memberships WHERE org_id = ${orgId} AND role = 'owner')::bigint AS owners,
      COALESCE((SELECT personal = 1 FROM orgs WHERE id = ${orgId}), false) AS personal`;
    return { member: await findMember(tx, orgId, userId), owners: org.owners, personal: org.personal };
  };
  return {
    orgsOfUser: (userId) => sql.unsafe<OrgOfUser[]>(`${ORG_OF_USER} WHERE m.user_id = $1 ORDER BY o.personal DESC, m.created_at, o.id COLLATE "C"`,
      [userId]),
    orgOfUser: async (userId, orgId) => (await sql.unsafe<OrgOfUser[]>(`${ORG_OF_USER} WHERE m.user_id = $1 AND m.org_id = $2`, [userId, orgId]))[0],
    createTeamOrg: (name, ownerId, now, check) => sql.begin(async (tx) => {
      await lockScope(tx, `user:${ownerId}`);
      check({ teamOrgs: await teamOrgCountPg(tx, ownerId) });
      const created = await insertOrgPg(tx, name, { now });
      await insertMemberPg(tx, created.orgId, ownerId, 'owner', now);
      return created;
    }),
    list: (orgId) => sql.unsafe<Member[]>(`${MEMBER} WHERE m.org_id = $1 ORDER BY m.created_at, lower(u.email::text) COLLATE "C"`, [orgId]),
    find: (orgId, userId) => findMember(sql, orgId, userId),
    changeRole: (orgId, userId, role, check) => sql.begin(async (tx) => {
      await lockScope(tx, `org:${orgId}`);
      check(await facts(tx, orgId, userId));
      await tx`UPDATE memberships SET role = ${role} WHERE org_id = ${orgId} AND user_id = ${userId}`;
    }),
    // The user's sessions acting in the org move to their personal org, so the sessions rows are
    // truthful at once (the session reader would fall back too).
    remove: (orgId, userId, check) => sql.begin(async (tx) => {
      await lockScope(tx, `org:${orgId}`);
      check(await facts(tx, orgId, userId));
      if ((await tx`DELETE FROM memberships WHERE org_id = ${orgId} AND user_id = ${userId}`).count === 0) return;
      const to = await personalOrgPg(tx, userId);
      if (to) await tx`UPDATE sessions SET active_org_id = ${to} WHERE user_id = ${userId} AND active_org_id = ${orgId}`;
    }),
  };
}
