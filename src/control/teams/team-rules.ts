import { errors } from '../../errors/catalog.js';
import { ROLE_RANK, type Role } from '../../domain/session.js';
import type { MemberChangeFacts, NewTeamOrgFacts } from '../../domain/stores/member-store.js';
import type { AcceptFacts, NewInvitationFacts } from '../../domain/stores/invitation-store.js';
import { isEmail } from '../sign-in/login-links.js';

/** Longest org name, in characters. */
export const ORG_NAME_MAX = 80;

/** The caps a team lives under (config orgs). */
export interface TeamCaps {
  maxTeamOrgsPerUser: number;
  maxMembersPerOrg: number;
}

const ROLES: ReadonlySet<string> = new Set<Role>(['owner', 'admin', 'member']);

export function parseRole(raw: string): Role {
  if (!ROLES.has(raw)) throw errors.rule('bad_role', `role must be owner, admin or member, not '${raw.slice(0, 40)}'`);
  return raw as Role;
}

/** Emails are matched without regard to case; stored lower-case. */
export function parseEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (!isEmail(email)) throw errors.rule('bad_email', 'email is not a valid email address');
  return email;
}

/** A user belongs to at most maxTeamOrgsPerUser team orgs, created or joined. */
export function checkTeamCap(f: NewTeamOrgFacts, caps: TeamCaps, hint = ''): void {
  if (f.teamOrgs >= caps.maxTeamOrgsPerUser) {
    throw errors.rule('team_cap', `A user can belong to at most ${caps.maxTeamOrgsPerUser} team organisations${hint}`);
  }
}

/** Only an owner may invite an owner. */
export function checkInviterRole(inviter: Role, role: Role): void {
  if (role === 'owner' && inviter !== 'owner') throw errors.forbidden('Only an owner can invite an owner');
}

/** One pending invitation an email, none to a member, and members plus pending invitations within the cap. */
export function checkNewInvitation(f: NewInvitationFacts, email: string, caps: TeamCaps): void {
  if (f.alreadyMember) throw errors.rule('already_member', `${email} is already a member of this organisation`);
  if (f.alreadyInvited) throw errors.rule('already_invited', `${email} already has a pending invitation`);
  if (f.members + f.pending >= caps.maxMembersPerOrg) {
    throw errors.rule('member_cap', `An organisation can have at most ${caps.maxMembersPerOrg} members, pending invitations included`);
  }
}

/** Whether an invitation is one the caller may accept or decline: pending and addressed to their email. */
export function isPendingFor(inv: { status: string; email: string } | undefined, email: string): boolean {
  return inv !== undefined && inv.status === 'pending' && inv.email.toLowerCase() === email.toLowerCase();
}

export const noPendingInvitation = () => errors.notFound('No such pending invitation for you');

/** An acceptance: an invitation for the caller, not a member yet, within both caps. */
export function checkAccept(f: AcceptFacts, email: string, caps: TeamCaps): void {
  if (!isPendingFor(f.invitation, email)) throw noPendingInvitation();
  if (f.alreadyMember) throw errors.rule('already_member', 'You are already a member of this organisation');
  checkTeamCap({ teamOrgs: f.teamOrgs }, caps, '; leave one first');
  if (f.members >= caps.maxMembersPerOrg) throw errors.rule('member_cap', `The organisation already has ${caps.maxMembersPerOrg} members`);
}

const lastOwner = () => errors.rule('last_owner', 'This is the last owner: make someone else an owner first');
const noMember = () => errors.notFound('No such member in this organisation');

/** A role change: of a member of the org, never demoting its last owner. */
export function checkRoleChange(f: MemberChangeFacts, role: Role): void {
  if (!f.member) throw noMember();
  if (f.member.role === 'owner' && role !== 'owner' && f.owners <= 1) throw lastOwner();
}

/**
 * A removal by `actor`, or leaving when `self`: admins remove members, only owners remove
 * owners; nobody leaves a personal org; the last owner stays.
 */
export function checkRemoval(f: MemberChangeFacts, actor: Role, self: boolean): void {
  if (!f.member) throw noMember();
  if (!self) {
    if (ROLE_RANK[actor] < ROLE_RANK.admin) throw errors.forbidden('Removing a member needs the admin role; members can only leave');
    if (f.member.role === 'owner' && actor !== 'owner') throw errors.forbidden('Only an owner can remove an owner');
  } else if (f.personal) {
    throw errors.rule('personal_org', 'You cannot leave your personal organisation');
  }
  if (f.member.role === 'owner' && f.owners <= 1) throw lastOwner();
}
