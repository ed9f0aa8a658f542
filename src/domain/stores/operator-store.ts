import type { KeyRecord } from '../key-record.js';
import type { KeyLimitsPatch } from './key-store.js';
import type { Org } from './org-store.js';

/** A money event as the operator sees it. */
export interface OperatorMoneyEvent {
  at: number;
  kind: string;
  amountMicros: number;
  note: string | null;
}

/** A top-up order as the operator sees it. */
export interface OperatorOrder {
  id: string;
  status: 'created' | 'paid';
  createdAt: number;
  creditMicros: number;
  totalMicros: number;
  paymentId: string | null;
  paidVia: string | null;
  paidAt: number | null;
}

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

/** An active key, without secrets. */
export interface OperatorKey {
  id: string;
  name: string;
  prefix: string;
  tier: string;
}

/**
 * What the operator CLI (`gw org`, `gw key`) does past the API, on either database: one atomic
 * operation a method; every change a running gateway must see is recorded in the change feed.
 */
export interface OperatorStore {
  /** An org with its default workspace. */
  createOrg(name: string, now: number): Promise<{ orgId: string; workspaceId: string }>;
  /** An operator credit, recorded as a money event that moves the balance (and makes the org funded). */
  credit(orgId: string, amountMicros: number, note: string, now: number): Promise<{ balanceMicros: number }>;
  findOrg(orgId: string): Promise<Org | undefined>;
  lowBalanceMicros(orgId: string): Promise<number | null>;
  activeKeys(orgId: string, now: number): Promise<OperatorKey[]>;
  moneyEvents(orgId: string, limit: number): Promise<OperatorMoneyEvent[]>;
  orders(orgId: string, limit: number): Promise<OperatorOrder[]>;
  findKey(id: string): Promise<KeyRecord | undefined>;
  /** false when it was already revoked. */
  revokeKey(id: string, now: number): Promise<boolean>;
  updateKeyLimits(id: string, patch: KeyLimitsPatch, now: number): Promise<boolean>;
  /** false when the code exists already (codes compare ignoring case). */
  insertPromo(p: Omit<PromoRow, 'redemptions' | 'disabled_at'>): Promise<boolean>;
  /** Newest first. */
  listPromos(): Promise<PromoRow[]>;
  /** false when there is no such enabled code. */
  disablePromo(code: string, now: number): Promise<boolean>;
}
