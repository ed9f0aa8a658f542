import * as oidc from 'openid-client';
import { errors } from '../../errors/catalog.js';
import { isGatewayError, type GatewayError } from '../../errors/gateway-error.js';
import type { IdpHttp } from './idp-http.js';

/**
 * The id_token signature algorithms accepted: what Google, Keycloak, Auth0, Okta, Entra ID and Dex
 * sign with by default. Never `none`, never HMAC (the client secret is not a verification key here).
 */
export const ID_TOKEN_ALGS = ['RS256', 'ES256'];

export const invalidIdToken = (why: string) => errors.badRequest(`The provider's id_token is invalid: ${why}`);

/** What openid-client (oauth4webapi underneath) attaches to a failed check. */
interface CheckDetail {
  claim?: string;
  claims?: Record<string, unknown>;
  expected?: unknown;
  attribute?: string;
  header?: { alg?: unknown };
}

/** The 503 our own fetch threw for a provider that did not answer, however deep openid-client wrapped it. */
export function unreachableCause(e: unknown): GatewayError | null {
  for (let c = e, depth = 0; c instanceof Error && depth < 4; c = c.cause, depth++) if (isGatewayError(c)) return c;
  return null;
}

function cutShort(e: unknown): boolean {
  for (let c = e, depth = 0; c instanceof Error && depth < 4; c = c.cause, depth++) {
    if (c.message === 'terminated' || String((c as { code?: unknown }).code ?? '').startsWith('UND_ERR_SOCKET')
      || ['ECONNRESET', 'EPIPE'].includes(String((c as { code?: unknown }).code ?? ''))) return true;
  }
  return false;
}

export interface FailedStep {
  providerId: string;
  /** Named in the message: "the token exchange", "the userinfo request". */
  step: string;
  http: IdpHttp;
  /** An unreadable key set is the provider's fault (503), not the sign-in's. */
  jwksUri: string;
}

/**
 * What a failed openid-client call means for the person signing in, in the messages the
 * hand-written client gave: a provider that did not answer or whose keys cannot be read is 503;
 * a provider's refusal, an answer from another issuer or an id_token failing a check is 400.
 * Anything else is a bug here and stays as it is (500, logged with its cause).
 */
export async function signInFailure(e: unknown, at: FailedStep): Promise<unknown> {
  const unreachable = unreachableCause(e);
  if (unreachable) return unreachable;
  // The provider's answer broke off mid-body (undici's "terminated", a socket error): the provider's
  // fault, not a bug here, so 503 like a provider that did not answer at all.
  if (cutShort(e)) {
    return errors.serviceUnavailable(`The sign-in provider did not answer in full (${at.step}); try again shortly`);
  }
  if (e instanceof oidc.ResponseBodyError) return refused(at, e.status, e.error, e.error_description);
  if (e instanceof oidc.WWWAuthenticateChallengeError) {
    // RFC 6749 5.2: a 401 for a wrong client secret carries a challenge, and the error code in its body.
    const p = (e.cause.find((c) => c.parameters.error)?.parameters
      ?? await e.response.json().catch(() => null)) as { error?: unknown; error_description?: unknown } | null;
    return refused(at, e.status, p?.error, p?.error_description);
  }
  if (!(e instanceof oidc.ClientError)) return e;
  // An unexpected status or content type carries the answer itself.
  if (e.cause instanceof Response || isResponse(e.cause)) {
    const res = e.cause as Response;
    if (res.url === at.jwksUri) return at.http.broken(at.providerId, 'signing keys (JWKS)', { uri: res.url, status: res.status });
    return refused(at, res.status, undefined, e.message);
  }
  const inner = e.cause instanceof Error ? e.cause : e;
  const detail = (inner.cause ?? {}) as CheckDetail;
  if (inner.message.includes('response parameter') && inner.message.includes('"iss"')) {
    // RFC 9207: the provider names itself in the callback; another name means a mixed-up sign-in.
    return errors.badRequest(`Sign-in with '${at.providerId}' failed: the answer does not come from this provider (iss)`);
  }
  if (e.code === 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED' && detail.attribute === 'sub') {
    return errors.badRequest(`Sign-in with '${at.providerId}' failed: userinfo describes another account`);
  }
  const why = idTokenProblem(e.code, inner.message, detail);
  if (why) return invalidIdToken(why);
  return refused(at, 200, undefined, inner.message);
}

const COMPARED: Readonly<Record<string, string>> = {
  aud: 'it was not issued to this gateway (aud)',
  azp: 'it was issued to another party (azp)',
  nonce: 'the nonce does not match this sign-in',
  exp: 'it has expired',
  nbf: 'it is not valid yet',
};

const MISSING: Readonly<Record<string, string>> = {
  aud: 'it was not issued to this gateway (aud)',
  nonce: 'the nonce does not match this sign-in',
  exp: 'it has no expiry',
  sub: 'it has no subject',
};

/** The reason an id_token was refused, or null when the failure is not about the id_token. */
function idTokenProblem(code: string | undefined, message: string, d: CheckDetail): string | null {
  if (message.startsWith('unexpected JWT "alg"')) return `algorithm ${String(d.header?.alg)} is not accepted (${ID_TOKEN_ALGS.join(' or ')})`;
  if (message.includes('"crit"')) return 'critical header extensions are not supported';
  if (code === 'OAUTH_KEY_SELECTION_FAILED' || message === 'JWT signature verification failed') {
    return "its signature does not verify with the provider's published keys";
  }
  if (message.includes('untrusted audiences')) return COMPARED.azp;
  if (code === 'OAUTH_JWT_CLAIM_COMPARISON_FAILED' || code === 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED') {
    if (d.claim === 'iss') return `issuer ${JSON.stringify(d.claims?.iss)} is not ${String(d.expected)}`;
    return (d.claim && COMPARED[d.claim]) || message;
  }
  const claim = /JWT "(\w+)" \(.*\) claim (missing|type)/.exec(message);
  if (claim) return MISSING[claim[1]] ?? `its ${claim[1]} claim is ${claim[2] === 'missing' ? 'missing' : 'malformed'}`;
  if (/^(Invalid JWT|failed to parse JWT|JWT (Header|Payload) must be)/.test(message)) return 'not a signed JWT';
  return /\bJW[TS]\b|ID Token/.test(message) ? message : null;
}

function refused(at: FailedStep, status: number, error: unknown, description: unknown): GatewayError {
  return at.http.refused(at.providerId, at.step, { status, json: { error, error_description: description } });
}

function isResponse(v: unknown): boolean {
  return v !== null && typeof v === 'object' && Object.prototype.toString.call(v) === '[object Response]';
}
