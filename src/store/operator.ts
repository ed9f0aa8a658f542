import type { OperatorStore } from '../domain/stores/operator-store.js';
import type { Db } from './database.js';
import { disablePromo, insertPromo, listPromos } from './billing.js';
import { insertMoneyEvent, insertOrg } from './orgs.js';

/** The OperatorStore on SQLite, over the functions the CLI has always used. */
export function sqliteOperatorStore(db: Db): OperatorStore {
  return {
    createOrg: async (name, now) => insertOrg(db, name, { now }),
    credit: async (orgId, amountMicros, note, now) => insertMoneyEvent(db, orgId, 'operator_credit', amountMicros, { note, now }),
    insertPromo: async (p) => insertPromo(db, p),
    listPromos: async () => listPromos(db),
    disablePromo: async (code, now) => disablePromo(db, code, now),
  };
}
