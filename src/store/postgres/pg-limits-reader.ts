import type { AsyncLimitsReader } from '../../domain/limits-reader.js';
import type { Pg } from './pg-database.js';

/** The limits' durable figures on PostgreSQL (the twin of store/usage.ts limitsReader), each one statement. */
export function postgresLimitsReader(sql: Pg): AsyncLimitsReader {
  const latestEvent = async (): Promise<number> =>
    (await sql<{ id: number }[]>`SELECT COALESCE(MAX(id), 0) AS id FROM money_events`)[0].id;
  return {
    keyDailyCount: async (keyId, day) =>
      (await sql<{ n: number }[]>`SELECT requests AS n FROM key_daily_counts WHERE key_id = ${keyId} AND ist_day = ${day}`)[0]?.n ?? 0,
    // Keys are never deleted (revocation only marks them), so a revoked trial key's requests still count.
    orgTrialDailyCount: async (orgId, day) => (await sql<{ n: number }[]>`SELECT COALESCE(SUM(d.requests), 0) AS n FROM api_keys k
      JOIN key_daily_counts d ON d.key_id = k.id AND d.ist_day = ${day} WHERE k.org_id = ${orgId} AND k.tier = 'trial'`)[0].n,
    monthlySpend: async (scopeId, month) => (await sql<{ n: number }[]>`SELECT spent_micros AS n FROM monthly_spend
      WHERE scope_id = ${scopeId} AND ist_month = ${month}`)[0]?.n ?? 0,
    // One statement is one snapshot under READ COMMITTED: the balance includes exactly the money
    // events up to the mark (an event and its balance move commit together, in id order).
    orgBalance: async (orgId) => (await sql<{ balanceMicros: number; moneyEventId: number }[]>`SELECT balance_micros AS "balanceMicros",
      (SELECT COALESCE(MAX(id), 0) FROM money_events) AS "moneyEventId" FROM orgs WHERE id = ${orgId}`)[0] ?? null,
    workspaceBudget: async (id) => (await sql<{ b: number | null }[]>`SELECT monthly_budget_micros AS b FROM workspaces
      WHERE id = ${id} AND archived_at IS NULL`)[0]?.b ?? null,
    moneyEventsSince: async (id) => [...await sql<{ id: number; org_id: string; amount_micros: number }[]>`SELECT id, org_id, amount_micros
      FROM money_events WHERE id > ${id} ORDER BY id LIMIT 1000`],
    latestMoneyEventId: latestEvent,
  };
}
