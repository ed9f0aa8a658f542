import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

export type Role = 'owner' | 'admin' | 'member' | string;

export interface Me {
  id: string;
  email: string;
  name: string | null;
  avatar_url: string | null;
  role: Role;
  attribution_pending: boolean;
  org: { id: string; name: string; personal: boolean; domain: string | null; balance_inr: number; tier: string };
}

const RANK: Record<string, number> = { member: 1, admin: 2, owner: 3 };

export interface SessionState {
  me: Me;
  /** Reads /me again (after a top-up, an org switch, a rename). */
  refresh(): Promise<void>;
  /** Whether the caller's role reaches this one: members do not see what they cannot use. */
  can(role: 'admin' | 'owner'): boolean;
}

export const SessionContext = createContext<SessionState | null>(null);

export function useSession(): SessionState {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a signed-in page');
  return s;
}

export const reaches = (role: Role, needed: 'admin' | 'owner'): boolean => (RANK[role] ?? 0) >= RANK[needed];
