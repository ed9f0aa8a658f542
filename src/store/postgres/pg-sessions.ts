import type { Role, Session } from '../../domain/session.js';
import type { SessionStore } from '../../domain/stores/session-store.js';
import { hashToken } from '../sessions.js';
import type { Pg } from './pg-database.js';
import { personalOrgPg } from './pg-members.js';

/**
 * The session for a cookie value, with the user's role in the active org; null when unknown or
 * expired, or when the user is no longer a member of the active org (falls back to the personal org).
 */
export function postgresSessionReader(sql: Pg): (token: string, now: number) => Promise<Session | null> {
  return async (token, now) => {
    const hash = hashToken(token);
    const [row] = await sql<(Session & { role: Role | null })[]>`SELECT s.hash, s.user_id AS "userId", u.email,
        s.active_org_id AS "orgId", m.role, s.expires_at AS "expiresAt"
      FROM sessions s JOIN users u ON u.id = s.user_id
      LEFT JOIN memberships m ON m.org_id = s.active_org_id AND m.user_id = s.user_id
      WHERE s.hash = ${hash}`;
    if (!row || row.expiresAt <= now) return null;
    if (row.role === null) {
      // Removed from the org the session was acting in: continue in the personal org.
      const org = await personalOrgPg(sql, row.userId);
      if (!org) return null;
      await sql`UPDATE sessions SET active_org_id = ${org} WHERE hash = ${hash}`;
      return { ...row, orgId: org, role: 'owner' };
    }
    return row as Session;
  };
}

/** The SessionStore on PostgreSQL. */
export function postgresSessionStore(sql: Pg): SessionStore {
  return {
    setActiveOrg: async (hash, orgId) => {
      await sql`UPDATE sessions SET active_org_id = ${orgId} WHERE hash = ${hash}`;
    },
    end: async (token) => {
      await sql`DELETE FROM sessions WHERE hash = ${hashToken(token)}`;
    },
  };
}
