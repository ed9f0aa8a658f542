import { randomBytes } from 'node:crypto';
import type { Db } from '../store/database.js';
import { insertLoginLink, useLoginLink } from '../store/login-links.js';
import { hashToken } from '../store/sessions.js';

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isEmail(s: unknown): s is string {
  return typeof s === 'string' && s.length <= 254 && EMAIL_RE.test(s);
}

/** A one-time sign-in URL for an operator without an identity provider (`gw login-link`). */
export function createLoginLink(db: Db, baseUrl: string, email: string, ttlMinutes: number, now = Date.now()): { url: string; expiresAt: number } {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = now + ttlMinutes * 60_000;
  insertLoginLink(db, hashToken(token), email.toLowerCase(), now, expiresAt);
  return { url: `${baseUrl}/auth/link?token=${token}`, expiresAt };
}

/** Uses a login link once; returns its email, or null when unknown, used or expired. */
export function consumeLoginLink(db: Db, token: string, now = Date.now()): string | null {
  return useLoginLink(db, hashToken(token), now);
}
