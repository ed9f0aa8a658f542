export type Role = 'owner' | 'admin' | 'member';

export const ROLE_RANK: Record<Role, number> = { member: 1, admin: 2, owner: 3 };

/** A signed-in browser session, resolved from the gw_session cookie. */
export interface Session {
  hash: string;
  userId: string;
  email: string;
  /** The org the dashboard is acting in, and the user's role there. */
  orgId: string;
  role: Role;
  expiresAt: number;
}
