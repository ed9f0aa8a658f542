import { ConfigError } from '../../config/load.js';
import type { Config } from '../../config/schema.js';
import { isLoopback } from '../../lib/proxy-settings.js';
import { GithubClient } from './github-client.js';
import type { IdpHttp } from './idp-http.js';
import { OidcClient } from './oidc-client.js';
import type { SignInProvider } from './sign-in-provider.js';

/** Ids that `auth.oidc` cannot take: the built-in providers and the other /auth/<word> routes. */
const RESERVED = new Set(['google', 'github', 'link', 'logout', 'methods']);

/**
 * The sign-in providers by id, built once from the frozen config: a provider without both client
 * id and secret maps to null (known, not configured: 503); an id not in the map is unknown (404).
 */
export function signInProviders(auth: Readonly<Config['auth']>, http: IdpHttp): ReadonlyMap<string, SignInProvider | null> {
  const out = new Map<string, SignInProvider | null>();
  const g = auth.google;
  const googleHttp = allowsHttp(g.issuer, undefined, '/auth/google/issuer');
  out.set('google', g.clientId && g.clientSecret
    ? new OidcClient('google', { clientId: g.clientId, clientSecret: g.clientSecret, issuer: g.issuer, scope: g.scope, allowHttp: googleHttp }, http)
    : null);
  const gh = auth.github;
  for (const k of ['authorizeUrl', 'tokenUrl', 'apiUrl'] as const) mustParse(gh[k], `/auth/github/${k}`);
  out.set('github', gh.clientId && gh.clientSecret
    ? new GithubClient({ ...gh, clientId: gh.clientId, clientSecret: gh.clientSecret }, http)
    : null);
  for (const [id, o] of Object.entries(auth.oidc)) {
    if (RESERVED.has(id)) throw new ConfigError(`invalid config at /auth/oidc/${id}: '${id}' is reserved; choose another provider id`);
    const allowHttp = allowsHttp(o.issuer, o.allowHttp, `/auth/oidc/${id}/issuer`);
    out.set(id, o.clientId && o.clientSecret
      ? new OidcClient(id, { clientId: o.clientId, clientSecret: o.clientSecret, issuer: o.issuer, scope: o.scope, allowHttp }, http)
      : null);
  }
  return out;
}

/** The schema checks only the scheme of these URLs; one that cannot be parsed would fail every sign-in. */
function mustParse(url: string, where: string): void {
  if (!URL.canParse(url)) throw new ConfigError(`invalid config at ${where}: '${url}' is not a URL`);
}

/**
 * Whether an OpenID issuer may be spoken to over plain http (openid-client refuses it otherwise):
 * on loopback (a provider beside the gateway, the tests'), or when its config says `allowHttp`.
 * Any other http issuer would fail every sign-in, so it stops start-up instead.
 */
function allowsHttp(issuer: string, flag: boolean | undefined, where: string): boolean {
  mustParse(issuer, where);
  const url = new URL(issuer);
  if (url.protocol === 'https:') return flag === true;
  if (flag === true || isLoopback(url.hostname.replace(/^\[|\]$/g, '').toLowerCase())) return true;
  throw new ConfigError(`invalid config at ${where}: '${issuer}' is plain http; use https, or set allowHttp: true beside it to allow http to this provider`);
}
