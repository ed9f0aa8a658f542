import { randomBytes } from 'node:crypto';
import type { Db } from '../store/database.js';
import { hashToken } from '../store/sessions.js';

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isEmail(s: unknown): s is string {
  return typeof s === 'string' && s.length <= 254 && EMAIL_RE.test(s);
}

/** A one-time sign-in URL for an operator without an identity provider (`gw login-link`). */
export function createLoginLink(db: Db, baseUrl: string, email: string, ttlMinutes: number, now: number): { url: string; expiresAt: number } {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = now + ttlMinutes * 60_000;
  db.prepare('INSERT INTO login_links (hash, email, created_at, expires_at) VALUES (?, ?, ?, ?)').run(hashToken(token), email.toLowerCase(), now, expiresAt);
  return { url: `${baseUrl}/auth/link?token=${token}`, expiresAt };
}

/** Uses a login link once; returns its email, or null when unknown, used or expired. */
export function consumeLoginLink(db: Db, token: string, now: number): string | null {
  const res = db.prepare('UPDATE login_links SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ? RETURNING email')
    .get(now, hashToken(token), now) as { email: string } | undefined;
  return res?.email ?? null;
}
