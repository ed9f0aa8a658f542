import type { Db } from './database.js';
import { recordChange } from './change-log.js';
import type { KeyRecord } from '../domain/key-record.js';
import type { KeyLimitsPatch, KeyListRow, KeyStore, NewKey } from '../domain/stores/key-store.js';
import { hashApiKey, keyPrefix, mintApiKey } from '../lib/api-key.js';
import { newId } from '../lib/ids.js';

export type { KeyRecord, KeyLimitsPatch, NewKey };

const KEY_COLUMNS = `id, org_id AS orgId, workspace_id AS workspaceId, name, prefix, tier, scope, rpm_limit AS rpmLimit,
  daily_limit AS dailyLimit, monthly_budget_micros AS monthlyBudgetMicros, expires_at AS expiresAt, revoked_at AS revokedAt`;

/**
 * The settings in force for a key: its own, else its org's: the guardrail policy
 * (docs/guardrails.md), the response cache mode and the prompt-cache markers (docs/cache.md).
 */
const inForce = (column: string, alias: string) => `COALESCE(${column}, (SELECT o.${column} FROM orgs o WHERE o.id = api_keys.org_id)) AS ${alias}`;
const SETTINGS_IN_FORCE = [inForce('guardrails', 'guardrails'), inForce('response_cache', '"responseCache"'), inForce('prompt_cache', '"promptCache"')].join(', ');

/** A key's own settings (null where it sets none), as the key store lists and finds keys. */
const OWN_SETTINGS = 'guardrails, response_cache AS responseCache, prompt_cache AS promptCache';

/** A prepared lookup for the data plane's cache misses. */
export function keyByHashReader(db: Db): (hash: string) => KeyRecord | undefined {
  const stmt = db.prepare(`SELECT ${KEY_COLUMNS}, ${SETTINGS_IN_FORCE} FROM api_keys WHERE hash = ?`);
  return (hash) => stmt.get(hash) as KeyRecord | undefined;
}

export function findKeyById(db: Db, id: string): (KeyRecord & { hash: string }) | undefined {
  return db.prepare(`SELECT ${KEY_COLUMNS}, ${OWN_SETTINGS}, hash FROM api_keys WHERE id = ?`).get(id) as (KeyRecord & { hash: string }) | undefined;
}

