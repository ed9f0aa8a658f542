import type { OperatorStore, PromoRow } from '../../domain/stores/operator-store.js';
import type { Pg } from './pg-database.js';
import { insertMoneyEventPg, insertOrgPg } from './pg-orgs.js';

/** The OperatorStore on PostgreSQL. */
export function postgresOperatorStore(sql: Pg): OperatorStore {
  return {
    createOrg: (name, now) => sql.begin((tx) => insertOrgPg(tx, name, { now })),
    credit: (orgId, amountMicros, note, now) => insertMoneyEventPg(sql, orgId, 'operator_credit', amountMicros, { note, now }),
    insertPromo: async (p) => (await sql`INSERT INTO promo_codes (code, kind, value, expires_at, max_redemptions, created_at)
      VALUES (${p.code}, ${p.kind}, ${p.value}, ${p.expires_at}, ${p.max_redemptions}, ${p.created_at}) ON CONFLICT (code) DO NOTHING`).count === 1,
    listPromos: async () => [...await sql<PromoRow[]>`SELECT p.code::text AS code, p.kind, p.value, p.expires_at, p.max_redemptions, p.disabled_at, p.created_at,
      (SELECT COUNT(*) FROM promo_redemptions r WHERE r.code = p.code) AS redemptions FROM promo_codes p ORDER BY p.created_at DESC`],
    disablePromo: async (code, now) => (await sql`UPDATE promo_codes SET disabled_at = ${now} WHERE code = ${code} AND disabled_at IS NULL`).count === 1,
  };
}
