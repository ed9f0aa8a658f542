import type { OperatorStore } from '../domain/stores/operator-store.js';
import type { Db } from './database.js';
import { disablePromo, insertPromo, listMoneyEvents, listOrders, listPromos, lowBalanceOf } from './billing.js';
import { insertMoneyEvent, insertOrg } from './orgs.js';

/** The OperatorStore on SQLite, over the functions the CLI has always used. */
export function sqliteOperatorStore(db: Db): OperatorStore {
  return {
    createOrg: async (name, now) => insertOrg(db, name, { now }),
    credit: async (orgId, amountMicros, note, now) => insertMoneyEvent(db, orgId, 'operator_credit', amountMicros, { note, now }),
    lowBalanceMicros: async (orgId) => lowBalanceOf(db, orgId),
    moneyEvents: async (orgId, limit) => listMoneyEvents(db, orgId, limit).map((e) => ({ at: e.at, kind: e.kind, amountMicros: e.amount_micros, note: e.note })),
    orders: async (orgId, limit) => listOrders(db, orgId, limit).map((o) => ({
      id: o.id, status: o.status, createdAt: o.created_at, creditMicros: o.credit_micros, totalMicros: o.total_micros,
      paymentId: o.payment_id, paidVia: o.paid_via, paidAt: o.paid_at,
    })),
    insertPromo: async (p) => insertPromo(db, p),
    listPromos: async () => listPromos(db),
    disablePromo: async (code, now) => disablePromo(db, code, now),
  };
}
