import { errors } from '../../errors/catalog.js';
import { isEmail } from '../sign-in/login-links.js';

/** Who signed in, as a provider vouches for it. */
export interface Profile {
  /** The provider's stable id for the account (OIDC `sub`, GitHub user id). */
  subject: string;
  /** Verified by the provider, lower-cased. */
  email: string;
  name: string | null;
  avatarUrl: string | null;
}

export interface AuthorizeRequest {
  redirectUri: string;
  state: string;
  codeChallenge: string;
  /** OIDC only; null for plain OAuth 2 providers. */
  nonce: string | null;
}

export interface FinishRequest {
  redirectUri: string;
  /** The callback's query as the provider sent it (OpenID providers check `iss` and `state` in it again). */
  callbackParams: URLSearchParams;
  state: string;
  code: string;
  codeVerifier: string;
  nonce: string | null;
}

/** One way to sign in: builds the authorize URL, then turns the returned code into a profile. */
export interface SignInProvider {
  readonly id: string;
  /** Whether the authorization request carries an OIDC nonce. */
  readonly usesNonce: boolean;
  authorizeUrl(r: AuthorizeRequest): Promise<string>;
  /** Throws 400 bad_request for anything the provider refuses or answers wrongly, 503 when it cannot be reached. */
  finish(r: FinishRequest): Promise<Profile>;
}

const CONTROL_CHARS = /[\u0000-\u001f\u007f]/g;

/** Checks and tidies what a provider said about the account before it reaches the users table. */
export function toProfile(providerId: string, raw: { subject: unknown; email: unknown; name: unknown; picture: unknown }): Profile {
  const subject = typeof raw.subject === 'string' || typeof raw.subject === 'number' ? String(raw.subject) : '';
  if (!subject || subject.length > 255) throw errors.badRequest(`Sign-in with '${providerId}' returned no account id`);
  if (!isEmail(raw.email)) throw errors.badRequest(`Sign-in with '${providerId}' returned no usable email address`);
  const name = typeof raw.name === 'string' ? raw.name.replace(CONTROL_CHARS, '').trim().slice(0, 80) : '';
  const pic = typeof raw.picture === 'string' && raw.picture.length <= 2048 && /^https?:\/\/[^\s]+$/.test(raw.picture) ? raw.picture : null;
  return { subject, email: raw.email.toLowerCase(), name: name || null, avatarUrl: pic };
}
