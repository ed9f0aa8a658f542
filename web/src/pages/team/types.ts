/** The shapes of the team routes' answers (src/control/teams/team-routes.ts, workspaces/workspace-routes.ts). */
export type RoleName = 'owner' | 'admin' | 'member';

export interface OrgItem { id: string; name: string; personal: boolean; role: string; active: boolean; created_at: string }
export interface MemberItem { id: string; email: string; name: string | null; role: string; joined_at: string }
export interface OrgInvitation { id: string; email: string; role: string; invited_by: string; created_at: string }
export interface MyInvitation { id: string; org_id: string; org_name: string; role: string; invited_by: string; created_at: string }
export interface MembersDoc { members: MemberItem[]; invitations: OrgInvitation[] }
export interface WorkspaceItem {
  id: string; name: string; default: boolean; monthly_budget_inr: number | null; spent_month_inr: number;
  archived: boolean; archived_at: string | null; created_at: string;
}

/** What each role may do, in the words the role pickers show. */
export const ROLE_HELP: Record<RoleName, string> = {
  owner: 'Owner: everything, including billing, provider keys, roles and the organisation’s name',
  admin: 'Admin: invites and removes members, manages workspaces, keys and routing',
  member: 'Member: uses the organisation’s keys and sees its usage',
};

export const roleLabel = (r: string): string => r.charAt(0).toUpperCase() + r.slice(1);
