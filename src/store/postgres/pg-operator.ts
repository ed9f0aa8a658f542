import type { KeyRecord } from '../../domain/key-record.js';
import type { Org } from '../../domain/stores/org-store.js';
import type { OperatorMoneyEvent, OperatorOrder, OperatorStore, PromoRow } from '../../domain/stores/operator-store.js';
import { newId } from '../../lib/ids.js';
import type { Pg } from './pg-database.js';
import { lockFeed, recordChangePg } from './pg-locks.js';

export const PG_KEY_COLUMNS = `id, org_id AS "orgId", workspace_id AS "workspaceId", name, prefix, tier, scope, rpm_limit AS "rpmLimit",
  daily_limit AS "dailyLimit", monthly_budget_micros AS "monthlyBudgetMicros", expires_at AS "expiresAt", revoked_at AS "revokedAt"`;

/** The OperatorStore on PostgreSQL. */
export function postgresOperatorStore(sql: Pg): OperatorStore {
  return {
    createOrg: (name, now) => sql.begin(async (tx) => {
      const orgId = newId('org');
      const workspaceId = newId('ws');
      await tx`INSERT INTO orgs (id, name, personal, created_at) VALUES (${orgId}, ${name}, 0, ${now})`;
      await tx`INSERT INTO workspaces (id, org_id, name, is_default, created_at) VALUES (${workspaceId}, ${orgId}, 'default', 1, ${now})`;
      return { orgId, workspaceId };
    }),
    credit: (orgId, amountMicros, note, now) => sql.begin(async (tx) => {
      await lockFeed(tx);
      await tx`INSERT INTO money_events (org_id, at, kind, amount_micros, note) VALUES (${orgId}, ${now}, 'operator_credit', ${amountMicros}, ${note})`;
      const [o] = await tx<{ balance: number }[]>`UPDATE orgs SET balance_micros = balance_micros + ${amountMicros},
        funded_at = CASE WHEN funded_at IS NULL AND ${amountMicros}::bigint > 0 THEN ${now}::bigint ELSE funded_at END
        WHERE id = ${orgId} RETURNING balance_micros AS balance`;
      await recordChangePg(tx, 'org', orgId, now);
      return { balanceMicros: o.balance };
    }),
    findOrg: async (orgId) => (await sql<Org[]>`SELECT id, name, personal = 1 AS personal, balance_micros AS "balanceMicros",
      funded_at AS "fundedAt", created_at AS "createdAt" FROM orgs WHERE id = ${orgId}`)[0],
    lowBalanceMicros: async (orgId) => (await sql<{ low: number | null }[]>`SELECT low_balance_micros AS low FROM orgs WHERE id = ${orgId}`)[0]?.low ?? null,
    activeKeys: async (orgId, now) => [...await sql<{ id: string; name: string; prefix: string; tier: string }[]>`SELECT id, name, prefix, tier
      FROM api_keys WHERE org_id = ${orgId} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${now}) ORDER BY created_at DESC`],
    moneyEvents: async (orgId, limit) => [...await sql<OperatorMoneyEvent[]>`SELECT at, kind, amount_micros AS "amountMicros", note
      FROM money_events WHERE org_id = ${orgId} ORDER BY id DESC LIMIT ${limit}`],
    orders: async (orgId, limit) => [...await sql<OperatorOrder[]>`SELECT id, status, created_at AS "createdAt", credit_micros AS "creditMicros",
      total_micros AS "totalMicros", payment_id AS "paymentId", paid_via AS "paidVia", paid_at AS "paidAt"
      FROM payment_orders WHERE org_id = ${orgId} ORDER BY created_at DESC, id LIMIT ${limit}`],
    findKey: async (id) => (await sql.unsafe<KeyRecord[]>(`SELECT ${PG_KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]))[0],
    revokeKey: (id, now) => sql.begin(async (tx) => {
      const res = await tx`UPDATE api_keys SET revoked_at = ${now} WHERE id = ${id} AND revoked_at IS NULL`;
      if (res.count === 1) await recordChangePg(tx, 'key', id, now);
      return res.count === 1;
    }),
    updateKeyLimits: (id, patch, now) => sql.begin(async (tx) => {
      const set: Record<string, number | null> = {};
      if (patch.rpmLimit !== undefined) set.rpm_limit = patch.rpmLimit;
      if (patch.dailyLimit !== undefined) set.daily_limit = patch.dailyLimit;
      if (patch.monthlyBudgetMicros !== undefined) set.monthly_budget_micros = patch.monthlyBudgetMicros;
      if (Object.keys(set).length === 0) return (await tx`SELECT 1 FROM api_keys WHERE id = ${id}`).length === 1;
      const res = await tx`UPDATE api_keys SET ${tx(set)} WHERE id = ${id}`;
      if (res.count === 1) await recordChangePg(tx, 'key', id, now);
      return res.count === 1;
    }),
    insertPromo: async (p) => (await sql`INSERT INTO promo_codes (code, kind, value, expires_at, max_redemptions, created_at)
      VALUES (${p.code}, ${p.kind}, ${p.value}, ${p.expires_at}, ${p.max_redemptions}, ${p.created_at}) ON CONFLICT (code) DO NOTHING`).count === 1,
    listPromos: async () => [...await sql<PromoRow[]>`SELECT p.code::text AS code, p.kind, p.value, p.expires_at, p.max_redemptions, p.disabled_at, p.created_at,
      (SELECT COUNT(*) FROM promo_redemptions r WHERE r.code = p.code) AS redemptions FROM promo_codes p ORDER BY p.created_at DESC`],
    disablePromo: async (code, now) => (await sql`UPDATE promo_codes SET disabled_at = ${now} WHERE code = ${code} AND disabled_at IS NULL`).count === 1,
  };
}
