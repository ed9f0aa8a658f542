import { randomBytes } from 'node:crypto';

/** Short random ids with a readable type prefix (`org_…`, `key_…`). */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(9).toString('base64url')}`;
}
