import type { Role } from '../session.js';

export type InvitationStatus = 'pending' | 'accepted' | 'declined' | 'revoked';

/** An invitation, with its inviter's email and its org's name. */
export interface Invitation {
  id: string;
  orgId: string;
  orgName: string;
  /** Lower-case; matched without regard to case. */
  email: string;
  role: Role;
  invitedBy: string;
  invitedByEmail: string;
  status: InvitationStatus;
  createdAt: number;
  decidedAt: number | null;
}

export interface NewInvitation {
  orgId: string;
  email: string;
  role: Role;
  /** The inviter's user id. */
  invitedBy: string;
}

/** What a new invitation is checked on, read in the transaction that inserts it. */
export interface NewInvitationFacts {
  /** A member of the org already has the email. */
  alreadyMember: boolean;
  /** The email already has a pending invitation to the org. */
  alreadyInvited: boolean;
  members: number;
  /** Pending invitations of the org. */
  pending: number;
}

/**
 * What an acceptance is checked on, read in the transaction that makes the member. Without the
 * invitation the counts are 0 and `alreadyMember` false.
 */
export interface AcceptFacts {
  invitation: Invitation | undefined;
  /** The accepting user is already a member of the invitation's org. */
  alreadyMember: boolean;
  /** Team orgs the accepting user belongs to. */
  teamOrgs: number;
  /** Members of the invitation's org. */
  members: number;
}

/** Invitations to join an org, by email (one atomic operation a method). */
export interface InvitationStore {
  /** Inserts a pending invitation once `check` passes. */
  create(inv: NewInvitation, now: number, check: (facts: NewInvitationFacts) => void): Promise<Invitation>;
  find(id: string): Promise<Invitation | undefined>;
  /** The org's pending invitations, oldest first. */
  listPendingOfOrg(orgId: string): Promise<Invitation[]>;
  /** The pending invitations addressed to an email (any case), from every org, oldest first. */
  listPendingForEmail(email: string): Promise<Invitation[]>;
  /** Moves a pending invitation to a final state; false when it was not pending. */
  decide(id: string, status: 'declined' | 'revoked', now: number): Promise<boolean>;
  /** Makes `userId` a member with the invited role and marks the invitation accepted, once `check` passes. */
  accept(id: string, userId: string, now: number, check: (facts: AcceptFacts) => void): Promise<Invitation>;
}
