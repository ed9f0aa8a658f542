import type { Role } from '../session.js';

/** An org as one of its members sees it: with their role there. */
export interface OrgOfUser {
  id: string;
  name: string;
  personal: boolean;
  role: Role;
  createdAt: number;
}

/** A member of an org, with the user's email and display name. */
export interface Member {
  userId: string;
  email: string;
  name: string | null;
  role: Role;
  joinedAt: number;
}

/** What a new team org is checked on, read in the transaction that creates it. */
export interface NewTeamOrgFacts {
  /** Team (non-personal) orgs the creator already belongs to, in any role. */
  teamOrgs: number;
}

/** What a role change or a removal is checked on, read in the transaction that makes it. */
export interface MemberChangeFacts {
  /** The member, when the user belongs to the org. */
  member: Member | undefined;
  /** Owners of the org, the member included. */
  owners: number;
  /** Whether the org is a personal one (its owner cannot leave it). */
  personal: boolean;
}

/**
 * Memberships: who belongs to which org in which role. One atomic operation a method; a rule
 * that must hold at the write (caps, the last owner) is a `check` run inside its transaction.
 */
export interface MemberStore {
  /** The user's orgs, personal org first, then by when they joined. */
  orgsOfUser(userId: string): Promise<OrgOfUser[]>;
  orgOfUser(userId: string, orgId: string): Promise<OrgOfUser | undefined>;
  /** Creates a team org with its default workspace and `ownerId` as its owner. */
  createTeamOrg(name: string, ownerId: string, now: number, check: (facts: NewTeamOrgFacts) => void): Promise<{ orgId: string; workspaceId: string }>;
  /** The org's members, by when they joined. */
  list(orgId: string): Promise<Member[]>;
  find(orgId: string, userId: string): Promise<Member | undefined>;
  /** Sets a member's role once `check` passes. */
  changeRole(orgId: string, userId: string, role: Role, check: (facts: MemberChangeFacts) => void): Promise<void>;
  /**
   * Removes a member once `check` passes; their sessions acting in the org move to their
   * personal org at once.
   */
  remove(orgId: string, userId: string, check: (facts: MemberChangeFacts) => void): Promise<void>;
}
