import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import { errors } from '../../errors/catalog.js';

/**
 * The signature algorithms accepted: what Google, Keycloak, Auth0, Okta, Entra ID and Dex sign
 * ID tokens with by default. Never `none`, never HMAC (the client secret is not a verification key here).
 */
const ALGS: Readonly<Record<string, { kty: string; crv?: string; dsaEncoding?: 'ieee-p1363' }>> = {
  RS256: { kty: 'RSA' },
  ES256: { kty: 'EC', crv: 'P-256', dsaEncoding: 'ieee-p1363' },
};

/** Seconds of clock difference tolerated between the provider and this gateway. */
const SKEW_S = 60;

export interface DecodedJwt {
  alg: string;
  kid: string | null;
  claims: Record<string, unknown>;
  signingInput: string;
  signature: Buffer;
}

export interface IdTokenExpectations {
  issuer: string;
  clientId: string;
  nonce: string;
  nowS: number;
}

export const invalidIdToken = (why: string) => errors.badRequest(`The provider's id_token is invalid: ${why}`);
const invalid = invalidIdToken;

/** Splits a compact JWS and reads its header and claims; checks nothing but the shape and the algorithm. */
export function decodeIdToken(token: unknown): DecodedJwt {
  if (typeof token !== 'string') throw invalid('missing');
  const parts = token.split('.');
  if (parts.length !== 3) throw invalid('not a signed JWT');
  const header = parseSegment(parts[0]);
  const claims = parseSegment(parts[1]);
  if (!header || !claims) throw invalid('not a signed JWT');
  const alg = header.alg;
  if (typeof alg !== 'string' || !Object.hasOwn(ALGS, alg)) throw invalid(`algorithm ${String(alg)} is not accepted (RS256 or ES256)`);
  if (header.crit !== undefined) throw invalid('critical header extensions are not supported');
  return {
    alg, kid: typeof header.kid === 'string' ? header.kid : null, claims,
    signingInput: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2], 'base64url'),
  };
}

/** Whether a JWK from the provider's set could have signed this token. */
export function keyFits(jwk: JsonWebKey & { kid?: unknown; use?: unknown; alg?: unknown }, jwt: DecodedJwt): boolean {
  const want = ALGS[jwt.alg];
  if (jwk.kty !== want.kty || (want.crv && jwk.crv !== want.crv)) return false;
  if (jwk.use !== undefined && jwk.use !== 'sig') return false;
  if (jwk.alg !== undefined && jwk.alg !== jwt.alg) return false;
  return jwt.kid === null || jwk.kid === jwt.kid;
}

/** Verifies the signature with one JWK; a malformed key counts as a failed signature. */
export function signatureValid(jwk: JsonWebKey, jwt: DecodedJwt): boolean {
  const { dsaEncoding } = ALGS[jwt.alg];
  try {
    const key = createPublicKey({ key: jwk, format: 'jwk' });
    return verify('sha256', Buffer.from(jwt.signingInput), dsaEncoding ? { key, dsaEncoding } : key, jwt.signature);
  } catch {
    return false;
  }
}

/** The claim checks of OIDC Core 3.1.3.7 that apply to the code flow: iss, aud, azp, exp, nbf, nonce, sub. */
export function checkIdTokenClaims(c: Record<string, unknown>, want: IdTokenExpectations): void {
  if (c.iss !== want.issuer) throw invalid(`issuer ${JSON.stringify(c.iss)} is not ${want.issuer}`);
  const aud = typeof c.aud === 'string' ? [c.aud] : Array.isArray(c.aud) ? c.aud : [];
  if (!aud.includes(want.clientId)) throw invalid('it was not issued to this gateway (aud)');
  if ((aud.length > 1 || c.azp !== undefined) && c.azp !== want.clientId) throw invalid('it was issued to another party (azp)');
  if (typeof c.exp !== 'number') throw invalid('it has no expiry');
  if (c.exp + SKEW_S <= want.nowS) throw invalid('it has expired');
  if (c.nbf !== undefined && (typeof c.nbf !== 'number' || c.nbf - SKEW_S > want.nowS)) throw invalid('it is not valid yet');
  if (c.nonce !== want.nonce) throw invalid('the nonce does not match this sign-in');
  if (typeof c.sub !== 'string' || c.sub === '') throw invalid('it has no subject');
}

function parseSegment(s: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}
