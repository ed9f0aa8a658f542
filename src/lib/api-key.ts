import { hash, randomBytes } from 'node:crypto';

export type KeyTier = 'trial' | 'standard';

const KEY_RE = /^gw-(?:trial-)?[A-Za-z0-9_-]{32}$/;

/** `gw-` or `gw-trial-` followed by 32 base64url characters: 24 random bytes, 192 bits. */
export function mintApiKey(tier: KeyTier): string {
  return (tier === 'trial' ? 'gw-trial-' : 'gw-') + randomBytes(24).toString('base64url');
}

export function isWellFormedApiKey(key: string): boolean {
  return KEY_RE.test(key);
}

/** Keys are stored only as this hash. */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function keyPrefix(key: string): string {
  return key.slice(0, 12);
}
