import type { PromoRow } from '../domain/stores/operator-store.js';
import type { Db } from './database.js';
import { insertMoneyEvent } from './orgs.js';
import type {
  BillingAddress, BillingStore, CreditedOrder, LowBalanceOrg, MoneyEvent, NewTopupOrder, PaidVia, Payment, Promo, SavedAddress, TopupOrder,
} from '../domain/stores/billing-store.js';

export type { PromoRow };

export function insertPromo(db: Db, p: Omit<PromoRow, 'redemptions' | 'disabled_at'>): boolean {
  return db.prepare(`INSERT INTO promo_codes (code, kind, value, expires_at, max_redemptions, created_at)
    VALUES (@code, @kind, @value, @expires_at, @max_redemptions, @created_at) ON CONFLICT(code) DO NOTHING`).run(p).changes === 1;
}

const PROMO = 'SELECT p.*, (SELECT COUNT(*) FROM promo_redemptions r WHERE r.code = p.code) AS redemptions FROM promo_codes p';

export function listPromos(db: Db): PromoRow[] {
  return db.prepare(`${PROMO} ORDER BY p.created_at DESC`).all() as PromoRow[];
}

export function disablePromo(db: Db, code: string, now: number): boolean {
  return db.prepare('UPDATE promo_codes SET disabled_at = ? WHERE code = ? AND disabled_at IS NULL').run(now, code).changes === 1;
}

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

export interface PaymentRow {
  id: string;
  order_id: string;
  status: 'captured' | 'failed';
  amount_micros: number;
  method: string | null;
  error: string | null;
  at: number;
}

