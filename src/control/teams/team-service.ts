import { errors } from '../../errors/catalog.js';
import { cleanName } from '../../domain/display-name.js';
import type { Session } from '../../domain/session.js';
import type { Invitation, InvitationStore } from '../../domain/stores/invitation-store.js';
import type { Member, MemberStore, OrgOfUser } from '../../domain/stores/member-store.js';
import type { OrgStore } from '../../domain/stores/org-store.js';
import type { SessionStore } from '../../domain/stores/session-store.js';
import type { Clock } from '../../lib/clock.js';
import type { InvitationNotice } from './invitation-mail.js';
import {
  checkAccept, checkInviterRole, checkNewInvitation, checkRemoval, checkRoleChange, checkTeamCap, isPendingFor, noPendingInvitation,
  ORG_NAME_MAX, parseEmail, parseRole, type TeamCaps,
} from './team-rules.js';

export interface TeamServiceDeps {
  members: MemberStore;
  invitations: InvitationStore;
  orgs: OrgStore;
  sessions: SessionStore;
  clock: Clock;
  caps: TeamCaps;
  /** Tells the invitee (mail); called after the invitation is saved, never awaited. */
  invited(notice: InvitationNotice): void;
}

/** Who is asking: the signed-in user, the org they act in and their role there. */
export type Caller = Pick<Session, 'userId' | 'email' | 'orgId' | 'role'>;

/**
 * Teams (spec 4.11): the orgs a user belongs to and switching between them, the members and
 * invitations of the active org, and the invitations addressed to the caller. Every id is looked
 * up within the caller's active org (or, for invitations to the caller, by their email): another
 * org's id is 404 not_found, never its data.
 */
export class TeamService {
  readonly #d: TeamServiceDeps;

  constructor(deps: TeamServiceDeps) {
    this.#d = deps;
  }

  /** The caller's orgs, personal first, with their role in each. */
  async orgs(userId: string): Promise<OrgOfUser[]> {
    return this.#d.members.orgsOfUser(userId);
  }

  /** A team org with a default workspace, the caller its owner, within the caller's cap of team orgs. */
  async createOrg(userId: string, rawName: string): Promise<OrgOfUser> {
    const d = this.#d;
    const name = cleanName(rawName, ORG_NAME_MAX, 'Organisation');
    const { orgId } = await d.members.createTeamOrg(name, userId, d.clock.now(), (f) => checkTeamCap(f, d.caps));
    return (await d.members.orgOfUser(userId, orgId))!;
  }

  /** Makes another of the caller's orgs the one this session acts in. */
  async switchOrg(session: Pick<Session, 'userId' | 'hash'>, orgId: string): Promise<OrgOfUser> {
    const o = await this.#d.members.orgOfUser(session.userId, orgId);
    if (!o) throw errors.notFound('No such organisation among yours');
    await this.#d.sessions.setActiveOrg(session.hash, o.id);
    return o;
  }

  /** The org's members and its pending invitations. */
  async members(orgId: string): Promise<{ members: Member[]; invitations: Invitation[] }> {
    const [members, invitations] = await Promise.all([this.#d.members.list(orgId), this.#d.invitations.listPendingOfOrg(orgId)]);
    return { members, invitations };
  }

  /**
   * Invites an email to the caller's org, in a role no higher than an owner may give; a personal
   * org has no other members. The invitee is told by mail when a relay is configured.
   */
  async invite(by: Caller, input: { email: string; role?: string }): Promise<Invitation> {
    const d = this.#d;
    const org = await d.orgs.find(by.orgId);
    if (!org) throw errors.notFound('No such organisation');
    if (org.personal) throw errors.rule('personal_org', 'A personal organisation has no other members; create a team organisation and invite there');
    const email = parseEmail(input.email);
    const role = parseRole(input.role ?? 'member');
    checkInviterRole(by.role, role);
    const inv = await d.invitations.create({ orgId: by.orgId, email, role, invitedBy: by.userId }, d.clock.now(),
      (f) => checkNewInvitation(f, email, d.caps));
    d.invited({ id: inv.id, email, role, orgName: inv.orgName, invitedBy: by.email });
    return inv;
  }

  /** Changes a member's role; the last owner cannot be demoted. */
  async changeRole(orgId: string, userId: string, rawRole: string): Promise<Member> {
    const role = parseRole(rawRole);
    await this.#d.members.changeRole(orgId, userId, role, (f) => checkRoleChange(f, role));
    const m = await this.#d.members.find(orgId, userId);
    if (!m) throw errors.notFound('No such member in this organisation');
    return m;
  }

  /** Removes a member, or the caller leaves with their own id; `left` says which. */
  async removeMember(by: Caller, userId: string): Promise<{ left: boolean }> {
    const self = userId === by.userId;
    await this.#d.members.remove(by.orgId, userId, (f) => checkRemoval(f, by.role, self));
    return { left: self };
  }

  /** Revokes a pending invitation of the org. */
  async revokeInvitation(orgId: string, id: string): Promise<void> {
    const inv = await this.#d.invitations.find(id);
    if (!inv || inv.orgId !== orgId || !await this.#d.invitations.decide(inv.id, 'revoked', this.#d.clock.now())) {
      throw errors.notFound('No such pending invitation in this organisation');
    }
  }

  /** Pending invitations addressed to the caller's email, from every org. */
  async invitationsFor(email: string): Promise<Invitation[]> {
    return this.#d.invitations.listPendingForEmail(email);
  }

  /** Accepts an invitation to the caller: they become a member with the invited role (the session stays where it is). */
  async accept(by: Caller, id: string): Promise<{ invitation: Invitation; org: OrgOfUser }> {
    const d = this.#d;
    const invitation = await d.invitations.accept(id, by.userId, d.clock.now(), (f) => checkAccept(f, by.email, d.caps));
    return { invitation, org: (await d.members.orgOfUser(by.userId, invitation.orgId))! };
  }

  /** Declines an invitation to the caller. */
  async decline(by: Caller, id: string): Promise<void> {
    const inv = await this.#d.invitations.find(id);
    if (!isPendingFor(inv, by.email)) throw noPendingInvitation();
    await this.#d.invitations.decide(id, 'declined', this.#d.clock.now());
  }
}
