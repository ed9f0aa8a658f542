import type { JsonWebKey } from 'node:crypto';
import { errors } from '../../errors/catalog.js';
import { checkIdTokenClaims, decodeIdToken, invalidIdToken, keyFits, signatureValid, type DecodedJwt } from './id-token.js';
import { asRecord, type IdpHttp } from './idp-http.js';
import { toProfile, type AuthorizeRequest, type FinishRequest, type Profile, type SignInProvider } from './sign-in-provider.js';

export interface OidcSettings {
  clientId: string;
  clientSecret: string;
  issuer: string;
  scope: string;
}

interface Discovery {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
  userinfoEndpoint: string | null;
  /** client_secret_basic unless the provider lists only client_secret_post. */
  basicAuth: boolean;
}

/** Discovery documents and key sets change rarely; an hour lets a provider move endpoints or drop a key without a restart. */
const CACHE_TTL_MS = 3_600_000;
/** A token signed by a key not in the cached set refetches the set, but no more often than this (key rotation). */
const JWKS_REFETCH_MIN_MS = 30_000;

const HTTP_URL = /^https?:\/\/\S+$/;

/**
 * An OpenID Connect provider (Google or any issuer under `auth.oidc`): endpoints from its
 * discovery document, the code exchanged with PKCE, the id_token verified against its JWKS, and
 * the userinfo endpoint asked when the id_token carries no email (OIDC Core 5.4).
 */
export class OidcClient implements SignInProvider {
  readonly id: string;
  readonly usesNonce = true;
  readonly #s: OidcSettings;
  readonly #http: IdpHttp;
  #discovery: { at: number; doc: Promise<Discovery> } | null = null;
  #jwks: { at: number; uri: string; keys: Promise<JsonWebKey[]> } | null = null;

  constructor(id: string, settings: OidcSettings, http: IdpHttp) {
    this.id = id;
    this.#s = settings;
    this.#http = http;
  }

  async authorizeUrl(r: AuthorizeRequest): Promise<string> {
    const doc = await this.#discover();
    const url = new URL(doc.authorizationEndpoint);
    const params: Record<string, string> = {
      response_type: 'code', client_id: this.#s.clientId, redirect_uri: r.redirectUri, scope: this.#s.scope,
      state: r.state, code_challenge: r.codeChallenge, code_challenge_method: 'S256', nonce: r.nonce ?? '',
    };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return url.href;
  }

