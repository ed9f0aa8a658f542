import type { Db } from './database.js';
import { insertMoneyEvent } from './orgs.js';

export interface BillingAddress {
  name: string;
  line1: string;
  line2: string | null;
  city: string;
  state_code: string;
  pincode: string;
  gstin: string | null;
}

export function findBillingAddress(db: Db, orgId: string): (BillingAddress & { updated_at: number }) | undefined {
  return db.prepare('SELECT name, line1, line2, city, state_code, pincode, gstin, updated_at FROM billing_addresses WHERE org_id = ?')
    .get(orgId) as (BillingAddress & { updated_at: number }) | undefined;
}

export function saveBillingAddress(db: Db, orgId: string, a: BillingAddress, now: number): void {
  db.prepare(`INSERT INTO billing_addresses (org_id, name, line1, line2, city, state_code, pincode, gstin, updated_at)
    VALUES (@org_id, @name, @line1, @line2, @city, @state_code, @pincode, @gstin, @updated_at)
    ON CONFLICT(org_id) DO UPDATE SET name = excluded.name, line1 = excluded.line1, line2 = excluded.line2, city = excluded.city,
      state_code = excluded.state_code, pincode = excluded.pincode, gstin = excluded.gstin, updated_at = excluded.updated_at`)
    .run({ org_id: orgId, ...a, updated_at: now });
}

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

export function insertPromo(db: Db, p: Omit<PromoRow, 'redemptions' | 'disabled_at'>): boolean {
  return db.prepare(`INSERT INTO promo_codes (code, kind, value, expires_at, max_redemptions, created_at)
    VALUES (@code, @kind, @value, @expires_at, @max_redemptions, @created_at) ON CONFLICT(code) DO NOTHING`).run(p).changes === 1;
}

const PROMO = 'SELECT p.*, (SELECT COUNT(*) FROM promo_redemptions r WHERE r.code = p.code) AS redemptions FROM promo_codes p';

export function findPromo(db: Db, code: string): PromoRow | undefined {
  return db.prepare(`${PROMO} WHERE p.code = ?`).get(code) as PromoRow | undefined;
}

export function listPromos(db: Db): PromoRow[] {
  return db.prepare(`${PROMO} ORDER BY p.created_at DESC`).all() as PromoRow[];
}

export function disablePromo(db: Db, code: string, now: number): boolean {
  return db.prepare('UPDATE promo_codes SET disabled_at = ? WHERE code = ? AND disabled_at IS NULL').run(now, code).changes === 1;
}

export function promoRedeemedBy(db: Db, code: string, orgId: string): boolean {
  return db.prepare('SELECT 1 FROM promo_redemptions WHERE code = ? AND org_id = ?').get(code, orgId) !== undefined;
}

/** Open to a new redemption at `now`: exists, enabled, unexpired, not used up. */
export function promoOpen(p: PromoRow | undefined, now: number): p is PromoRow {
  return p !== undefined && p.disabled_at === null && (p.expires_at === null || p.expires_at > now)
    && (p.max_redemptions === null || p.redemptions < p.max_redemptions);
}

/** Which path saw the payment first: the browser's checkout, the provider's webhook, or the reconciler. */
export type PaidVia = 'checkout' | 'webhook' | 'reconcile';

export interface OrderRow {
  id: string;
  org_id: string;
  created_by: string | null;
  credit_micros: number;
  cgst_micros: number;
  sgst_micros: number;
  igst_micros: number;
  total_micros: number;
  place_of_supply: string;
  bill_to: string;
  promo_code: string | null;
  promo_bonus_micros: number;
  status: 'created' | 'paid';
  payment_id: string | null;
  receipt_no: number | null;
  paid_at: number | null;
  paid_via: PaidVia | null;
  created_at: number;
}

export function insertOrder(db: Db, o: Omit<OrderRow, 'status' | 'payment_id' | 'receipt_no' | 'paid_at' | 'paid_via'>): void {
  db.prepare(`INSERT INTO payment_orders (id, org_id, created_by, credit_micros, cgst_micros, sgst_micros, igst_micros, total_micros,
      place_of_supply, bill_to, promo_code, promo_bonus_micros, status, created_at)
    VALUES (@id, @org_id, @created_by, @credit_micros, @cgst_micros, @sgst_micros, @igst_micros, @total_micros,
      @place_of_supply, @bill_to, @promo_code, @promo_bonus_micros, 'created', @created_at)`).run(o);
}

