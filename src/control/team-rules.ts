import { errors } from '../errors/catalog.js';
import type { Role } from '../domain/session.js';
import { isEmail } from './login-links.js';

const ROLES: ReadonlySet<string> = new Set<Role>(['owner', 'admin', 'member']);
// Control characters and angle brackets: names are shown in dashboards and emails.
const NAME_FORBIDDEN = /[\u0000-\u001f\u007f<>]/;

/**
 * A display name for an org (max 80) or workspace (max 64): trimmed, NFC, 1..max characters
 * (code points, so Devanagari counts as written), no control characters or angle brackets.
 * Checked here rather than in the body schema so the answer is 400 bad_name, not bad_request.
 */
export function cleanName(raw: string, max: number, what: string): string {
  const name = raw.normalize('NFC').trim();
  const length = [...name].length;
  if (length === 0 || length > max) throw errors.rule('bad_name', `${what} name must be 1 to ${max} characters`);
  if (NAME_FORBIDDEN.test(name)) throw errors.rule('bad_name', `${what} name has characters that are not allowed (control characters, < or >)`);
  return name;
}

export function parseRole(raw: string): Role {
  if (!ROLES.has(raw)) throw errors.rule('bad_role', `role must be owner, admin or member, not '${raw.slice(0, 40)}'`);
  return raw as Role;
}

/** Emails are matched without regard to case; stored lower-case. */
export function parseEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (!isEmail(email)) throw errors.rule('bad_email', 'email is not a valid email address');
  return email;
}

export { iso } from '../lib/iso-time.js';
export { inrToMicros, microsToInr } from '../lib/money.js';
