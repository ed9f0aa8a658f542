import type {
  BillingAddress, BillingStore, CreditedOrder, LowBalanceOrg, MoneyEvent, PaidVia, Payment, Promo, SavedAddress, TopupOrder,
} from '../../domain/stores/billing-store.js';
import { applyMoneyEventPg } from './pg-orgs.js';
import type { Pg } from './pg-database.js';
import { lockScope, type Tx } from './pg-locks.js';

const ADDRESS = `name, line1, line2, city, state_code AS "stateCode", pincode, gstin, updated_at AS "updatedAt"`;

/** An order's columns, of `payment_orders o`. */
const ORDER = `o.id, o.org_id AS "orgId", o.created_by AS "createdBy", o.credit_micros AS "creditMicros", o.cgst_micros AS "cgstMicros",
  o.sgst_micros AS "sgstMicros", o.igst_micros AS "igstMicros", o.total_micros AS "totalMicros", o.place_of_supply AS "placeOfSupply",
  o.bill_to AS "billTo", o.promo_code AS "promoCode", o.promo_bonus_micros AS "promoBonusMicros", o.status, o.payment_id AS "paymentId",
  o.receipt_no AS "receiptNo", o.paid_at AS "paidAt", o.paid_via AS "paidVia", o.created_at AS "createdAt"`;

const PROMO = `SELECT p.code::text AS code, p.kind, p.value, p.expires_at AS "expiresAt", p.max_redemptions AS "maxRedemptions",
  (SELECT COUNT(*) FROM promo_redemptions r WHERE r.code = p.code) AS redemptions, p.disabled_at AS "disabledAt", p.created_at AS "createdAt"
  FROM promo_codes p`;

const PAYMENT = `id, order_id AS "orderId", status, amount_micros AS "amountMicros", method, error, at`;

/** An order row with bill_to still the stored JSON. */
type OrderRow = Omit<TopupOrder, 'billTo'> & { billTo: string };

/** An order's bill_to as stored: the address with the column names, in this order (the SQLite twin's spelling). */
const billToJson = (a: BillingAddress): string =>
  JSON.stringify({ name: a.name, line1: a.line1, line2: a.line2, city: a.city, state_code: a.stateCode, pincode: a.pincode, gstin: a.gstin });

function orderOf(r: OrderRow): TopupOrder {
  const a = JSON.parse(r.billTo) as { name: string; line1: string; line2: string | null; city: string; state_code: string; pincode: string; gstin: string | null };
  return { ...r, billTo: { name: a.name, line1: a.line1, line2: a.line2, city: a.city, stateCode: a.state_code, pincode: a.pincode, gstin: a.gstin } };
}

/**
 * The BillingStore on PostgreSQL. SQLite credits an order in one immediate transaction, alone;
 * here credits from several instances arrive side by side, so creditOrder takes, in this order:
 * the order's row (FOR NO KEY UPDATE: a second report of one payment waits, then finds it paid;
 * a failed payment's foreign-key check does not wait), then the receipts lock until commit (the
 * next number is read and used before anyone else reads it: gap-free, never shared). That lock
 * runs every credit that pays an order one at a time, as SQLite does, so the promo check after it
 * (the code's cap, one redemption per org) sees every earlier credit. The feed lock comes last,
 * inside the money event.
 */
