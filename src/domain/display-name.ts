import { errors } from '../errors/catalog.js';

// Control characters and angle brackets: names are shown in dashboards and emails.
const NAME_FORBIDDEN = /[\u0000-\u001f\u007f<>]/;

/**
 * A display name for an org (max 80), workspace (max 64), person or collection: trimmed, NFC,
 * 1..max characters (code points, so Devanagari counts as written), no control characters or
 * angle brackets. Checked here rather than in the body schema so the answer is 400 bad_name, not
 * bad_request. Shared by several areas, and it throws a catalog error, so it is neither one
 * area's rule nor a lib helper.
 */
export function cleanName(raw: string, max: number, what: string): string {
  const name = raw.normalize('NFC').trim();
  const length = [...name].length;
  if (length === 0 || length > max) throw errors.rule('bad_name', `${what} name must be 1 to ${max} characters`);
  if (NAME_FORBIDDEN.test(name)) throw errors.rule('bad_name', `${what} name has characters that are not allowed (control characters, < or >)`);
  return name;
}