/** Mints a key and stores only its hash; the full key is returned here and never again. */
export function insertKey(db: Db, k: NewKey, now: number): { id: string; key: string; prefix: string } {
  const key = mintApiKey(k.tier);
  const id = newId('key');
  db.prepare(`INSERT INTO api_keys (id, org_id, workspace_id, name, hash, prefix, tier, scope, rpm_limit, daily_limit,
      monthly_budget_micros, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    .run(id, k.orgId, k.workspaceId, k.name, hashApiKey(key), keyPrefix(key), k.tier, k.scope ?? 'full',
      k.rpmLimit ?? null, k.dailyLimit ?? null, k.monthlyBudgetMicros ?? null, k.expiresAt ?? null, now);
  return { id, key, prefix: keyPrefix(key) };
}

/** Active keys of one scope: people's full keys count toward the org's cap, MCP-minted ephemeral ones toward their own. */
export function countActiveKeys(db: Db, orgId: string, now: number, scope: 'full' | 'inference' = 'full'): number {
  return db.prepare('SELECT COUNT(*) FROM api_keys WHERE org_id = ? AND scope = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)')
    .pluck().get(orgId, scope, now) as number;
}

/** The org's active keys, without secrets, newest first. */
export function listActiveKeys(db: Db, orgId: string, now: number): { id: string; name: string; prefix: string; tier: string; scope: string;
  expires_at: number | null; created_at: number }[] {
  return db.prepare(`SELECT id, name, prefix, tier, scope, expires_at, created_at FROM api_keys
    WHERE org_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?) ORDER BY created_at DESC`).all(orgId, now) as never;
}

/** What a key's holder may know of its account: the org balance, and the key's requests today and spend this month. */
export function keyAccount(db: Db, orgId: string, keyId: string, day: string, month: string):
  { balance_micros: number; requests_today: number; spent_month_micros: number } {
  return {
    balance_micros: db.prepare('SELECT balance_micros FROM orgs WHERE id = ?').pluck().get(orgId) as number,
    requests_today: (db.prepare('SELECT requests FROM key_daily_counts WHERE key_id = ? AND ist_day = ?').pluck().get(keyId, day) as number) ?? 0,
    spent_month_micros: (db.prepare('SELECT spent_micros FROM monthly_spend WHERE scope_id = ? AND ist_month = ?').pluck().get(keyId, month) as number) ?? 0,
  };
}

export function activeKeyNameTaken(db: Db, orgId: string, name: string, now: number): boolean {
  return db.prepare(`SELECT 1 FROM api_keys WHERE org_id = ? AND name = ? AND revoked_at IS NULL
    AND (expires_at IS NULL OR expires_at > ?)`).get(orgId, name, now) !== undefined;
}

/** Revokes a key; returns false when there is no such active key. */
export function revokeKey(db: Db, id: string, now: number): boolean {
  return db.transaction(() => {
    const res = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(now, id);
    if (res.changes === 1) recordChange(db, 'key', id, now);
    return res.changes === 1;
  })();
}

export function updateKeyLimits(db: Db, id: string, patch: KeyLimitsPatch, now: number): boolean {
  const sets: string[] = [];
  const args: (number | string | null)[] = [];
  if (patch.rpmLimit !== undefined) { sets.push('rpm_limit = ?'); args.push(patch.rpmLimit); }
  if (patch.dailyLimit !== undefined) { sets.push('daily_limit = ?'); args.push(patch.dailyLimit); }
  if (patch.monthlyBudgetMicros !== undefined) { sets.push('monthly_budget_micros = ?'); args.push(patch.monthlyBudgetMicros); }
  if (patch.guardrails !== undefined) { sets.push('guardrails = ?'); args.push(patch.guardrails); }
  if (patch.responseCache !== undefined) { sets.push('response_cache = ?'); args.push(patch.responseCache); }
  if (patch.promptCache !== undefined) { sets.push('prompt_cache = ?'); args.push(patch.promptCache); }
  if (sets.length === 0) return findKeyById(db, id) !== undefined;
  return db.transaction(() => {
    const res = db.prepare(`UPDATE api_keys SET ${sets.join(', ')} WHERE id = ?`).run(...args, id);
    if (res.changes === 1) recordChange(db, 'key', id, now);
    return res.changes === 1;
  })();
}


/** The KeyStore on SQLite: statements prepared once; a check and its insert in one immediate transaction. */
export function sqliteKeyStore(db: Db): KeyStore {
  const list = db.prepare(`SELECT ${KEY_COLUMNS}, ${OWN_SETTINGS}, COALESCE(s.spent_micros, 0) AS spentMonthMicros, k.last_used_at AS lastUsedAt,
      k.created_at AS createdAt
    FROM api_keys k LEFT JOIN monthly_spend s ON s.scope_id = k.id AND s.ist_month = ? WHERE k.org_id = ? ORDER BY k.created_at, k.id`);
  const active = db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys
    WHERE org_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?) ORDER BY created_at DESC`);
  const create = db.transaction((k: NewKey, now: number, check?: (facts: { active: number; nameTaken: boolean }) => void) => {
    check?.({ active: countActiveKeys(db, k.orgId, now, k.scope ?? 'full'), nameTaken: activeKeyNameTaken(db, k.orgId, k.name, now) });
    return insertKey(db, k, now);
  });
  return {
    list: async (orgId, istMonth) => list.all(istMonth, orgId) as KeyListRow[],
    listActive: async (orgId, now) => active.all(orgId, now) as KeyRecord[],
    find: async (id) => {
      const k = findKeyById(db, id);
      if (k === undefined) return undefined;
      const { hash: _hash, ...record } = k;
      return record;
    },
    countActive: async (orgId, now, scope) => countActiveKeys(db, orgId, now, scope),
    create: async (k, now, check) => create.immediate(k, now, check),
    revoke: async (id, now) => revokeKey(db, id, now),
    updateLimits: async (id, patch, now) => updateKeyLimits(db, id, patch, now),
    account: async (orgId, keyId, day, month) => {
      const a = keyAccount(db, orgId, keyId, day, month);
      return { balanceMicros: a.balance_micros, requestsToday: a.requests_today, spentMonthMicros: a.spent_month_micros };
    },
  };
}