export function postgresBillingStore(sql: Pg): BillingStore {
  const findOrder = async (q: Pg | Tx, id: string): Promise<TopupOrder | undefined> => {
    const [r] = await q.unsafe<OrderRow[]>(`SELECT ${ORDER} FROM payment_orders o WHERE o.id = $1`, [id]);
    return r && orderOf(r);
  };
  const promo = async (q: Pg | Tx, code: string): Promise<Promo | undefined> =>
    (await q.unsafe<Promo[]>(`${PROMO} WHERE p.code = $1`, [code]))[0];
  const redeemed = async (q: Pg | Tx, code: string, orgId: string): Promise<boolean> =>
    (await q`SELECT 1 FROM promo_redemptions WHERE code = ${code} AND org_id = ${orgId}`).length > 0;

  const credit = (orderId: string, p: { id: string; method: string | null; via: PaidVia }, now: number,
    bonusStands: (promo: Promo | undefined, redeemed: boolean) => boolean) => sql.begin(async (tx): Promise<CreditedOrder> => {
    const [row] = await tx<{ status: string }[]>`SELECT status FROM payment_orders WHERE id = ${orderId} FOR NO KEY UPDATE`;
    if (!row) throw new Error(`no payment order ${orderId}`);
    if (row.status !== 'created') return { applied: false, order: (await findOrder(tx, orderId))!, bonusMicros: 0 };
    // Gap-free across every org and instance: one number handed out at a time, until commit.
    // Taken after the order's row, so a repeat report waits on the row, not on every credit.
    await lockScope(tx, 'receipts');
    await tx`UPDATE payment_orders SET status = 'paid', payment_id = ${p.id},
      receipt_no = (SELECT COALESCE(MAX(receipt_no), 0) + 1 FROM payment_orders), paid_at = ${now}, paid_via = ${p.via}
      WHERE id = ${orderId}`;
    const o = (await findOrder(tx, orderId))!;
    await tx`INSERT INTO payments (id, order_id, org_id, status, amount_micros, method, error, at)
      VALUES (${p.id}, ${o.id}, ${o.orgId}, 'captured', ${o.totalMicros}, ${p.method}, NULL, ${now})
      ON CONFLICT (id) DO UPDATE SET status = 'captured', error = NULL, at = EXCLUDED.at`;
    await applyMoneyEventPg(tx, o.orgId, 'payment', o.creditMicros, { ref: `order:${o.id}`, note: `top-up, receipt ${o.receiptNo}`, now });
    let bonus = 0;
    if (o.promoCode !== null && o.promoBonusMicros > 0) {
      // Settled here, where the redemption is written, under the receipts lock, so two open orders
      // cannot both take a code nor pass its cap. CITEXT: the code in any case is one code.
      const p2 = await promo(tx, o.promoCode);
      if (p2 && bonusStands(p2, await redeemed(tx, p2.code, o.orgId))) {
        await tx`INSERT INTO promo_redemptions (code, org_id, order_id, bonus_micros, at)
          VALUES (${p2.code}, ${o.orgId}, ${o.id}, ${o.promoBonusMicros}, ${now})`;
        await applyMoneyEventPg(tx, o.orgId, 'promo_bonus', o.promoBonusMicros, { ref: `promo:${o.id}`, note: `promo ${p2.code}`, now });
        bonus = o.promoBonusMicros;
      } else {
        await tx`UPDATE payment_orders SET promo_bonus_micros = 0 WHERE id = ${o.id}`;
        o.promoBonusMicros = 0;
      }
    }
    return { applied: true, order: o, bonusMicros: bonus };
  });

  return {
    address: async (orgId) => (await sql.unsafe<SavedAddress[]>(`SELECT ${ADDRESS} FROM billing_addresses WHERE org_id = $1`, [orgId]))[0],
    saveAddress: async (orgId, a, now) => (await sql.unsafe<SavedAddress[]>(`INSERT INTO billing_addresses
        (org_id, name, line1, line2, city, state_code, pincode, gstin, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
      ON CONFLICT (org_id) DO UPDATE SET name = EXCLUDED.name, line1 = EXCLUDED.line1, line2 = EXCLUDED.line2, city = EXCLUDED.city,
        state_code = EXCLUDED.state_code, pincode = EXCLUDED.pincode, gstin = EXCLUDED.gstin, updated_at = EXCLUDED.updated_at
      RETURNING ${ADDRESS}`, [orgId, a.name, a.line1, a.line2, a.city, a.stateCode, a.pincode, a.gstin, now]))[0],
    promo: async (code, orgId) => {
      const p = await promo(sql, code);
      return p && { promo: p, redeemed: await redeemed(sql, p.code, orgId) };
    },
    createOrder: async (o) => {
      await sql`INSERT INTO payment_orders (id, org_id, created_by, credit_micros, cgst_micros, sgst_micros, igst_micros,
          total_micros, place_of_supply, bill_to, promo_code, promo_bonus_micros, status, created_at)
        VALUES (${o.id}, ${o.orgId}, ${o.createdBy}, ${o.creditMicros}, ${o.cgstMicros}, ${o.sgstMicros}, ${o.igstMicros},
          ${o.totalMicros}, ${o.placeOfSupply}, ${billToJson(o.billTo)}, ${o.promoCode}, ${o.promoBonusMicros}, 'created', ${o.createdAt})`;
    },
    findOrder: (id) => findOrder(sql, id),
    ordersSince: async (orgId, since) => (await sql<{ count: number; first: number | null }[]>`SELECT COUNT(*) AS count,
      MIN(created_at) AS first FROM payment_orders WHERE org_id = ${orgId} AND created_at > ${since}`)[0],
    openOrdersSince: async (since, limit) => (await sql.unsafe<OrderRow[]>(`SELECT ${ORDER} FROM payment_orders o
      WHERE status = 'created' AND created_at >= $1 ORDER BY created_at LIMIT $2`, [since, limit])).map(orderOf),
    // Ties broken by id bytewise (COLLATE "C"), as SQLite compares text, whatever the database's locale.
    listOrders: async (orgId, limit) => (await sql.unsafe<OrderRow[]>(`SELECT ${ORDER} FROM payment_orders o
      WHERE org_id = $1 ORDER BY created_at DESC, id COLLATE "C" LIMIT $2`, [orgId, limit])).map(orderOf),
    paidOrderByPayment: async (paymentId) => {
      // One statement: the order and its payment's method from one snapshot.
      const [r] = await sql.unsafe<(OrderRow & { method: string | null })[]>(`SELECT ${ORDER},
        (SELECT method FROM payments p WHERE p.id = o.payment_id) AS method
        FROM payment_orders o WHERE o.payment_id = $1 AND o.status = 'paid'`, [paymentId]);
      if (!r) return undefined;
      const { method, ...order } = r;
      return { order: orderOf(order), method };
    },
    creditOrder: credit,
    recordFailedPayment: async (o, p, now) => {
      await sql`INSERT INTO payments (id, order_id, org_id, status, amount_micros, method, error, at)
        VALUES (${p.id}, ${o.id}, ${o.orgId}, 'failed', ${p.amountMicros}, ${p.method}, ${p.error}, ${now}) ON CONFLICT (id) DO NOTHING`;
    },
    listPayments: async (orgId, limit) => [...await sql.unsafe<Payment[]>(`SELECT ${PAYMENT} FROM payments WHERE org_id = $1
      ORDER BY at DESC, id COLLATE "C" LIMIT $2`, [orgId, limit])],
    listMoneyEvents: async (orgId, limit) => [...await sql<MoneyEvent[]>`SELECT id, at, kind, amount_micros AS "amountMicros", note
      FROM money_events WHERE org_id = ${orgId} ORDER BY id DESC LIMIT ${limit}`],
    lowBalance: async (orgId) =>
      (await sql<{ low: number | null }[]>`SELECT low_balance_micros AS low FROM orgs WHERE id = ${orgId}`)[0]?.low ?? null,
    setLowBalance: async (orgId, micros) => {
      await sql`UPDATE orgs SET low_balance_micros = ${micros}, low_balance_mailed_at = NULL WHERE id = ${orgId}`;
    },
    lowBalanceCrossings: () => sql.begin(async (tx) => {
      await tx`UPDATE orgs SET low_balance_mailed_at = NULL
        WHERE low_balance_micros IS NOT NULL AND low_balance_mailed_at IS NOT NULL AND balance_micros >= low_balance_micros`;
      return [...await tx<LowBalanceOrg[]>`SELECT id, name, balance_micros AS "balanceMicros", low_balance_micros AS "lowBalanceMicros" FROM orgs
        WHERE low_balance_micros IS NOT NULL AND balance_micros < low_balance_micros AND low_balance_mailed_at IS NULL`];
    }),
    markLowBalanceMailed: async (orgId, now) => {
      await sql`UPDATE orgs SET low_balance_mailed_at = ${now} WHERE id = ${orgId}`;
    },
  };
}
