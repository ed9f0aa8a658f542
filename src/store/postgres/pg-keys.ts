import type { KeyRecord } from '../../domain/key-record.js';
import type { KeyAccount, KeyListRow, KeyStore, NewKey, NewKeyFacts } from '../../domain/stores/key-store.js';
import { hashApiKey, keyPrefix, mintApiKey } from '../../lib/api-key.js';
import { newId } from '../../lib/ids.js';
import type { Pg } from './pg-database.js';
import { lockScope, recordChangePg } from './pg-locks.js';

const KEY_COLUMNS = `k.id, k.org_id AS "orgId", k.workspace_id AS "workspaceId", k.name, k.prefix, k.tier, k.scope, k.rpm_limit AS "rpmLimit",
  k.daily_limit AS "dailyLimit", k.monthly_budget_micros AS "monthlyBudgetMicros", k.expires_at AS "expiresAt", k.revoked_at AS "revokedAt"`;

/**
 * The settings in force for a key: its own, else its org's: the guardrail policy
 * (docs/guardrails.md), the response cache mode and the prompt-cache markers (docs/cache.md).
 */
const inForce = (column: string, alias: string) => `COALESCE(k.${column}, (SELECT o.${column} FROM orgs o WHERE o.id = k.org_id)) AS ${alias}`;
const SETTINGS_IN_FORCE = [inForce('guardrails', 'guardrails'), inForce('response_cache', '"responseCache"'), inForce('prompt_cache', '"promptCache"')].join(', ');

/** A key's own settings (null where it sets none), as the key store lists and finds keys. */
const OWN_SETTINGS = 'k.guardrails, k.response_cache AS "responseCache", k.prompt_cache AS "promptCache"';

/** The data plane's lookup on a cache miss: the key by the hash of what the client sent. */
export function postgresKeyByHash(sql: Pg): (hash: string) => Promise<KeyRecord | undefined> {
  return async (hash) => (await sql.unsafe<KeyRecord[]>(`SELECT ${KEY_COLUMNS}, ${SETTINGS_IN_FORCE} FROM api_keys k WHERE k.hash = $1`, [hash]))[0];
}

/**
 * The KeyStore on PostgreSQL. A new key's check (the cap on active keys, a name in use) reads
 * under the org's lock, so concurrent creations in one org pass the cap in turn; revocations and
 * limit changes go to the change feed in the transaction that makes them.
 */
export function postgresKeyStore(sql: Pg): KeyStore {
  return {
    list: (orgId, istMonth) => sql.unsafe<KeyListRow[]>(`SELECT ${KEY_COLUMNS}, ${OWN_SETTINGS}, COALESCE(s.spent_micros, 0) AS "spentMonthMicros",
        k.last_used_at AS "lastUsedAt", k.created_at AS "createdAt"
      FROM api_keys k LEFT JOIN monthly_spend s ON s.scope_id = k.id AND s.ist_month = $1
      WHERE k.org_id = $2 ORDER BY k.created_at, k.id COLLATE "C"`, [istMonth, orgId]),
    listActive: (orgId, now) => sql.unsafe<KeyRecord[]>(`SELECT ${KEY_COLUMNS} FROM api_keys k
      WHERE k.org_id = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $2) ORDER BY k.created_at DESC`, [orgId, now]),
    find: async (id) => (await sql.unsafe<KeyRecord[]>(`SELECT ${KEY_COLUMNS}, ${OWN_SETTINGS} FROM api_keys k WHERE k.id = $1`, [id]))[0],
    countActive: async (orgId, now, scope = 'full') => (await sql<{ n: number }[]>`SELECT COUNT(*)::bigint AS n FROM api_keys
      WHERE org_id = ${orgId} AND scope = ${scope} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${now})`)[0].n,
    create: (k: NewKey, now: number, check?: (facts: NewKeyFacts) => void) => sql.begin(async (tx) => {
      if (check) {
        await lockScope(tx, `org:${k.orgId}`);
        const [facts] = await tx<{ active: number; nameTaken: boolean }[]>`SELECT
          COUNT(*) FILTER (WHERE scope = ${k.scope ?? 'full'})::bigint AS active,
          COALESCE(bool_or(name = ${k.name}), false) AS "nameTaken"
          FROM api_keys WHERE org_id = ${k.orgId} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${now})`;
        check(facts);
      }
      const key = mintApiKey(k.tier);
      const id = newId('key');
      await tx`INSERT INTO api_keys (id, org_id, workspace_id, name, hash, prefix, tier, scope, rpm_limit, daily_limit,
          monthly_budget_micros, expires_at, created_at)
        VALUES (${id}, ${k.orgId}, ${k.workspaceId}, ${k.name}, ${hashApiKey(key)}, ${keyPrefix(key)}, ${k.tier}, ${k.scope ?? 'full'},
          ${k.rpmLimit ?? null}, ${k.dailyLimit ?? null}, ${k.monthlyBudgetMicros ?? null}, ${k.expiresAt ?? null}, ${now})`;
      return { id, key, prefix: keyPrefix(key) };
    }),
    revoke: (id, now) => sql.begin(async (tx) => {
      if ((await tx`UPDATE api_keys SET revoked_at = ${now} WHERE id = ${id} AND revoked_at IS NULL`).count === 0) return false;
      // Every instance's key cache follows the change feed.
      await recordChangePg(tx, 'key', id, now);
      return true;
    }),
    updateLimits: (id, patch, now) => sql.begin(async (tx) => {
      const set: Record<string, number | string | null> = {};
      if (patch.rpmLimit !== undefined) set.rpm_limit = patch.rpmLimit;
      if (patch.dailyLimit !== undefined) set.daily_limit = patch.dailyLimit;
      if (patch.monthlyBudgetMicros !== undefined) set.monthly_budget_micros = patch.monthlyBudgetMicros;
      if (patch.guardrails !== undefined) set.guardrails = patch.guardrails;
      if (patch.responseCache !== undefined) set.response_cache = patch.responseCache;
      if (patch.promptCache !== undefined) set.prompt_cache = patch.promptCache;
      if (Object.keys(set).length === 0) return (await tx`SELECT 1 FROM api_keys WHERE id = ${id}`).length > 0;
      if ((await tx`UPDATE api_keys SET ${tx(set)} WHERE id = ${id}`).count === 0) return false;
      await recordChangePg(tx, 'key', id, now);
      return true;
    }),
    account: async (orgId, keyId, istDay, istMonth) => {
      const [row] = await sql<KeyAccount[]>`SELECT
        (SELECT balance_micros FROM orgs WHERE id = ${orgId}) AS "balanceMicros",
        COALESCE((SELECT requests FROM key_daily_counts WHERE key_id = ${keyId} AND ist_day = ${istDay}), 0) AS "requestsToday",
        COALESCE((SELECT spent_micros FROM monthly_spend WHERE scope_id = ${keyId} AND ist_month = ${istMonth}), 0) AS "spentMonthMicros"`;
      return row;
    },
  };
}