export function findOrder(db: Db, id: string): OrderRow | undefined {
  return db.prepare('SELECT * FROM payment_orders WHERE id = ?').get(id) as OrderRow | undefined;
}

export function findOrderByPayment(db: Db, paymentId: string): OrderRow | undefined {
  return db.prepare('SELECT * FROM payment_orders WHERE payment_id = ?').get(paymentId) as OrderRow | undefined;
}

export interface PaymentRow {
  id: string;
  order_id: string;
  status: 'captured' | 'failed';
  amount_micros: number;
  method: string | null;
  error: string | null;
  at: number;
}

export function listPayments(db: Db, orgId: string, limit: number): PaymentRow[] {
  return db.prepare('SELECT id, order_id, status, amount_micros, method, error, at FROM payments WHERE org_id = ? ORDER BY at DESC, id LIMIT ?')
    .all(orgId, limit) as PaymentRow[];
}

export function findPayment(db: Db, id: string): PaymentRow | undefined {
  return db.prepare('SELECT id, order_id, status, amount_micros, method, error, at FROM payments WHERE id = ?').get(id) as PaymentRow | undefined;
}

/** A failed attempt, kept for the dashboard; the order stays open for another try. A captured id stays captured. */
export function recordFailedPayment(db: Db, order: OrderRow, p: { id: string; amountMicros: number; method: string | null; error: string | null }, now: number): boolean {
  return db.prepare(`INSERT INTO payments (id, order_id, org_id, status, amount_micros, method, error, at)
    VALUES (?, ?, ?, 'failed', ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING`)
    .run(p.id, order.id, order.org_id, p.amountMicros, p.method, p.error, now).changes === 1;
}

export interface Credited {
  /** false: the order had already been paid (by an earlier report of this or another path); nothing moved. */
  applied: boolean;
  order: OrderRow;
  /** The promo bonus credited; 0 when the code was used up or redeemed elsewhere since the order. */
  bonusMicros: number;
}

/**
 * Marks an order paid and credits it, once: the checkout verification, the webhook and the
 * reconciler all end here, and whichever comes later finds the order paid and changes nothing. The credit, the
 * promo bonus (if the code is still open to this org), the payment row and the receipt number
 * are one transaction.
 */
export function creditOrder(db: Db, orderId: string, p: { id: string; method: string | null; via: PaidVia }, now: number): Credited {
  // IMMEDIATE: it reads before it writes, and the ledger writer commits from another thread; a
  // deferred transaction could then not upgrade its stale snapshot to a write (SQLITE_BUSY).
  return db.transaction((): Credited => {
    const receipt = (db.prepare('SELECT COALESCE(MAX(receipt_no), 0) + 1 FROM payment_orders').pluck().get() as number);
    const paid = db.prepare(`UPDATE payment_orders SET status = 'paid', payment_id = ?, receipt_no = ?, paid_at = ?, paid_via = ?
      WHERE id = ? AND status = 'created'`).run(p.id, receipt, now, p.via, orderId);
    const order = findOrder(db, orderId)!;
    if (paid.changes === 0) return { applied: false, order, bonusMicros: 0 };
    db.prepare(`INSERT INTO payments (id, order_id, org_id, status, amount_micros, method, error, at) VALUES (?, ?, ?, 'captured', ?, ?, NULL, ?)
      ON CONFLICT(id) DO UPDATE SET status = 'captured', error = NULL, at = excluded.at`)
      .run(p.id, order.id, order.org_id, order.total_micros, p.method, now);
    insertMoneyEvent(db, order.org_id, 'payment', order.credit_micros, { ref: `order:${order.id}`, note: `top-up, receipt ${order.receipt_no}`, now });
    let bonus = 0;
    if (order.promo_code !== null && order.promo_bonus_micros > 0) {
      // The code was checked when the order was made; its cap and the one-per-org rule are
      // settled here, where the redemption is written, so two open orders cannot both take it.
      const promo = findPromo(db, order.promo_code);
      const capped = promo !== undefined && promo.max_redemptions !== null && promo.redemptions >= promo.max_redemptions;
      if (promo && promo.disabled_at === null && !capped && !promoRedeemedBy(db, promo.code, order.org_id)) {
        db.prepare('INSERT INTO promo_redemptions (code, org_id, order_id, bonus_micros, at) VALUES (?, ?, ?, ?, ?)')
          .run(promo.code, order.org_id, order.id, order.promo_bonus_micros, now);
        insertMoneyEvent(db, order.org_id, 'promo_bonus', order.promo_bonus_micros, { ref: `promo:${order.id}`, note: `promo ${promo.code}`, now });
        bonus = order.promo_bonus_micros;
      } else {
        db.prepare('UPDATE payment_orders SET promo_bonus_micros = 0 WHERE id = ?').run(order.id);
        order.promo_bonus_micros = 0;
      }
    }
    return { applied: true, order, bonusMicros: bonus };
  }).immediate();
}

