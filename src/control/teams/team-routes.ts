import { Type } from '@sinclair/typebox';
import { type RouteSpec, route } from '../../domain/route-spec.js';
import type { Session } from '../../domain/session.js';
import type { Invitation } from '../../domain/stores/invitation-store.js';
import type { Member, OrgOfUser } from '../../domain/stores/member-store.js';
import { iso } from '../../lib/iso-time.js';
import type { TeamService } from './team-service.js';

const OrgItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  personal: Type.Boolean(),
  role: Type.String({ description: 'the caller\'s role: owner, admin or member' }),
  active: Type.Boolean({ description: 'the org this session is acting in' }),
  created_at: Type.String(),
});

const MemberItem = Type.Object({
  id: Type.String({ description: 'user id' }),
  email: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  role: Type.String(),
  joined_at: Type.String(),
});

const OrgInvitation = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Type.String(),
  invited_by: Type.String({ description: 'inviter\'s email' }),
  created_at: Type.String(),
});

const MyInvitation = Type.Object({
  id: Type.String(),
  org_id: Type.String(),
  org_name: Type.String(),
  role: Type.String(),
  invited_by: Type.String({ description: 'inviter\'s email' }),
  created_at: Type.String(),
});

const InvitationDecision = Type.Object({ id: Type.String(), status: Type.String() });

const orgItem = (o: OrgOfUser, s: Pick<Session, 'orgId'>) => ({
  id: o.id, name: o.name, personal: o.personal, role: o.role, active: o.id === s.orgId, created_at: iso(o.createdAt)!,
});
const memberItem = (m: Member) => ({ id: m.userId, email: m.email, name: m.name, role: m.role, joined_at: iso(m.joinedAt)! });
const orgInvitation = (i: Invitation) => ({
  id: i.id, email: i.email, role: i.role, invited_by: i.invitedByEmail, created_at: iso(i.createdAt)!,
});

/**
 * Teams (spec 4.11): the caller's orgs and switching between them, members and invitations of the
 * active org, the caller's own invitations: HTTP to the team service and back.
 */
export function teamRoutes(teams: TeamService): RouteSpec[] {
  return [
    route({
      kind: 'json', method: 'get', path: '/me/orgs', auth: 'session', response: Type.Object({ data: Type.Array(OrgItem) }),
      summary: 'The orgs the caller belongs to, with their role and which one this session is acting in',
      handle: async (ctx) => ({ body: { data: (await teams.orgs(ctx.session.userId)).map((o) => orgItem(o, ctx.session)) } }),
    }),
    route({
      kind: 'json', method: 'post', path: '/me/orgs', auth: 'session', response: OrgItem,
      body: Type.Object({ name: Type.String({ description: '1-80 characters' }) }, { additionalProperties: false }),
      summary: 'Create a team org with a default workspace; the caller becomes its owner (the session stays where it is)',
      handle: async (ctx) => ({ status: 201, body: orgItem(await teams.createOrg(ctx.session.userId, ctx.body.name), ctx.session) }),
    }),
    route({
      kind: 'json', method: 'post', path: '/me/orgs/switch', auth: 'session', response: OrgItem,
      body: Type.Object({ org_id: Type.String() }, { additionalProperties: false }),
      summary: 'Make another org the caller belongs to the active org of this session',
      handle: async (ctx) => {
        const o = await teams.switchOrg(ctx.session, ctx.body.org_id);
        return { body: orgItem(o, { orgId: o.id }) };
      },
    }),
    route({
      kind: 'json', method: 'get', path: '/me/members', auth: 'session',
      response: Type.Object({ members: Type.Array(MemberItem), invitations: Type.Array(OrgInvitation) }),
      summary: 'Members of the active org and its pending invitations',
      handle: async (ctx) => {
        const { members, invitations } = await teams.members(ctx.session.orgId);
        return { body: { members: members.map(memberItem), invitations: invitations.map(orgInvitation) } };
      },
    }),
    route({
      kind: 'json', method: 'post', path: '/me/members', auth: 'session', role: 'admin', response: OrgInvitation,
      body: Type.Object({
        email: Type.String(),
        role: Type.Optional(Type.String({ description: 'owner, admin or member (default member); only an owner may invite an owner' })),
      }, { additionalProperties: false }),
      summary: 'Invite someone by email to the active org (owner/admin); they accept at /me/invitations/:id/accept',
      handle: async (ctx) => ({ status: 201, body: orgInvitation(await teams.invite(ctx.session, ctx.body)) }),
    }),
    route({
      kind: 'json', method: 'patch', path: '/me/members/:id', auth: 'session', role: 'owner', response: MemberItem,
      body: Type.Object({ role: Type.String({ description: 'owner, admin or member' }) }, { additionalProperties: false }),
      summary: 'Change a member\'s role (owner); the last owner cannot be demoted',
      handle: async (ctx) => ({ body: memberItem(await teams.changeRole(ctx.session.orgId, ctx.params.id, ctx.body.role)) }),
    }),
    route({
      kind: 'json', method: 'del', path: '/me/members/:id', auth: 'session',
      response: Type.Object({ id: Type.String(), removed: Type.Boolean(), left: Type.Boolean({ description: 'true when the caller removed themselves' }) }),
      summary: 'Remove a member (owner/admin; only owners remove owners), or leave the org with your own id',
      handle: async (ctx) => {
        const { left } = await teams.removeMember(ctx.session, ctx.params.id);
        return { body: { id: ctx.params.id, removed: true, left } };
      },
    }),
    route({
      kind: 'json', method: 'del', path: '/me/invitations/:id', auth: 'session', role: 'admin', response: InvitationDecision,
      summary: 'Revoke a pending invitation of the active org (owner/admin)',
      handle: async (ctx) => {
        await teams.revokeInvitation(ctx.session.orgId, ctx.params.id);
        return { body: { id: ctx.params.id, status: 'revoked' } };
      },
    }),
    route({
      kind: 'json', method: 'get', path: '/me/invitations', auth: 'session', response: Type.Object({ data: Type.Array(MyInvitation) }),
      summary: 'Pending invitations addressed to the caller\'s email, from every org',
      handle: async (ctx) => ({
        body: {
          data: (await teams.invitationsFor(ctx.session.email)).map((i) => ({
            id: i.id, org_id: i.orgId, org_name: i.orgName, role: i.role, invited_by: i.invitedByEmail, created_at: iso(i.createdAt)!,
          })),
        },
      }),
    }),
    route({
      kind: 'json', method: 'post', path: '/me/invitations/:id/accept', auth: 'session',
      response: Type.Object({ id: Type.String(), status: Type.String(), org: OrgItem }),
      summary: 'Accept an invitation: become a member with the invited role (switch to the org with /me/orgs/switch)',
      handle: async (ctx) => {
        const { invitation, org } = await teams.accept(ctx.session, ctx.params.id);
        return { body: { id: invitation.id, status: invitation.status, org: orgItem(org, ctx.session) } };
      },
    }),
    route({
      kind: 'json', method: 'post', path: '/me/invitations/:id/decline', auth: 'session', response: InvitationDecision,
      summary: 'Decline an invitation addressed to you',
      handle: async (ctx) => {
        await teams.decline(ctx.session, ctx.params.id);
        return { body: { id: ctx.params.id, status: 'declined' } };
      },
    }),
  ];
}
