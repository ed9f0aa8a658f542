import { randomBytes } from 'node:crypto';

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isEmail(s: unknown): s is string {
  return typeof s === 'string' && s.length <= 254 && EMAIL_RE.test(s);
}

/** A login link's token: 256 random bits, only in the URL (the store keeps its hash). */
export function newLoginLinkToken(): string {
  return randomBytes(32).toString('base64url');
}
