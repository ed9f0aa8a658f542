import type { Db } from './database.js';
import type { OrgCachePatch, OrgStore } from '../domain/stores/org-store.js';
import type { PromptCacheSetting, ResponseCacheMode } from '../domain/cache-settings.js';
import { recordChange } from './change-log.js';
import { newId } from '../lib/ids.js';
import { orgIsFunded as isFunded } from '../domain/org-funding.js';

export interface OrgRow {
  id: string;
  name: string;
  personal: number;
  created_at: number;
  balance_micros: number;
  funded_at: number | null;
  guardrails: string | null;
  response_cache: ResponseCacheMode | null;
  prompt_cache: PromptCacheSetting | null;
}

export type MoneyEventKind = 'operator_credit' | 'signup_credit' | 'payment' | 'promo_bonus' | 'refund' | 'adjustment';

/** Creates an org with its default workspace; returns the org id. */
export function insertOrg(db: Db, name: string, opts: { personal?: boolean; now: number }): { orgId: string; workspaceId: string } {
  const now = opts.now;
  const orgId = newId('org');
  const workspaceId = newId('ws');
  db.transaction(() => {
    db.prepare('INSERT INTO orgs (id, name, personal, created_at) VALUES (?, ?, ?, ?)').run(orgId, name, opts.personal ? 1 : 0, now);
    db.prepare('INSERT INTO workspaces (id, org_id, name, is_default, created_at) VALUES (?, ?, ?, 1, ?)').run(workspaceId, orgId, 'default', now);
  })();
  return { orgId, workspaceId };
}

/** Whether any organisation exists yet (a fresh install has none). */
export function hasAnyOrg(db: Db): boolean {
  return db.prepare('SELECT 1 FROM orgs LIMIT 1').get() !== undefined;
}

export function findOrg(db: Db, orgId: string): OrgRow | undefined {
  return db.prepare('SELECT * FROM orgs WHERE id = ?').get(orgId) as OrgRow | undefined;
}

export function findDefaultWorkspaceId(db: Db, orgId: string): string | undefined {
  return db.prepare('SELECT id FROM workspaces WHERE org_id = ? AND is_default = 1').pluck().get(orgId) as string | undefined;
}

/**
 * Records a money event and moves the cached balance in one transaction. A positive amount marks
 * the org funded (its new keys are standard tier). With a ref, a repeat is ignored (idempotent).
 */
export function insertMoneyEvent(db: Db, orgId: string, kind: MoneyEventKind, amountMicros: number,
  opts: { note?: string; ref?: string; now: number }): { applied: boolean; balanceMicros: number } {
  const now = opts.now;
  return db.transaction(() => {
    const res = db.prepare(`INSERT INTO money_events (org_id, at, kind, amount_micros, note, ref) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT(ref) DO NOTHING`).run(orgId, now, kind, amountMicros, opts.note ?? null, opts.ref ?? null);
    if (res.changes === 1) {
      db.prepare(`UPDATE orgs SET balance_micros = balance_micros + ?,
        funded_at = CASE WHEN funded_at IS NULL AND ? > 0 THEN ? ELSE funded_at END WHERE id = ?`)
        .run(amountMicros, amountMicros, now, orgId);
      recordChange(db, 'org', orgId, now);
    }
    const balance = db.prepare('SELECT balance_micros FROM orgs WHERE id = ?').pluck().get(orgId) as number;
    return { applied: res.changes === 1, balanceMicros: balance };
  })();
}

/** New keys are standard once the org has been funded or holds a positive balance (spec 3). */
export function orgIsFunded(org: OrgRow): boolean {
  return isFunded({ fundedAt: org.funded_at, balanceMicros: org.balance_micros });
}

/** The OrgStore on SQLite. */
export function sqliteOrgStore(db: Db): OrgStore {
  const workspace = db.prepare('SELECT 1 FROM workspaces WHERE id = ? AND org_id = ? AND archived_at IS NULL');
  const rename = db.prepare('UPDATE orgs SET name = ? WHERE id = ?');
  const setGuardrails = db.prepare('UPDATE orgs SET guardrails = ? WHERE id = ?');
  const setResponseCache = db.prepare('UPDATE orgs SET response_cache = ? WHERE id = ?');
  const setPromptCache = db.prepare('UPDATE orgs SET prompt_cache = ? WHERE id = ?');
  const orgKeys = db.prepare('SELECT id FROM api_keys WHERE org_id = ?').pluck();
  /** An org's setting is in each of its keys' looked-up records: each key is a change. */
  const keysChanged = (orgId: string, now: number): string[] => {
    const ids = orgKeys.all(orgId) as string[];
    for (const id of ids) recordChange(db, 'key', id, now);
    return ids;
  };
  const guard = db.transaction((orgId: string, policy: string | null, now: number): string[] => {
    setGuardrails.run(policy, orgId);
    return keysChanged(orgId, now);
  });
  const cache = db.transaction((orgId: string, patch: OrgCachePatch, now: number): string[] => {
    if (patch.responseCache !== undefined) setResponseCache.run(patch.responseCache, orgId);
    if (patch.promptCache !== undefined) setPromptCache.run(patch.promptCache, orgId);
    return keysChanged(orgId, now);
  });
  const owners = db.prepare(`SELECT u.email FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.org_id = ? AND m.role = 'owner' ORDER BY u.email`)
    .pluck();
  return {
    find: async (orgId) => {
      const o = findOrg(db, orgId);
      return o && { id: o.id, name: o.name, personal: o.personal === 1, balanceMicros: o.balance_micros, fundedAt: o.funded_at, createdAt: o.created_at,
        guardrails: o.guardrails, responseCache: o.response_cache, promptCache: o.prompt_cache };
    },
    defaultWorkspaceId: async (orgId) => findDefaultWorkspaceId(db, orgId)!,
    hasActiveWorkspace: async (orgId, workspaceId) => workspace.get(workspaceId, orgId) !== undefined,
    rename: async (orgId, name) => {
      rename.run(name, orgId);
    },
    setGuardrails: async (orgId, policy, now) => guard.immediate(orgId, policy, now),
    setCacheSettings: async (orgId, patch, now) => cache.immediate(orgId, patch, now),
    ownerEmails: async (orgId) => owners.all(orgId) as string[],
  };
}
