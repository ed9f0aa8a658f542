/** One key as GET /me/keys lists it (src/control/keys/key-routes.ts, KeyListItem). */
export interface KeyItem {
  id: string;
  prefix: string;
  name: string;
  tier: 'trial' | 'standard' | string;
  /** full: made by a person; inference: an ephemeral key minted through MCP. */
  scope: 'full' | 'inference' | string;
  status: 'active' | 'revoked' | 'expired' | string;
  workspace_id: string;
  rpm_limit: number | null;
  daily_limit: number | null;
  monthly_budget: number | null;
  spent_month: number;
  last_used_at: string | null;
  expires_at: string | null;
  created_at: string;
}

/** POST /me/keys: the only answer that carries the full key. */
export interface CreatedKey {
  id: string;
  key: string;
  prefix: string;
  name: string;
  tier: string;
  budget_inr: number | null;
  expires_days: number | null;
  expires_at: string | null;
}

/**
 * A key made in this tab, offered to the Playground. sessionStorage only: it dies with the tab and
 * is never written where another tab or a later visit could read it.
 */
const HANDOFF = 'gw-playground-key';
export const offerToPlayground = (key: string): void => sessionStorage.setItem(HANDOFF, key);
export const playgroundOffer = (): string => sessionStorage.getItem(HANDOFF) ?? '';
export const forgetPlaygroundOffer = (): void => sessionStorage.removeItem(HANDOFF);

/**
 * A form's optional whole number: '' is null (no limit), anything else must be an integer in
 * range, else the words for what is wrong.
 */
export function optionalWhole(label: string, text: string, min: number, max: number): { value: number | null } | { error: string } {
  const t = text.trim();
  if (t === '') return { value: null };
  if (!/^\d+$/.test(t) || Number(t) < min || Number(t) > max) return { error: `${label} must be a whole number from ${min.toLocaleString('en-IN')} to ${max.toLocaleString('en-IN')}, or empty.` };
  return { value: Number(t) };
}

/** A form's optional ₹ amount with up to two decimals; '' is null. */
export function optionalRupees(label: string, text: string): { value: number | null } | { error: string } {
  const t = text.trim().replace(/^₹\s*/, '').replace(/,/g, '');
  if (t === '') return { value: null };
  if (!/^\d+(\.\d{1,2})?$/.test(t) || Number(t) > 10_000_000) return { error: `${label} must be an amount in ₹ from 0 to 1,00,00,000 (up to two decimals), or empty.` };
  return { value: Number(t) };
}
