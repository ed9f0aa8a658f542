import { Type } from '@sinclair/typebox';
import { type RouteSpec, route } from '../../domain/route-spec.js';
import { clearedSessionCookie, sessionCookie, sessionToken } from '../../lib/session-cookie.js';
import { microsToInr } from '../../lib/money.js';
import { sameSitePath, toSignInPage } from '../sign-in/sign-in-routes.js';
import type { SignInService } from '../sign-in/sign-in-service.js';
import type { AccountService, Me } from './account-service.js';
import { PromptCacheSetting, ResponseCacheSetting } from '../cache-setting-schema.js';

const MeBody = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  avatar_url: Type.Union([Type.String(), Type.Null()]),
  role: Type.String(),
  attribution_pending: Type.Boolean({ description: 'true until the one-time signup survey (POST /me/attribution) is answered' }),
  org: Type.Object({
    id: Type.String(),
    name: Type.String(),
    personal: Type.Boolean(),
    domain: Type.Union([Type.String(), Type.Null()]),
    balance_inr: Type.Number(),
    tier: Type.String({ description: 'tier new keys get: trial or standard' }),
    guardrails: Type.Union([Type.String(), Type.Null()], { description: "The org's guardrail policy (docs/guardrails.md); keys without their own follow it" }),
    response_cache: ResponseCacheSetting,
    prompt_cache: PromptCacheSetting,
  }),
});

const meBody = (m: Me) => ({
  id: m.user.id, email: m.user.email, name: m.user.name, avatar_url: m.user.avatarUrl, role: m.role, attribution_pending: m.attributionPending,
  org: { id: m.org.id, name: m.org.name, personal: m.org.personal, domain: m.domain, balance_inr: microsToInr(m.org.balanceMicros), tier: m.tier,
    guardrails: m.org.guardrails, response_cache: m.org.responseCache, prompt_cache: m.org.promptCache },
});

/**
 * Sign-in by login link, logout, and the /me account endpoints (spec 4.3). The login link's rules
 * are the sign-in service's; the rest is HTTP to the account service.
 */
export function accountRoutes(account: AccountService, signIn: SignInService, baseUrl: () => string): RouteSpec[] {
  // The public origin is known once the server listens: read it per request.
  const secure = () => baseUrl().startsWith('https://');
  return [
    route({
      kind: 'json', method: 'get', path: '/auth/link', auth: 'public', redirects: true, headers: ['accept'],
      summary: 'Use a one-time login link (from `gw login-link`): sets the session cookie and redirects to the dashboard (/, or return_to=/path)',
      handle: (ctx) => toSignInPage(ctx.headers.accept, async () => {
        const q = new URLSearchParams(ctx.query);
        const s = await signIn.useLoginLink(q.get('token') ?? '');
        return { status: 302, headers: { location: sameSitePath(q.get('return_to')) ?? '/', 'set-cookie': sessionCookie(s.token, s.expiresAt, secure()) } };
      }),
    }),
    route({
      kind: 'json', method: 'post', path: '/auth/logout', auth: 'public', headers: ['cookie'], sameOrigin: true,
      summary: 'Sign out: ends the session server-side and clears the cookie',
      response: Type.Object({ signed_out: Type.Boolean() }),
      handle: async (ctx) => {
        await account.signOut(sessionToken(ctx.headers.cookie));
        return { body: { signed_out: true }, headers: { 'set-cookie': clearedSessionCookie(secure()) } };
      },
    }),
    route({
      kind: 'json', method: 'get', path: '/me', auth: 'session', response: MeBody,
      summary: 'The signed-in user and the active org',
      handle: async (ctx) => ({ body: meBody(await account.me(ctx.session)) }),
    }),
    route({
      kind: 'json', method: 'patch', path: '/me', auth: 'session', response: MeBody,
      body: Type.Object({
        name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 80 }), Type.Null()])),
        remove_avatar: Type.Optional(Type.Literal(true)),
      }, { additionalProperties: false }),
      summary: 'Update the display name or remove the avatar',
      handle: async (ctx) => ({ body: meBody(await account.updateProfile(ctx.session, { name: ctx.body.name, removeAvatar: ctx.body.remove_avatar })) }),
    }),
    route({
      kind: 'json', method: 'patch', path: '/me/org', auth: 'session', role: 'owner', response: MeBody,
      body: Type.Object({
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })),
        guardrails: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 500 }), Type.Null()])),
        response_cache: Type.Optional(ResponseCacheSetting),
        prompt_cache: Type.Optional(PromptCacheSetting),
      }, { additionalProperties: false, minProperties: 1 }),
      summary: 'Rename the active org, or set its guardrail policy or cache settings (owner)',
      handle: async (ctx) => {
        const b = ctx.body;
        if (b.guardrails !== undefined) await account.setOrgGuardrails(ctx.session, b.guardrails);
        if (b.response_cache !== undefined || b.prompt_cache !== undefined) {
          await account.setOrgCacheSettings(ctx.session, { responseCache: b.response_cache, promptCache: b.prompt_cache });
        }
        return { body: meBody(b.name !== undefined ? await account.renameOrg(ctx.session, b.name) : await account.me(ctx.session)) };
      },
    }),
    route({
      kind: 'json', method: 'post', path: '/me/attribution', auth: 'session',
      body: Type.Object({
        source: Type.String({ minLength: 1, maxLength: 200 }),
        details: Type.Optional(Type.String({ maxLength: 2000 })),
      }, { additionalProperties: false }),
      response: Type.Object({ saved: Type.Boolean() }),
      summary: 'The one-time signup survey; a second answer is refused',
      handle: async (ctx) => {
        await account.answerSurvey(ctx.session.userId, ctx.body);
        return { status: 201, body: { saved: true } };
      },
    }),
  ];
}
