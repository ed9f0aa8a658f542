/** A billing address: its state is the GST place of supply of the org's top-ups. */
export interface BillingAddress {
  name: string;
  line1: string;
  line2: string | null;
  city: string;
  /** GST state code (two digits). */
  stateCode: string;
  pincode: string;
  gstin: string | null;
}

export interface SavedAddress extends BillingAddress {
  updatedAt: number;
}

/** An operator's promo code, with how many orgs have redeemed it. */
export interface Promo {
  code: string;
  kind: 'fixed' | 'percent';
  /** micro-rupees for `fixed`, whole percent for `percent`. */
  value: number;
  expiresAt: number | null;
  maxRedemptions: number | null;
  redemptions: number;
  disabledAt: number | null;
  createdAt: number;
}

/** Which path saw the payment first: the browser's checkout, the provider's webhook, or the reconciler. */
export type PaidVia = 'checkout' | 'webhook' | 'reconcile';

/** A top-up order, priced and addressed when it was made. */
export interface TopupOrder {
  id: string;
  orgId: string;
  createdBy: string | null;
  creditMicros: number;
  cgstMicros: number;
  sgstMicros: number;
  igstMicros: number;
  totalMicros: number;
  placeOfSupply: string;
  /** The address as it was when the order was made (the receipt's buyer). */
  billTo: BillingAddress;
  promoCode: string | null;
  promoBonusMicros: number;
  status: 'created' | 'paid';
  paymentId: string | null;
  /** Gap-free, across all orgs, given when the order is paid. */
  receiptNo: number | null;
  paidAt: number | null;
  paidVia: PaidVia | null;
  createdAt: number;
}

export type NewTopupOrder = Omit<TopupOrder, 'status' | 'paymentId' | 'receiptNo' | 'paidAt' | 'paidVia'>;

export interface Payment {
  id: string;
  orderId: string;
  status: 'captured' | 'failed';
  /** What was charged, GST included. */
  amountMicros: number;
  method: string | null;
  error: string | null;
  at: number;
}

export interface MoneyEvent {
  id: number;
  at: number;
  kind: string;
  amountMicros: number;
  note: string | null;
}

export interface CreditedOrder {
  /** false: the order had already been paid (by an earlier report of this or another path); nothing moved. */
  applied: boolean;
  order: TopupOrder;
  /** The promo bonus credited; 0 when the code was used up or redeemed elsewhere since the order. */
  bonusMicros: number;
}

/** An org whose balance is below the threshold its owners set and which has not been mailed about it. */
export interface LowBalanceOrg {
  id: string;
  name: string;
  balanceMicros: number;
  lowBalanceMicros: number;
}

/**
 * Billing, as the control plane's services read and change it: addresses, promo codes, top-up
 * orders and their payments, money events, the low-balance threshold. Every method is one atomic
 * operation (one transaction on an engine with a network round trip).
 */
export interface BillingStore {
  address(orgId: string): Promise<SavedAddress | undefined>;
  saveAddress(orgId: string, a: BillingAddress, now: number): Promise<SavedAddress>;

  /** The promo code and whether the org has redeemed it already; undefined for an unknown code. */
  promo(code: string, orgId: string): Promise<{ promo: Promo; redeemed: boolean } | undefined>;

  createOrder(o: NewTopupOrder): Promise<void>;
  findOrder(id: string): Promise<TopupOrder | undefined>;
  /** How many orders the org made since `since`, and when the first of them was made. */
  ordersSince(orgId: string, since: number): Promise<{ count: number; first: number | null }>;
  /** Orders still unpaid made since `since`, oldest first. */
  openOrdersSince(since: number, limit: number): Promise<TopupOrder[]>;
  /** The org's orders, newest first. */
  listOrders(orgId: string, limit: number): Promise<TopupOrder[]>;
  /** The paid order a captured payment paid, with that payment's method. */
  paidOrderByPayment(paymentId: string): Promise<{ order: TopupOrder; method: string | null } | undefined>;

  /**
   * Marks an order paid and credits it, once: whichever report comes later finds the order paid
   * and changes nothing. The credit, the promo bonus, the payment row and the receipt number are
   * one transaction; `bonusStands` decides, inside it, on the promo as it is then and whether
   * the org has redeemed it, whether the order's bonus is credited (else it is set to 0).
   */
  creditOrder(orderId: string, p: { id: string; method: string | null; via: PaidVia }, now: number,
    bonusStands: (promo: Promo | undefined, redeemed: boolean) => boolean): Promise<CreditedOrder>;
  /** A failed attempt, kept for the dashboard; a captured id stays captured. */
  recordFailedPayment(order: TopupOrder, p: { id: string; amountMicros: number; method: string | null; error: string | null }, now: number): Promise<void>;
  /** The org's payments, newest first. */
  listPayments(orgId: string, limit: number): Promise<Payment[]>;
  /** The org's money events, newest first. */
  listMoneyEvents(orgId: string, limit: number): Promise<MoneyEvent[]>;

  lowBalance(orgId: string): Promise<number | null>;
  /** Sets (or with null clears) the threshold, and re-arms its mail. */
  setLowBalance(orgId: string, micros: number | null): Promise<void>;
  /** Orgs below their threshold and not yet mailed; re-arms those back above it. */
  lowBalanceCrossings(): Promise<LowBalanceOrg[]>;
  markLowBalanceMailed(orgId: string, now: number): Promise<void>;
}
