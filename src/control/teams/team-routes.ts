import { Type } from '@sinclair/typebox';
import { ROLE_RANK, type Session } from '../domain/session.js';
import { errors } from '../errors/catalog.js';
import { type RouteSpec, route } from '../domain/route-spec.js';
import {
  countPendingInvitations, decideInvitation, findInvitation, findInvitationForList, findPendingInvitationByEmail,
  insertInvitation, listPendingInvitationsForEmail, listPendingInvitationsOfOrg, type InvitationListRow,
} from '../store/invitations.js';
import {
  countMembers, countOwners, countTeamOrgsOfUser, deleteMember, findMember, findMemberByEmail, findOrgOfUser,
  insertMember, insertTeamOrg, listMembers, listOrgsOfUser, updateMemberRole, type MemberRow, type OrgOfUserRow,
} from '../store/members.js';
import { findOrg } from '../store/orgs.js';
import { setSessionOrg } from '../store/sessions.js';
import type { ControlDeps } from './control-deps.js';
import { cleanName, iso, parseEmail, parseRole } from './team-rules.js';
import { mailInvitation } from './invitation-mail.js';
import { workspaceRoutes } from './workspace-routes.js';

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

const orgItem = (o: OrgOfUserRow, s: Session) => ({
  id: o.id, name: o.name, personal: o.personal === 1, role: o.role, active: o.id === s.orgId, created_at: iso(o.created_at)!,
});
const memberItem = (m: MemberRow) => ({ id: m.user_id, email: m.email, name: m.name, role: m.role, joined_at: iso(m.created_at)! });
const orgInvitation = (i: InvitationListRow) => ({
  id: i.id, email: i.email, role: i.role, invited_by: i.invited_by_email, created_at: iso(i.created_at)!,
});

/**
 * Teams (spec 4.11): the caller's orgs and switching between them, members and invitations of the
 * active org, the caller's own invitations, and (workspace-routes.ts) the org's workspaces.
 * Every id is looked up within the session's active org (or, for invitations addressed to the
 * caller, by the caller's email): another org's id answers 404 not_found, never its data.
 */
