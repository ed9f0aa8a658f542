import * as oidc from 'openid-client';
import { errors } from '../../errors/catalog.js';
import { IDP_TIMEOUT_MS, type IdpHttp } from './idp-http.js';
import { ID_TOKEN_ALGS, invalidIdToken, signInFailure, unreachableCause } from './oidc-errors.js';
import { toProfile, type AuthorizeRequest, type FinishRequest, type Profile, type SignInProvider } from './sign-in-provider.js';

export interface OidcSettings {
  clientId: string;
  clientSecret: string;
  issuer: string;
  scope: string;
  /** Plain http to this provider: a loopback issuer, or `allowHttp` in its config. */
  allowHttp: boolean;
}

/** A discovery document changes rarely; an hour lets a provider move endpoints without a restart. */
const CACHE_TTL_MS = 3_600_000;
/** Seconds of clock difference tolerated between the provider and this gateway (openid-client's default is 30). */
const CLOCK_TOLERANCE_S = 60;

/**
 * An OpenID Connect provider (Google or any issuer under `auth.oidc`) through openid-client:
 * discovery, the authorization-code flow with PKCE, state and nonce, the id_token checked
 * (signature against the provider's JWKS, iss, aud, azp, exp, nbf, nonce, sub), and the userinfo
 * endpoint asked when the id_token carries no email (OIDC Core 5.4).
 */
export class OidcClient implements SignInProvider {
  readonly id: string;
  readonly usesNonce = true;
  readonly #s: OidcSettings;
  readonly #http: IdpHttp;
  #config: { at: number; config: Promise<oidc.Configuration> } | null = null;

  constructor(id: string, settings: OidcSettings, http: IdpHttp) {
    this.id = id;
    this.#s = settings;
    this.#http = http;
  }

  async authorizeUrl(r: AuthorizeRequest): Promise<string> {
    const config = await this.#configuration();
    return oidc.buildAuthorizationUrl(config, {
      redirect_uri: r.redirectUri, scope: this.#s.scope, state: r.state,
      code_challenge: r.codeChallenge, code_challenge_method: 'S256', nonce: r.nonce ?? '',
    }).href;
  }

  async finish(r: FinishRequest): Promise<Profile> {
    const config = await this.#configuration();
    const at = { providerId: this.id, http: this.#http, jwksUri: String(config.serverMetadata().jwks_uri) };
    const callback = new URL(r.redirectUri);
    for (const [k, v] of r.callbackParams) callback.searchParams.append(k, v);
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: r.codeVerifier, expectedState: r.state, expectedNonce: r.nonce ?? undefined, idTokenExpected: true,
      });
    } catch (e) {
      throw await signInFailure(e, { ...at, step: 'the token exchange' });
    }
    let claims: Record<string, unknown> = { ...tokens.claims() };
    // OIDC Core 3.1.3.7: openid-client checks azp only beside several audiences; one naming another client is refused too.
    if (claims.azp !== undefined && claims.azp !== this.#s.clientId) throw invalidIdToken('it was issued to another party (azp)');
    if (claims.email === undefined && config.serverMetadata().userinfo_endpoint) {
      try {
        claims = { ...(await oidc.fetchUserInfo(config, tokens.access_token, claims.sub as string)), ...claims };
      } catch (e) {
        throw await signInFailure(e, { ...at, step: 'the userinfo request' });
      }
    }
    if (claims.email_verified !== undefined && claims.email_verified !== true && claims.email_verified !== 'true') {
      throw errors.badRequest(`Sign-in with '${this.id}' failed: the provider has not verified the account's email address`);
    }
    return toProfile(this.id, { subject: claims.sub, email: claims.email, name: claims.name, picture: claims.picture });
  }

  /** The discovered configuration, cached for an hour; a failed discovery is not cached. */
  #configuration(): Promise<oidc.Configuration> {
    const now = Date.now();
    if (this.#config && now - this.#config.at < CACHE_TTL_MS) return this.#config.config;
    const config = this.#discover();
    this.#config = { at: now, config };
    config.catch(() => {
      if (this.#config?.config === config) this.#config = null;
    });
    return config;
  }

  async #discover(): Promise<oidc.Configuration> {
    const base = this.#s.issuer.replace(/\/+$/, '');
    // The document's URL rather than the issuer: openid-client then leaves the issuer comparison
    // to us, and OIDC Discovery 4.3 allows a trailing slash either way.
    const url = new URL(`${base}/.well-known/openid-configuration`);
    const fetch = this.#http.fetchFor(this.id);
    const insecure = this.#s.allowHttp ? [oidc.allowInsecureRequests] : [];
    let found: oidc.Configuration;
    try {
      found = await oidc.discovery(url, this.#s.clientId, undefined, undefined, {
        [oidc.customFetch]: fetch, timeout: IDP_TIMEOUT_MS / 1000, execute: insecure,
      });
    } catch (e) {
      throw unreachableCause(e) ?? this.#http.broken(this.id, 'OpenID discovery document', { url: url.href, err: (e as Error).message });
    }
    const as = found.serverMetadata();
    const missing = (['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'userinfo_endpoint'] as const)
      .filter((k) => (k !== 'userinfo_endpoint' || as[k] !== undefined) && !usableUrl(as[k], this.#s.allowHttp));
    if (as.issuer.replace(/\/+$/, '') !== base || missing.length > 0) {
      throw this.#http.broken(this.id, 'OpenID discovery document', { url: url.href, issuer: as.issuer, expected: this.#s.issuer, missing });
    }
    const methods = as.token_endpoint_auth_methods_supported;
    const basic = !methods || methods.includes('client_secret_basic') || !methods.includes('client_secret_post');
    // A copy of the document that names only the accepted algorithms: openid-client refuses an
    // id_token signed with any other (alg none and HMAC included) before it looks at a key. The
    // spread leaves out serverMetadata()'s helper methods (not enumerable), which could not be cloned.
    const config = new oidc.Configuration(
      { ...(as as oidc.ServerMetadata), id_token_signing_alg_values_supported: ID_TOKEN_ALGS },
      this.#s.clientId,
      { client_secret: this.#s.clientSecret, [oidc.clockTolerance]: CLOCK_TOLERANCE_S },
      basic ? oidc.ClientSecretBasic(this.#s.clientSecret) : oidc.ClientSecretPost(this.#s.clientSecret),
    );
    config[oidc.customFetch] = fetch;
    config.timeout = IDP_TIMEOUT_MS / 1000;
    if (this.#s.allowHttp) oidc.allowInsecureRequests(config);
    // The id_token comes straight from the token endpoint, which OIDC lets a client trust without
    // a signature check; it is checked anyway, against the keys at jwks_uri.
    oidc.enableNonRepudiationChecks(config);
    return config;
  }
}

function usableUrl(v: unknown, allowHttp: boolean): boolean {
  return typeof v === 'string' && URL.canParse(v) && (v.startsWith('https://') || (allowHttp && v.startsWith('http://')));
}
