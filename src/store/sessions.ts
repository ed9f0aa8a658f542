import { createHash, randomBytes } from 'node:crypto';
import type { Db } from './database.js';
import type { Role, Session } from '../domain/session.js';
import type { SessionStore } from '../domain/stores/session-store.js';

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A new session: 256 random bits in the cookie, only their hash stored. */
export function insertSession(db: Db, userId: string, orgId: string, ttlMs: number, now: number): { token: string; expiresAt: number } {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = now + ttlMs;
  db.prepare('INSERT INTO sessions (hash, user_id, active_org_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)')
    .run(hashToken(token), userId, orgId, now, expiresAt);
  return { token, expiresAt };
}

/**
 * The session for a cookie value, with the user's role in the active org; null when unknown or
 * expired, or when the user is no longer a member of the active org (falls back to the personal org).
 */
export function sessionReader(db: Db): (token: string, now: number) => Session | null {
  const get = db.prepare(`SELECT s.hash, s.user_id AS userId, u.email, s.active_org_id AS orgId, m.role, s.expires_at AS expiresAt
    FROM sessions s JOIN users u ON u.id = s.user_id
    LEFT JOIN memberships m ON m.org_id = s.active_org_id AND m.user_id = s.user_id
    WHERE s.hash = ?`);
  const personal = db.prepare(`SELECT m.org_id FROM memberships m JOIN orgs o ON o.id = m.org_id
    WHERE m.user_id = ? AND o.personal = 1`).pluck();
  const move = db.prepare('UPDATE sessions SET active_org_id = ? WHERE hash = ?');
  return (token, now) => {
    const hash = hashToken(token);
    const row = get.get(hash) as (Session & { role: Role | null }) | undefined;
    if (!row || row.expiresAt <= now) return null;
    if (row.role === null) {
      // Removed from the org the session was acting in: continue in the personal org.
      const org = personal.get(row.userId) as string | undefined;
      if (!org) return null;
      move.run(org, hash);
      return { ...row, orgId: org, role: 'owner' };
    }
    return row;
  };
}

/** The SessionStore on SQLite: statements prepared once. */
export function sqliteSessionStore(db: Db): SessionStore {
  const setOrg = db.prepare('UPDATE sessions SET active_org_id = ? WHERE hash = ?');
  const remove = db.prepare('DELETE FROM sessions WHERE hash = ?');
  return {
    setActiveOrg: async (hash, orgId) => {
      setOrg.run(orgId, hash);
    },
    end: async (token) => {
      remove.run(hashToken(token));
    },
  };
}