export function listOrders(db: Db, orgId: string, limit: number): OrderRow[] {
  return db.prepare('SELECT * FROM payment_orders WHERE org_id = ? ORDER BY created_at DESC, id LIMIT ?').all(orgId, limit) as OrderRow[];
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

export function lowBalanceOf(db: Db, orgId: string): number | null {
  return (db.prepare('SELECT low_balance_micros FROM orgs WHERE id = ?').pluck().get(orgId) as number | null | undefined) ?? null;
}


interface AddressRow {
  name: string;
  line1: string;
  line2: string | null;
  city: string;
  state_code: string;
  pincode: string;
  gstin: string | null;
  updated_at: number;
}

const addressOf = (r: AddressRow): SavedAddress => ({
  name: r.name, line1: r.line1, line2: r.line2, city: r.city, stateCode: r.state_code, pincode: r.pincode, gstin: r.gstin, updatedAt: r.updated_at,
});

/** An order's bill_to as stored: the address with the column names, in this order (receipts of old orders read it). */
const billToJson = (a: BillingAddress): string =>
  JSON.stringify({ name: a.name, line1: a.line1, line2: a.line2, city: a.city, state_code: a.stateCode, pincode: a.pincode, gstin: a.gstin });

function billToOf(json: string): BillingAddress {
  const a = JSON.parse(json) as Omit<AddressRow, 'updated_at'>;
  return { name: a.name, line1: a.line1, line2: a.line2, city: a.city, stateCode: a.state_code, pincode: a.pincode, gstin: a.gstin };
}

const orderOf = (r: OrderRow): TopupOrder => ({
  id: r.id, orgId: r.org_id, createdBy: r.created_by, creditMicros: r.credit_micros, cgstMicros: r.cgst_micros, sgstMicros: r.sgst_micros,
  igstMicros: r.igst_micros, totalMicros: r.total_micros, placeOfSupply: r.place_of_supply, billTo: billToOf(r.bill_to),
  promoCode: r.promo_code, promoBonusMicros: r.promo_bonus_micros, status: r.status, paymentId: r.payment_id, receiptNo: r.receipt_no,
  paidAt: r.paid_at, paidVia: r.paid_via, createdAt: r.created_at,
});

const promoOf = (r: PromoRow): Promo => ({
  code: r.code, kind: r.kind, value: r.value, expiresAt: r.expires_at, maxRedemptions: r.max_redemptions, redemptions: r.redemptions,
  disabledAt: r.disabled_at, createdAt: r.created_at,
});

const paymentOf = (r: PaymentRow): Payment => ({
  id: r.id, orderId: r.order_id, status: r.status, amountMicros: r.amount_micros, method: r.method, error: r.error, at: r.at,
});

const moneyEventOf = (r: MoneyEventRow): MoneyEvent => ({ id: r.id, at: r.at, kind: r.kind, amountMicros: r.amount_micros, note: r.note });

/** The BillingStore on SQLite: statements prepared once; a credit is one immediate transaction. */
export function sqliteBillingStore(db: Db): BillingStore {
  const address = db.prepare('SELECT name, line1, line2, city, state_code, pincode, gstin, updated_at FROM billing_addresses WHERE org_id = ?');
  const saveAddress = db.prepare(`INSERT INTO billing_addresses (org_id, name, line1, line2, city, state_code, pincode, gstin, updated_at)
    VALUES (@org_id, @name, @line1, @line2, @city, @state_code, @pincode, @gstin, @updated_at)
    ON CONFLICT(org_id) DO UPDATE SET name = excluded.name, line1 = excluded.line1, line2 = excluded.line2, city = excluded.city,
      state_code = excluded.state_code, pincode = excluded.pincode, gstin = excluded.gstin, updated_at = excluded.updated_at`);
  const promo = db.prepare(`${PROMO} WHERE p.code = ?`);
  const redeemed = db.prepare('SELECT 1 FROM promo_redemptions WHERE code = ? AND org_id = ?');
  const insertOrder = db.prepare(`INSERT INTO payment_orders (id, org_id, created_by, credit_micros, cgst_micros, sgst_micros, igst_micros,
      total_micros, place_of_supply, bill_to, promo_code, promo_bonus_micros, status, created_at)
    VALUES (@id, @org_id, @created_by, @credit_micros, @cgst_micros, @sgst_micros, @igst_micros, @total_micros,
      @place_of_supply, @bill_to, @promo_code, @promo_bonus_micros, 'created', @created_at)`);
  const order = db.prepare('SELECT * FROM payment_orders WHERE id = ?');
  const orderByPayment = db.prepare('SELECT * FROM payment_orders WHERE payment_id = ?');
  const ordersSince = db.prepare('SELECT COUNT(*) AS count, MIN(created_at) AS first FROM payment_orders WHERE org_id = ? AND created_at > ?');
  const openOrders = db.prepare(`SELECT * FROM payment_orders WHERE status = 'created' AND created_at >= ? ORDER BY created_at LIMIT ?`);
  const payment = db.prepare('SELECT id, order_id, status, amount_micros, method, error, at FROM payments WHERE id = ?');
  const payments = db.prepare('SELECT id, order_id, status, amount_micros, method, error, at FROM payments WHERE org_id = ? ORDER BY at DESC, id LIMIT ?');
  const failed = db.prepare(`INSERT INTO payments (id, order_id, org_id, status, amount_micros, method, error, at)
    VALUES (?, ?, ?, 'failed', ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING`);
  const nextReceipt = db.prepare('SELECT COALESCE(MAX(receipt_no), 0) + 1 FROM payment_orders').pluck();
  const markPaid = db.prepare(`UPDATE payment_orders SET status = 'paid', payment_id = ?, receipt_no = ?, paid_at = ?, paid_via = ?
    WHERE id = ? AND status = 'created'`);
  const captured = db.prepare(`INSERT INTO payments (id, order_id, org_id, status, amount_micros, method, error, at) VALUES (?, ?, ?, 'captured', ?, ?, NULL, ?)
    ON CONFLICT(id) DO UPDATE SET status = 'captured', error = NULL, at = excluded.at`);
  const redeem = db.prepare('INSERT INTO promo_redemptions (code, org_id, order_id, bonus_micros, at) VALUES (?, ?, ?, ?, ?)');
  const dropBonus = db.prepare('UPDATE payment_orders SET promo_bonus_micros = 0 WHERE id = ?');
  const setLow = db.prepare('UPDATE orgs SET low_balance_micros = ?, low_balance_mailed_at = NULL WHERE id = ?');
  const rearm = db.prepare(`UPDATE orgs SET low_balance_mailed_at = NULL
    WHERE low_balance_micros IS NOT NULL AND low_balance_mailed_at IS NOT NULL AND balance_micros >= low_balance_micros`);
  const crossed = db.prepare(`SELECT id, name, balance_micros AS balanceMicros, low_balance_micros AS lowBalanceMicros FROM orgs
    WHERE low_balance_micros IS NOT NULL AND balance_micros < low_balance_micros AND low_balance_mailed_at IS NULL`);
  const mailed = db.prepare('UPDATE orgs SET low_balance_mailed_at = ? WHERE id = ?');

  const save = db.transaction((orgId: string, a: BillingAddress, now: number): SavedAddress => {
    saveAddress.run({
      org_id: orgId, name: a.name, line1: a.line1, line2: a.line2, city: a.city, state_code: a.stateCode, pincode: a.pincode, gstin: a.gstin, updated_at: now,
    });
    return addressOf(address.get(orgId) as AddressRow);
  });
  const credit = db.transaction((orderId: string, p: { id: string; method: string | null; via: PaidVia }, now: number,
    bonusStands: (promo: Promo | undefined, redeemed: boolean) => boolean): CreditedOrder => {
    const paid = markPaid.run(p.id, nextReceipt.get() as number, now, p.via, orderId);
    const o = orderOf(order.get(orderId) as OrderRow);
    if (paid.changes === 0) return { applied: false, order: o, bonusMicros: 0 };
    captured.run(p.id, o.id, o.orgId, o.totalMicros, p.method, now);
    insertMoneyEvent(db, o.orgId, 'payment', o.creditMicros, { ref: `order:${o.id}`, note: `top-up, receipt ${o.receiptNo}`, now });
    let bonus = 0;
    if (o.promoCode !== null && o.promoBonusMicros > 0) {
      // Settled here, where the redemption is written, so two open orders cannot both take a code.
      const row = promo.get(o.promoCode) as PromoRow | undefined;
      const p2 = row && promoOf(row);
      if (p2 && bonusStands(p2, redeemed.get(p2.code, o.orgId) !== undefined)) {
        redeem.run(p2.code, o.orgId, o.id, o.promoBonusMicros, now);
        insertMoneyEvent(db, o.orgId, 'promo_bonus', o.promoBonusMicros, { ref: `promo:${o.id}`, note: `promo ${p2.code}`, now });
        bonus = o.promoBonusMicros;
      } else {
        dropBonus.run(o.id);
        o.promoBonusMicros = 0;
      }
    }
    return { applied: true, order: o, bonusMicros: bonus };
  });
  const receiptOf = db.transaction((paymentId: string): { order: TopupOrder; method: string | null } | undefined => {
    const r = orderByPayment.get(paymentId) as OrderRow | undefined;
    if (!r || r.status !== 'paid') return undefined;
    return { order: orderOf(r), method: (payment.get(r.payment_id) as PaymentRow | undefined)?.method ?? null };
  });
  const crossings = db.transaction((): LowBalanceOrg[] => {
    rearm.run();
    return crossed.all() as LowBalanceOrg[];
  });

  return {
    address: async (orgId) => {
      const r = address.get(orgId) as AddressRow | undefined;
      return r && addressOf(r);
    },
    saveAddress: async (orgId, a, now) => save.immediate(orgId, a, now),
    promo: async (code, orgId) => {
      const r = promo.get(code) as PromoRow | undefined;
      return r && { promo: promoOf(r), redeemed: redeemed.get(r.code, orgId) !== undefined };
    },
    createOrder: async (o: NewTopupOrder) => {
      insertOrder.run({
        id: o.id, org_id: o.orgId, created_by: o.createdBy, credit_micros: o.creditMicros, cgst_micros: o.cgstMicros, sgst_micros: o.sgstMicros,
        igst_micros: o.igstMicros, total_micros: o.totalMicros, place_of_supply: o.placeOfSupply, bill_to: billToJson(o.billTo),
        promo_code: o.promoCode, promo_bonus_micros: o.promoBonusMicros, created_at: o.createdAt,
      });
    },
    findOrder: async (id) => {
      const r = order.get(id) as OrderRow | undefined;
      return r && orderOf(r);
    },
    ordersSince: async (orgId, since) => ordersSince.get(orgId, since) as { count: number; first: number | null },
    openOrdersSince: async (since, limit) => (openOrders.all(since, limit) as OrderRow[]).map(orderOf),
    listOrders: async (orgId, limit) => listOrders(db, orgId, limit).map(orderOf),
    paidOrderByPayment: async (paymentId) => receiptOf(paymentId),
    // IMMEDIATE: it reads before it writes, and the ledger writer commits from another thread; a
    // deferred transaction could then not upgrade its stale snapshot to a write (SQLITE_BUSY).
    creditOrder: async (orderId, p, now, bonusStands) => credit.immediate(orderId, p, now, bonusStands),
    recordFailedPayment: async (o, p, now) => {
      failed.run(p.id, o.id, o.orgId, p.amountMicros, p.method, p.error, now);
    },
    listPayments: async (orgId, limit) => (payments.all(orgId, limit) as PaymentRow[]).map(paymentOf),
    listMoneyEvents: async (orgId, limit) => listMoneyEvents(db, orgId, limit).map(moneyEventOf),
    lowBalance: async (orgId) => lowBalanceOf(db, orgId),
    setLowBalance: async (orgId, micros) => {
      setLow.run(micros, orgId);
    },
    lowBalanceCrossings: async () => crossings.immediate(),
    markLowBalanceMailed: async (orgId, now) => {
      mailed.run(now, orgId);
    },
  };
}
