import type { Db } from './database.js';

/** Records a one-time login link by the hash of its token (the token itself is only in the URL). */
export function insertLoginLink(db: Db, hash: string, email: string, createdAt: number, expiresAt: number): void {
  db.prepare('INSERT INTO login_links (hash, email, created_at, expires_at) VALUES (?, ?, ?, ?)').run(hash, email, createdAt, expiresAt);
}

/** Marks a link used in the same statement that reads it, so two clicks cannot both sign in; its email, or null when unknown, used or expired. */
export function useLoginLink(db: Db, hash: string, now: number): string | null {
  const res = db.prepare('UPDATE login_links SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ? RETURNING email')
    .get(now, hash, now) as { email: string } | undefined;
  return res?.email ?? null;
}