export function listOrders(db: Db, orgId: string, limit: number): OrderRow[] {
  return db.prepare('SELECT * FROM payment_orders WHERE org_id = ? ORDER BY created_at DESC, id LIMIT ?').all(orgId, limit) as OrderRow[];
}

/** How many orders the org made since `since`, and when the first of them was made. */
export function ordersSince(db: Db, orgId: string, since: number): { count: number; first: number | null } {
  return db.prepare('SELECT COUNT(*) AS count, MIN(created_at) AS first FROM payment_orders WHERE org_id = ? AND created_at > ?')
    .get(orgId, since) as { count: number; first: number | null };
}

/** Orders still unpaid that were made since `since`: the reconciler asks the provider about them. */
export function openOrdersSince(db: Db, since: number, limit: number): OrderRow[] {
  return db.prepare(`SELECT * FROM payment_orders WHERE status = 'created' AND created_at >= ? ORDER BY created_at LIMIT ?`).all(since, limit) as OrderRow[];
}

export interface MoneyEventRow {
  id: number;
  at: number;
  kind: string;
  amount_micros: number;
  note: string | null;
}

export function listMoneyEvents(db: Db, orgId: string, limit: number): MoneyEventRow[] {
  return db.prepare('SELECT id, at, kind, amount_micros, note FROM money_events WHERE org_id = ? ORDER BY id DESC LIMIT ?')
    .all(orgId, limit) as MoneyEventRow[];
}

export function setLowBalance(db: Db, orgId: string, micros: number | null): void {
  db.prepare('UPDATE orgs SET low_balance_micros = ?, low_balance_mailed_at = NULL WHERE id = ?').run(micros, orgId);
}

export function lowBalanceOf(db: Db, orgId: string): number | null {
  return (db.prepare('SELECT low_balance_micros FROM orgs WHERE id = ?').pluck().get(orgId) as number | null | undefined) ?? null;
}

/** Orgs whose balance fell below their threshold and have not been mailed; clears the mark of those back above it. */
export function lowBalanceCrossings(db: Db): { id: string; name: string; balance_micros: number; low_balance_micros: number }[] {
  db.prepare(`UPDATE orgs SET low_balance_mailed_at = NULL
    WHERE low_balance_micros IS NOT NULL AND low_balance_mailed_at IS NOT NULL AND balance_micros >= low_balance_micros`).run();
  return db.prepare(`SELECT id, name, balance_micros, low_balance_micros FROM orgs
    WHERE low_balance_micros IS NOT NULL AND balance_micros < low_balance_micros AND low_balance_mailed_at IS NULL`).all() as
    { id: string; name: string; balance_micros: number; low_balance_micros: number }[];
}

export function markLowBalanceMailed(db: Db, orgId: string, now: number): void {
  db.prepare('UPDATE orgs SET low_balance_mailed_at = ? WHERE id = ?').run(now, orgId);
}

export function ownerEmails(db: Db, orgId: string): string[] {
  return db.prepare(`SELECT u.email FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.org_id = ? AND m.role = 'owner' ORDER BY u.email`)
    .pluck().all(orgId) as string[];
}
