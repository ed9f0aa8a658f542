import { Type } from '@sinclair/typebox';
import { errors } from '../errors/catalog.js';
import { type RouteSpec, route } from '../domain/route-spec.js';
import { clearedSessionCookie, sessionToken } from '../lib/session-cookie.js';
import { deleteSession, hashToken } from '../store/sessions.js';
import { attributionPending, findUser, updateUser } from '../store/users.js';
import { findOrg, orgIsFunded } from '../store/orgs.js';
import { microsToInr } from '../lib/money.js';
import { cleanName } from './team-rules.js';
import type { ControlDeps } from './control-deps.js';
import { consumeLoginLink } from './login-links.js';
import { startSession } from './session-start.js';
import { sameSitePath, toSignInPage } from './oauth-routes.js';

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
  }),
});


/** Sign-in by login link, logout, and the /me account endpoints (spec 4.3). */
export function accountRoutes(d: ControlDeps): RouteSpec[] {
  const secure = d.baseUrl.startsWith('https://');
  const me = (userId: string, orgId: string, role: string) => {
    const u = findUser(d.db, userId)!;
    const o = findOrg(d.db, orgId)!;
    return {
      id: u.id, email: u.email, name: u.name, avatar_url: u.avatar_url, role, attribution_pending: attributionPending(d.db, u.id),
      org: {
        id: o.id, name: o.name, personal: o.personal === 1, domain: o.personal ? null : u.email.split('@')[1] ?? null,
        balance_inr: microsToInr(o.balance_micros), tier: orgIsFunded(o) ? 'standard' : 'trial',
      },
    };
  };
  return [
    route({
      kind: 'json', method: 'get', path: '/auth/link', auth: 'public', redirects: true, headers: ['accept'],
      summary: 'Use a one-time login link (from `gw login-link`): sets the session cookie and redirects to the dashboard (/, or return_to=/path)',
      handle: (ctx) => toSignInPage(ctx.headers.accept, async () => {
        const q = new URLSearchParams(ctx.query);
        const token = q.get('token') ?? '';
        const email = token ? consumeLoginLink(d.db, token, d.clock.now()) : null;
        if (!email) throw errors.forbidden('This login link is unknown, expired or already used; ask for a new one');
        const { setCookie } = startSession(d, { email });
        return { status: 302, headers: { location: sameSitePath(q.get('return_to')) ?? '/', 'set-cookie': setCookie } };
      }),
    }),
    route({
      kind: 'json', method: 'post', path: '/auth/logout', auth: 'public', headers: ['cookie'], sameOrigin: true,
      summary: 'Sign out: ends the session server-side and clears the cookie',
      response: Type.Object({ signed_out: Type.Boolean() }),
      handle: (ctx) => {
        const token = sessionToken(ctx.headers.cookie);
        if (token) deleteSession(d.db, hashToken(token));
        return { body: { signed_out: true }, headers: { 'set-cookie': clearedSessionCookie(secure) } };
      },
    }),
    route({
      kind: 'json', method: 'get', path: '/me', auth: 'session', response: MeBody,
      summary: 'The signed-in user and the active org',
      handle: (ctx) => ({ body: me(ctx.session.userId, ctx.session.orgId, ctx.session.role) }),
    }),
    route({
      kind: 'json', method: 'patch', path: '/me', auth: 'session', response: MeBody,
      body: Type.Object({
        name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 80 }), Type.Null()])),
        remove_avatar: Type.Optional(Type.Literal(true)),
      }, { additionalProperties: false }),
      summary: 'Update the display name or remove the avatar',
      handle: (ctx) => {
        const b = ctx.body;
        const name = typeof b.name === 'string' ? cleanName(b.name, 80, 'Display') : b.name;
        updateUser(d.db, ctx.session.userId, { name, avatarUrl: b.remove_avatar ? null : undefined });
        return { body: me(ctx.session.userId, ctx.session.orgId, ctx.session.role) };
      },
    }),
    route({
      kind: 'json', method: 'patch', path: '/me/org', auth: 'session', role: 'owner', response: MeBody,
      body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 80 }) }, { additionalProperties: false }),
      summary: 'Rename the active org (owner)',
      handle: (ctx) => {
        const { name } = ctx.body;
        d.db.prepare('UPDATE orgs SET name = ? WHERE id = ?').run(cleanName(name, 80, 'Org'), ctx.session.orgId);
        return { body: me(ctx.session.userId, ctx.session.orgId, ctx.session.role) };
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
      handle: (ctx) => {
        const res = d.db.prepare('INSERT OR IGNORE INTO attributions (user_id, answers, created_at) VALUES (?, ?, ?)')
          .run(ctx.session.userId, JSON.stringify(ctx.body), d.clock.now());
        if (res.changes === 0) throw errors.rule('already_answered', 'The signup survey has already been answered');
        return { status: 201, body: { saved: true } };
      },
    }),
  ];
}