export function teamRoutes(d: ControlDeps): RouteSpec[] {
  const { db } = d;
  const caps = d.config.orgs;
  const memberOf = (orgId: string, userId: string) => {
    const m = findMember(db, orgId, userId);
    if (!m) throw errors.notFound('No such member in this organisation');
    return m;
  };
  /** A pending invitation addressed to the caller; anything else is 404, whoever's it is. */
  const invitationFor = (s: Session, id: string) => {
    const inv = findInvitationForList(db, id);
    if (!inv || inv.status !== 'pending' || inv.email.toLowerCase() !== s.email.toLowerCase()) {
      throw errors.notFound('No such pending invitation for you');
    }
    return inv;
  };

  return [
    route({
      kind: 'json', method: 'get', path: '/me/orgs', auth: 'session', response: Type.Object({ data: Type.Array(OrgItem) }),
      summary: 'The orgs the caller belongs to, with their role and which one this session is acting in',
      handle: (ctx) => ({ body: { data: listOrgsOfUser(db, ctx.session.userId).map((o) => orgItem(o, ctx.session)) } }),
    }),
    route({
      kind: 'json', method: 'post', path: '/me/orgs', auth: 'session', response: OrgItem,
      body: Type.Object({ name: Type.String({ description: '1-80 characters' }) }, { additionalProperties: false }),
      summary: 'Create a team org with a default workspace; the caller becomes its owner (the session stays where it is)',
      handle: (ctx) => {
        const s = ctx.session;
        const name = cleanName((ctx.body).name, 80, 'Organisation');
        const now = d.clock.now();
        const { orgId } = db.transaction(() => {
          if (countTeamOrgsOfUser(db, s.userId) >= caps.maxTeamOrgsPerUser) {
            throw errors.rule('team_cap', `A user can belong to at most ${caps.maxTeamOrgsPerUser} team organisations`);
          }
          return insertTeamOrg(db, name, s.userId, now);
        }).immediate();
        return { status: 201, body: orgItem(findOrgOfUser(db, s.userId, orgId)!, s) };
      },
    }),
    route({
      kind: 'json', method: 'post', path: '/me/orgs/switch', auth: 'session', response: OrgItem,
      body: Type.Object({ org_id: Type.String() }, { additionalProperties: false }),
      summary: 'Make another org the caller belongs to the active org of this session',
      handle: (ctx) => {
        const s = ctx.session;
        const o = findOrgOfUser(db, s.userId, (ctx.body).org_id);
        if (!o) throw errors.notFound('No such organisation among yours');
        setSessionOrg(db, s.hash, o.id);
        return { body: orgItem(o, { ...s, orgId: o.id }) };
      },
    }),
    route({
      kind: 'json', method: 'get', path: '/me/members', auth: 'session',
      response: Type.Object({ members: Type.Array(MemberItem), invitations: Type.Array(OrgInvitation) }),
      summary: 'Members of the active org and its pending invitations',
      handle: (ctx) => {
        const orgId = ctx.session.orgId;
        return { body: { members: listMembers(db, orgId).map(memberItem), invitations: listPendingInvitationsOfOrg(db, orgId).map(orgInvitation) } };
      },
    }),
    route({
      kind: 'json', method: 'post', path: '/me/members', auth: 'session', role: 'admin', response: OrgInvitation,
      body: Type.Object({
        email: Type.String(),
        role: Type.Optional(Type.String({ description: 'owner, admin or member (default member); only an owner may invite an owner' })),
      }, { additionalProperties: false }),
      summary: 'Invite someone by email to the active org (owner/admin); they accept at /me/invitations/:id/accept',
      handle: (ctx) => {
        const s = ctx.session;
        const b = ctx.body;
        if (findOrg(db, s.orgId)!.personal === 1) {
          throw errors.rule('personal_org', 'A personal organisation has no other members; create a team organisation and invite there');
        }
        const email = parseEmail(b.email);
        const role = parseRole(b.role ?? 'member');
        if (role === 'owner' && s.role !== 'owner') throw errors.forbidden('Only an owner can invite an owner');
        const now = d.clock.now();
        const inv = db.transaction(() => {
          if (findMemberByEmail(db, s.orgId, email)) throw errors.rule('already_member', `${email} is already a member of this organisation`);
          if (findPendingInvitationByEmail(db, s.orgId, email)) throw errors.rule('already_invited', `${email} already has a pending invitation`);
          if (countMembers(db, s.orgId) + countPendingInvitations(db, s.orgId) >= caps.maxMembersPerOrg) {
            throw errors.rule('member_cap', `An organisation can have at most ${caps.maxMembersPerOrg} members, pending invitations included`);
          }
          return insertInvitation(db, { orgId: s.orgId, email, role, invitedBy: s.userId }, now);
        }).immediate();
        mailInvitation(d, { id: inv.id, email, role, orgName: findOrg(db, s.orgId)!.name, invitedBy: s.email });
        return { status: 201, body: orgInvitation({ ...inv, invited_by_email: s.email, org_name: '' }) };
      },
    }),
    route({
      kind: 'json', method: 'patch', path: '/me/members/:id', auth: 'session', role: 'owner', response: MemberItem,
      body: Type.Object({ role: Type.String({ description: 'owner, admin or member' }) }, { additionalProperties: false }),
      summary: 'Change a member\'s role (owner); the last owner cannot be demoted',
      handle: (ctx) => {
        const orgId = ctx.session.orgId;
        const role = parseRole((ctx.body).role);
        db.transaction(() => {
          const m = memberOf(orgId, ctx.params.id);
          if (m.role === 'owner' && role !== 'owner' && countOwners(db, orgId) <= 1) {
            throw errors.rule('last_owner', 'This is the last owner: make someone else an owner first');
          }
          updateMemberRole(db, orgId, m.user_id, role);
        }).immediate();
        return { body: memberItem(memberOf(orgId, ctx.params.id)) };
      },
    }),
    route({
      kind: 'json', method: 'del', path: '/me/members/:id', auth: 'session',
      response: Type.Object({ id: Type.String(), removed: Type.Boolean(), left: Type.Boolean({ description: 'true when the caller removed themselves' }) }),
      summary: 'Remove a member (owner/admin; only owners remove owners), or leave the org with your own id',
      handle: (ctx) => {
        const s = ctx.session;
        const self = ctx.params.id === s.userId;
        db.transaction(() => {
          const m = memberOf(s.orgId, ctx.params.id);
          if (!self) {
            if (ROLE_RANK[s.role] < ROLE_RANK.admin) throw errors.forbidden('Removing a member needs the admin role; members can only leave');
            if (m.role === 'owner' && s.role !== 'owner') throw errors.forbidden('Only an owner can remove an owner');
          } else if (findOrg(db, s.orgId)!.personal === 1) {
            throw errors.rule('personal_org', 'You cannot leave your personal organisation');
          }
          if (m.role === 'owner' && countOwners(db, s.orgId) <= 1) {
            throw errors.rule('last_owner', 'This is the last owner: make someone else an owner first');
          }
          deleteMember(db, s.orgId, m.user_id);
        }).immediate();
        return { body: { id: ctx.params.id, removed: true, left: self } };
      },
    }),
    route({
      kind: 'json', method: 'del', path: '/me/invitations/:id', auth: 'session', role: 'admin', response: InvitationDecision,
      summary: 'Revoke a pending invitation of the active org (owner/admin)',
      handle: (ctx) => {
        const inv = findInvitation(db, ctx.params.id);
        if (!inv || inv.org_id !== ctx.session.orgId || !decideInvitation(db, inv.id, 'revoked', d.clock.now())) {
          throw errors.notFound('No such pending invitation in this organisation');
        }
        return { body: { id: inv.id, status: 'revoked' } };
      },
    }),
    route({
      kind: 'json', method: 'get', path: '/me/invitations', auth: 'session', response: Type.Object({ data: Type.Array(MyInvitation) }),
      summary: 'Pending invitations addressed to the caller\'s email, from every org',
      handle: (ctx) => ({
        body: {
          data: listPendingInvitationsForEmail(db, ctx.session.email).map((i) => ({
            id: i.id, org_id: i.org_id, org_name: i.org_name, role: i.role, invited_by: i.invited_by_email, created_at: iso(i.created_at)!,
          })),
        },
      }),
    }),
    route({
      kind: 'json', method: 'post', path: '/me/invitations/:id/accept', auth: 'session',
      response: Type.Object({ id: Type.String(), status: Type.String(), org: OrgItem }),
      summary: 'Accept an invitation: become a member with the invited role (switch to the org with /me/orgs/switch)',
      handle: (ctx) => {
        const s = ctx.session;
        const now = d.clock.now();
        db.transaction(() => {
          const inv = invitationFor(s, ctx.params.id);
          if (findMember(db, inv.org_id, s.userId)) throw errors.rule('already_member', 'You are already a member of this organisation');
          if (countTeamOrgsOfUser(db, s.userId) >= caps.maxTeamOrgsPerUser) {
            throw errors.rule('team_cap', `A user can belong to at most ${caps.maxTeamOrgsPerUser} team organisations; leave one first`);
          }
          if (countMembers(db, inv.org_id) >= caps.maxMembersPerOrg) {
            throw errors.rule('member_cap', `The organisation already has ${caps.maxMembersPerOrg} members`);
          }
          insertMember(db, inv.org_id, s.userId, inv.role, now);
          decideInvitation(db, inv.id, 'accepted', now);
        }).immediate();
        const inv = findInvitation(db, ctx.params.id)!;
        return { body: { id: inv.id, status: inv.status, org: orgItem(findOrgOfUser(db, s.userId, inv.org_id)!, s) } };
      },
    }),
    route({
      kind: 'json', method: 'post', path: '/me/invitations/:id/decline', auth: 'session', response: InvitationDecision,
      summary: 'Decline an invitation addressed to you',
      handle: (ctx) => {
        const inv = invitationFor(ctx.session, ctx.params.id);
        decideInvitation(db, inv.id, 'declined', d.clock.now());
        return { body: { id: inv.id, status: 'declined' } };
      },
    }),
    ...workspaceRoutes(d),
  ];
}
