import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV = 12;
const TAG = 16;

/**
 * AES-256-GCM with a fresh 96-bit nonce per secret: base64 of nonce, tag and ciphertext. `context`
 * is authenticated but not stored, so a secret copied to another row (another org, another
 * provider) no longer opens.
 */
export function seal(plain: string, key: Buffer, context: string): string {
  const iv = randomBytes(IV);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(context));
  const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return Buffer.concat([iv, c.getAuthTag(), body]).toString('base64');
}

/**
 * What each kind of secret is bound to: written once here, so sealing and opening cannot drift
 * apart (a mismatch would only show as a key that no longer opens).
 */
export const sealContext = {
  providerKey: (orgId: string, provider: string) => `${orgId}:${provider}`,
  endpointKey: (orgId: string, endpoint: string) => `endpoint:${orgId}:${endpoint}`,
  alertSecret: (alertId: string) => `alert:${alertId}`,
} as const;

/** `sk-…wxyz`: enough to tell secrets apart, never enough to use one. */
export function maskSecret(secret: string): string {
  return `${secret.slice(0, 3)}…${secret.slice(-4)}`;
}

/** The secret sealed for `context`; throws when the key, the context or the bytes differ. */
export function unseal(sealed: string, key: Buffer, context: string): string {
  const b = Buffer.from(sealed, 'base64');
  const d = createDecipheriv('aes-256-gcm', key, b.subarray(0, IV));
  d.setAAD(Buffer.from(context));
  d.setAuthTag(b.subarray(IV, IV + TAG));
  return Buffer.concat([d.update(b.subarray(IV + TAG)), d.final()]).toString('utf8');
}
