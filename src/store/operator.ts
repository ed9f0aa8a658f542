import type { OperatorStore } from '../domain/stores/operator-store.js';
import type { Db } from './database.js';
import { disablePromo, insertPromo, listMoneyEvents, listOrders, listPromos, lowBalanceOf } from './billing.js';
import { findKeyById, listActiveKeys, revokeKey, updateKeyLimits } from './keys.js';
import { findOrg, insertMoneyEvent, insertOrg } from './orgs.js';

/** The OperatorStore on SQLite, over the functions the CLI has always used. */
export function sqliteOperatorStore(db: Db): OperatorStore {
  return {
    createOrg: async (name, now) => insertOrg(db, name, { now }),
    credit: async (orgId, amountMicros, note, now) => insertMoneyEvent(db, orgId, 'operator_credit', amountMicros, { note, now }),
    findOrg: async (orgId) => {
      const o = findOrg(db, orgId);
      return o && { id: o.id, name: o.name, personal: o.personal === 1, balanceMicros: o.balance_micros, fundedAt: o.funded_at, createdAt: o.created_at };
    },
    lowBalanceMicros: async (orgId) => lowBalanceOf(db, orgId),
    activeKeys: async (orgId, now) => listActiveKeys(db, orgId, now).map((k) => ({ id: k.id, name: k.name, prefix: k.prefix, tier: k.tier })),
    moneyEvents: async (orgId, limit) => listMoneyEvents(db, orgId, limit).map((e) => ({ at: e.at, kind: e.kind, amountMicros: e.amount_micros, note: e.note })),
    orders: async (orgId, limit) => listOrders(db, orgId, limit).map((o) => ({
      id: o.id, status: o.status, createdAt: o.created_at, creditMicros: o.credit_micros, totalMicros: o.total_micros,
      paymentId: o.payment_id, paidVia: o.paid_via, paidAt: o.paid_at,
    })),
    findKey: async (id) => {
      const k = findKeyById(db, id);
      if (!k) return undefined;
      const { hash: _hash, ...rec } = k;
      return rec;
    },
    revokeKey: async (id, now) => revokeKey(db, id, now),
    updateKeyLimits: async (id, patch, now) => updateKeyLimits(db, id, patch, now),
    insertPromo: async (p) => insertPromo(db, p),
    listPromos: async () => listPromos(db),
    disablePromo: async (code, now) => disablePromo(db, code, now),
  };
}
