import { Type } from '@sinclair/typebox';
import { calculatePKCECodeChallenge, randomNonce, randomPKCECodeVerifier, randomState } from 'openid-client';
import type { Config } from '../config/schema.js';
import { errors } from '../errors/catalog.js';
import { isGatewayError } from '../errors/gateway-error.js';
import { type RouteSpec, route } from '../domain/route-spec.js';
import type { ControlDeps } from './control-deps.js';
import { IdpHttp } from './oauth/idp-http.js';
import { oauthStates } from '../store/oauth-states.js';
import { signInProviders } from './oauth/registry.js';
import type { SignInProvider } from './oauth/sign-in-provider.js';
import { startSession } from './session-start.js';

/** How long a started sign-in may take at the provider before its state is refused. */
const STATE_TTL_MS = 10 * 60_000;
/**
 * Binds a sign-in to the browser that started it: without it, a callback URL carrying someone
 * else's code and state would sign the victim into the attacker's account (login CSRF).
 */
const BINDING_COOKIE = 'gw_oauth';
/** The dashboard's overview. */
const DEFAULT_RETURN = '/';

/** GET /auth/:provider starts an authorization-code sign-in with PKCE; its callback ends it in a session. */
export function oauthRoutes(d: ControlDeps): RouteSpec[] {
  const providers = signInProviders(d.config.auth, new IdpHttp(d.log, d.config.upstream));
  const states = oauthStates(d.db);
  const provider = (id: string): SignInProvider => {
    const p = providers.get(id);
    if (p === undefined) throw errors.notFound(`No sign-in provider '${id}'`);
    if (p === null) throw errors.providerNotConfigured(id);
    return p;
  };
  // d.baseUrl is known only once the server listens: read it per request.
  const redirectUri = (id: string) => `${d.baseUrl}/auth/${id}/callback`;

  const methods = {
    providers: [...providers].filter(([, p]) => p !== null).map(([id]) => ({ id, name: displayName(id, d.config.auth), url: `/auth/${id}` })),
    login_link: true,
  };
  return [
    route({
      kind: 'json', method: 'get', path: '/auth/methods', auth: 'public', response: SignInMethods,
      summary: 'The sign-in methods configured on this gateway (the dashboard shows a button for each); login links from `gw login-link` always work',
      handle: () => ({ body: methods }),
    }),
    route({
      kind: 'json', method: 'get', path: '/auth/:provider', auth: 'public', redirects: true,
      summary: 'Start signing in with google, github or a configured OpenID provider: redirects to the provider. '
        + 'Optional return_to=/path is where the browser lands afterwards (default /, the dashboard)',
      handle: async (ctx) => {
        const p = provider(ctx.params.provider);
        const now = d.clock.now();
        const state = randomState();
        const verifier = randomPKCECodeVerifier();
        const nonce = p.usesNonce ? randomNonce() : null;
        const location = await p.authorizeUrl({ redirectUri: redirectUri(p.id), state, codeChallenge: await calculatePKCECodeChallenge(verifier), nonce });
        states.save({
          state, provider: p.id, code_verifier: verifier, nonce,
          return_to: sameSitePath(new URLSearchParams(ctx.query).get('return_to')), created_at: now, expires_at: now + STATE_TTL_MS,
        });
        return { status: 302, headers: { location, 'set-cookie': bindingCookie(state, d.baseUrl.startsWith('https://')) } };
      },
    }),
    route({
      kind: 'json', method: 'get', path: '/auth/:provider/callback', auth: 'public', headers: ['cookie', 'accept'], redirects: true,
      summary: 'Where the provider sends the browser back: checks state, exchanges the code, sets the session cookie and redirects; '
        + "a refusal is the error envelope, or for a browser (Accept: text/html) a redirect to the dashboard's sign-in page that says why",
      handle: (ctx) => toSignInPage(ctx.headers.accept, async () => {
        const p = provider(ctx.params.provider);
        const q = new URLSearchParams(ctx.query);
        const state = q.get('state');
        const row = state ? states.take(state) : undefined;
        const refused = q.get('error');
        if (refused !== null) {
          throw errors.badRequest(`Sign-in with '${p.id}' was not completed: the provider answered ${/^[a-z_]{1,64}$/.test(refused) ? refused : 'an error'}`);
        }
        if (!row) throw errors.badRequest('This sign-in is unknown, expired or already used; start again');
        if (row.provider !== p.id) throw errors.badRequest(`This sign-in was started with '${row.provider}', not '${p.id}'; start again`);
        if (row.expires_at <= d.clock.now()) throw errors.badRequest('This sign-in has expired; start again');
        if (cookieValue(ctx.headers.cookie, BINDING_COOKIE) !== row.state) {
          throw errors.badRequest('This sign-in was started in another browser; start again from this one');
        }
        const code = q.get('code');
        if (!code) throw errors.badRequest(`Sign-in with '${p.id}' returned no authorization code`);
        const profile = await p.finish({
          redirectUri: redirectUri(p.id), callbackParams: q, state: row.state, code, codeVerifier: row.code_verifier, nonce: row.nonce,
        });
        const { setCookie } = startSession(d, {
          email: profile.email, name: profile.name, avatarUrl: profile.avatarUrl, identity: { provider: p.id, subject: profile.subject },
        });
        // The binding cookie has done its work: clear it along with setting the session.
        const cleared = `${BINDING_COOKIE}=; Path=/auth; HttpOnly; SameSite=Lax; Max-Age=0${d.baseUrl.startsWith('https://') ? '; Secure' : ''}`;
        return { status: 302, headers: { location: row.return_to ?? DEFAULT_RETURN, 'set-cookie': [setCookie, cleared] } };
      }),
    }),
  ];
}

/**
 * A sign-in that fails in a browser lands on the dashboard's sign-in page with the reason, not on
 * a JSON document; API clients (no text/html in Accept) keep the envelope.
 */
export async function toSignInPage<T>(accept: string | undefined, run: () => Promise<T>): Promise<T | { status: number; headers: Record<string, string> }> {
  try {
    return await run();
  } catch (e) {
    if (!isGatewayError(e) || !accept?.includes('text/html')) throw e;
    return { status: 302, headers: { location: `/sign-in?error=${encodeURIComponent(e.message)}` } };
  }
}

const SignInMethods = Type.Object({
  providers: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), url: Type.String({ description: 'GET it to start; add return_to=/path' }) })),
  login_link: Type.Boolean({ description: 'one-time links from `gw login-link --email …` sign in at /auth/link' }),
});

function displayName(id: string, auth: Config['auth']): string {
  if (id === 'google') return 'Google';
  if (id === 'github') return 'GitHub';
  return auth.oidc[id]?.name ?? id;
}

/**
 * A return_to kept only when it is a path on this site: one leading slash, not `//host` or
 * `/\host` (which browsers read as another host), printable ASCII (no header injection).
 */
export function sameSitePath(v: string | null): string | null {
  if (v === null || v.length > 1024) return null;
  return /^\/(?![/\\])[\x21-\x7e]*$/.test(v) && !v.includes('\\') ? v : null;
}

function bindingCookie(state: string, secure: boolean): string {
  return `${BINDING_COOKIE}=${state}; Path=/auth; HttpOnly; SameSite=Lax; Max-Age=${STATE_TTL_MS / 1000}${secure ? '; Secure' : ''}`;
}

function cookieValue(header: string | undefined, name: string): string {
  if (!header) return '';
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return '';
}
