import { Type } from '@sinclair/typebox';
import type { Config } from '../../config/schema.js';
import { isGatewayError } from '../../errors/gateway-error.js';
import { type RouteSpec, route } from '../../domain/route-spec.js';
import { sessionCookie } from '../../lib/session-cookie.js';
import { STATE_TTL_MS, type SignInService } from './sign-in-service.js';
/**
 * Binds a sign-in to the browser that started it: without it, a callback URL carrying someone
 * else's code and state would sign the victim into the attacker's account (login CSRF).
 */
const BINDING_COOKIE = 'gw_oauth';
/** The dashboard's overview. */
const DEFAULT_RETURN = '/';

/**
 * GET /auth/:provider starts an authorization-code sign-in with PKCE; its callback ends it in a
 * session. HTTP only (cookies, redirects, the browser's error page): the rules are the sign-in
 * service's.
 */
export function signInRoutes(signIn: SignInService, auth: Config['auth'], baseUrl: () => string): RouteSpec[] {
  const secure = () => baseUrl().startsWith('https://');
  const methods = {
    providers: signIn.configuredProviders().map((id) => ({ id, name: displayName(id, auth), url: `/auth/${id}` })),
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
        const { location, state } = await signIn.start(ctx.params.provider, sameSitePath(new URLSearchParams(ctx.query).get('return_to')));
        return { status: 302, headers: { location, 'set-cookie': bindingCookie(state, secure()) } };
      },
    }),
    route({
      kind: 'json', method: 'get', path: '/auth/:provider/callback', auth: 'public', headers: ['cookie', 'accept'], redirects: true,
      summary: 'Where the provider sends the browser back: checks state, exchanges the code, sets the session cookie and redirects; '
        + "a refusal is the error envelope, or for a browser (Accept: text/html) a redirect to the dashboard's sign-in page that says why",
      handle: (ctx) => toSignInPage(ctx.headers.accept, async () => {
        const s = await signIn.finish(ctx.params.provider, new URLSearchParams(ctx.query), cookieValue(ctx.headers.cookie, BINDING_COOKIE));
        // The binding cookie has done its work: clear it along with setting the session.
        const cleared = `${BINDING_COOKIE}=; Path=/auth; HttpOnly; SameSite=Lax; Max-Age=0${secure() ? '; Secure' : ''}`;
        return { status: 302, headers: { location: s.returnTo ?? DEFAULT_RETURN, 'set-cookie': [sessionCookie(s.token, s.expiresAt, secure()), cleared] } };
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
