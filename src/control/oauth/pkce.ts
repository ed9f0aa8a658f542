import { createHash, randomBytes } from 'node:crypto';

/** 256 random bits as base64url: states, nonces and PKCE verifiers (43 characters, RFC 7636 4.1). */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The S256 code_challenge of a PKCE code_verifier (RFC 7636 4.2). */
export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}
