
/** A promo code as the operator manages it. */
export interface PromoRow {
  code: string;
  kind: 'fixed' | 'percent';
  value: number;
  expires_at: number | null;
  max_redemptions: number | null;
  /** Counted from promo_redemptions. */
  redemptions: number;
  disabled_at: number | null;
  created_at: number;
}

/**
 * What the operator CLI (`gw org`, `gw promo`) does past the API's stores, on either database:
 * one atomic operation a method; every change a running gateway must see is recorded in the
 * change feed. Keys, orgs, orders and money events are read through KeyStore, OrgStore and BillingStore.
 */
export interface OperatorStore {
  /** An org with its default workspace. */
  createOrg(name: string, now: number): Promise<{ orgId: string; workspaceId: string }>;
  /** An operator credit, recorded as a money event that moves the balance (and makes the org funded). */
  credit(orgId: string, amountMicros: number, note: string, now: number): Promise<{ balanceMicros: number }>;
  /** false when the code exists already (codes compare ignoring case). */
  insertPromo(p: Omit<PromoRow, 'redemptions' | 'disabled_at'>): Promise<boolean>;
  /** Newest first. */
  listPromos(): Promise<PromoRow[]>;
  /** false when there is no such enabled code. */
  disablePromo(code: string, now: number): Promise<boolean>;
}
