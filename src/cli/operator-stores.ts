import type { Config } from '../config/schema.js';
import type { BillingStore } from '../domain/stores/billing-store.js';
import type { KeyStore } from '../domain/stores/key-store.js';
import type { OperatorStore } from '../domain/stores/operator-store.js';
import type { OrgStore } from '../domain/stores/org-store.js';
import type { SignInStore } from '../domain/stores/sign-in-store.js';
import { openDatabase } from '../store/database.js';
import { sqliteBillingStore } from '../store/billing.js';
import { sqliteKeyStore } from '../store/keys.js';
import { sqliteOperatorStore } from '../store/operator.js';
import { sqliteOrgStore } from '../store/orgs.js';
import { sqliteSignInStore } from '../store/sign-in.js';
import { postgresBillingStore } from '../store/postgres/pg-billing.js';
import { openPostgres } from '../store/postgres/pg-database.js';
import { postgresKeyStore } from '../store/postgres/pg-keys.js';
import { postgresOperatorStore } from '../store/postgres/pg-operator.js';
import { postgresOrgStore } from '../store/postgres/pg-orgs.js';
import { postgresSignInStore } from '../store/postgres/pg-sign-in.js';

/** The stores an operator command works on, on the database the gateways use. */
export interface OperatorStores {
  ops: OperatorStore;
  orgs: OrgStore;
  keys: KeyStore;
  signIn: SignInStore;
  billing: BillingStore;
  close(): Promise<void>;
}

/** SQLite at dbPath; PostgreSQL when the config names one (store.url, GW_STORE). */
export async function openOperatorStores(config: Readonly<Config>): Promise<OperatorStores> {
  if (config.store.url) {
    const sql = await openPostgres(config.store.url, { max: 2 });
    return {
      ops: postgresOperatorStore(sql), orgs: postgresOrgStore(sql), keys: postgresKeyStore(sql), signIn: postgresSignInStore(sql), billing: postgresBillingStore(sql),
      close: () => sql.end({ timeout: 1 }),
    };
  }
  const db = openDatabase(config.dbPath);
  return {
    ops: sqliteOperatorStore(db), orgs: sqliteOrgStore(db), keys: sqliteKeyStore(db), signIn: sqliteSignInStore(db), billing: sqliteBillingStore(db),
    close: async () => { db.close(); },
  };
}