  async finish(r: FinishRequest): Promise<Profile> {
    const doc = await this.#discover();
    const form: Record<string, string> = { grant_type: 'authorization_code', code: r.code, redirect_uri: r.redirectUri, code_verifier: r.codeVerifier };
    const headers: Record<string, string> = {};
    if (doc.basicAuth) headers.authorization = `Basic ${Buffer.from(`${formEncode(this.#s.clientId)}:${formEncode(this.#s.clientSecret)}`).toString('base64')}`;
    else Object.assign(form, { client_id: this.#s.clientId, client_secret: this.#s.clientSecret });
    const ans = await this.#http.postForm(doc.tokenEndpoint, form, `${this.id} token endpoint`, headers);
    const tokens = asRecord(ans.json);
    if (ans.status !== 200 || !tokens || typeof tokens.id_token !== 'string') throw this.#http.refused(this.id, 'the token exchange', ans);

    const jwt = decodeIdToken(tokens.id_token);
    await this.#verifySignature(doc, jwt);
    checkIdTokenClaims(jwt.claims, { issuer: doc.issuer, clientId: this.#s.clientId, nonce: r.nonce ?? '', nowS: Math.floor(Date.now() / 1000) });
    let claims = jwt.claims;
    if (claims.email === undefined && doc.userinfoEndpoint && typeof tokens.access_token === 'string') {
      claims = { ...(await this.#userinfo(doc.userinfoEndpoint, tokens.access_token, claims.sub as string)), ...claims };
    }
    if (claims.email_verified !== undefined && claims.email_verified !== true && claims.email_verified !== 'true') {
      throw errors.badRequest(`Sign-in with '${this.id}' failed: the provider has not verified the account's email address`);
    }
    return toProfile(this.id, { subject: claims.sub, email: claims.email, name: claims.name, picture: claims.picture });
  }

  async #userinfo(endpoint: string, accessToken: string, sub: string): Promise<Record<string, unknown>> {
    const ans = await this.#http.get(endpoint, `${this.id} userinfo endpoint`, { authorization: `Bearer ${accessToken}` });
    const info = asRecord(ans.json);
    if (ans.status !== 200 || !info) throw this.#http.refused(this.id, 'the userinfo request', ans);
    // OIDC Core 5.3.2: a userinfo answer for another subject must not be used.
    if (info.sub !== sub) throw errors.badRequest(`Sign-in with '${this.id}' failed: userinfo describes another account`);
    return info;
  }

  async #verifySignature(doc: Discovery, jwt: DecodedJwt): Promise<void> {
    const verifies = (keys: JsonWebKey[]) => keys.some((k) => keyFits(k, jwt) && signatureValid(k, jwt));
    if (verifies(await this.#keys(doc.jwksUri, false))) return;
    if (this.#jwks && Date.now() - this.#jwks.at >= JWKS_REFETCH_MIN_MS && verifies(await this.#keys(doc.jwksUri, true))) return;
    throw invalidIdToken("its signature does not verify with the provider's published keys");
  }

  #keys(uri: string, refetch: boolean): Promise<JsonWebKey[]> {
    const now = Date.now();
    const c = this.#jwks;
    if (c && !refetch && c.uri === uri && now - c.at < CACHE_TTL_MS) return c.keys;
    const keys = this.#http.get(uri, `${this.id} JWKS`).then((ans) => {
      const list = asRecord(ans.json)?.keys;
      if (ans.status !== 200 || !Array.isArray(list)) throw this.#http.broken(this.id, 'signing keys (JWKS)', { uri, status: ans.status });
      return list.filter((k): k is JsonWebKey => asRecord(k) !== null);
    });
    this.#jwks = { at: now, uri, keys };
    keys.catch(() => {
      if (this.#jwks?.keys === keys) this.#jwks = null;
    });
    return keys;
  }

  #discover(): Promise<Discovery> {
    const now = Date.now();
    if (this.#discovery && now - this.#discovery.at < CACHE_TTL_MS) return this.#discovery.doc;
    const doc = this.#readDiscovery();
    this.#discovery = { at: now, doc };
    doc.catch(() => {
      if (this.#discovery?.doc === doc) this.#discovery = null;
    });
    return doc;
  }

  async #readDiscovery(): Promise<Discovery> {
    const base = this.#s.issuer.replace(/\/+$/, '');
    const url = `${base}/.well-known/openid-configuration`;
    const ans = await this.#http.get(url, `${this.id} discovery`);
    const d = asRecord(ans.json);
    const str = (k: string) => (typeof d?.[k] === 'string' && HTTP_URL.test(d[k] as string) && URL.canParse(d[k] as string) ? (d[k] as string) : null);
    const issuer = str('issuer');
    const authorizationEndpoint = str('authorization_endpoint');
    const tokenEndpoint = str('token_endpoint');
    const jwksUri = str('jwks_uri');
    if (ans.status !== 200 || !issuer || !authorizationEndpoint || !tokenEndpoint || !jwksUri) {
      throw this.#http.broken(this.id, 'OpenID discovery document', { url, status: ans.status });
    }
    // OIDC Discovery 4.3: the document must name the issuer it was fetched for (a trailing slash aside).
    if (issuer.replace(/\/+$/, '') !== base) throw this.#http.broken(this.id, 'OpenID discovery document', { url, issuer, expected: this.#s.issuer });
    const methods = d!.token_endpoint_auth_methods_supported;
    const basicAuth = !Array.isArray(methods) || methods.includes('client_secret_basic') || !methods.includes('client_secret_post');
    return { issuer, authorizationEndpoint, tokenEndpoint, jwksUri, userinfoEndpoint: str('userinfo_endpoint'), basicAuth };
  }
}

/** RFC 6749 2.3.1: client credentials are form-encoded before they go into the Basic header. */
function formEncode(s: string): string {
  return new URLSearchParams({ v: s }).toString().slice(2);
}
