import type { Org, OrgStore } from '../../domain/stores/org-store.js';
import { newId } from '../../lib/ids.js';
import type { MoneyEventKind } from '../orgs.js';
import type { Pg } from './pg-database.js';
import { lockFeed, recordChangePg, type Tx } from './pg-locks.js';

const ORG = `id, name, personal = 1 AS personal, balance_micros AS "balanceMicros", funded_at AS "fundedAt", created_at AS "createdAt",
  guardrails, response_cache AS "responseCache", prompt_cache AS "promptCache"`;

/** Whether any organisation exists yet (a fresh install has none). */
export async function postgresHasAnyOrg(sql: Pg): Promise<boolean> {
  return (await sql`SELECT 1 FROM orgs LIMIT 1`).length > 0;
}

/** Creates an org with its default workspace, inside the caller's transaction. */
export async function insertOrgPg(tx: Tx, name: string, opts: { personal?: boolean; now: number }): Promise<{ orgId: string; workspaceId: string }> {
  const orgId = newId('org');
  const workspaceId = newId('ws');
  await tx`INSERT INTO orgs (id, name, personal, created_at) VALUES (${orgId}, ${name}, ${opts.personal ? 1 : 0}, ${opts.now})`;
  await tx`INSERT INTO workspaces (id, org_id, name, is_default, created_at) VALUES (${workspaceId}, ${orgId}, 'default', 1, ${opts.now})`;
  return { orgId, workspaceId };
}

/** insertMoneyEvent's body, inside the caller's transaction (a first sign-in credits in its own). */
export async function applyMoneyEventPg(tx: Tx, orgId: string, kind: MoneyEventKind, amountMicros: number,
  opts: { note?: string; ref?: string; now: number }): Promise<{ applied: boolean; balanceMicros: number }> {
  // Money events are read in id order (WHERE id > last): they must commit in id order.
  await lockFeed(tx);
  const inserted = await tx`INSERT INTO money_events (org_id, at, kind, amount_micros, note, ref)
    VALUES (${orgId}, ${opts.now}, ${kind}, ${amountMicros}, ${opts.note ?? null}, ${opts.ref ?? null}) ON CONFLICT (ref) DO NOTHING`;
  const applied = inserted.count === 1;
  if (applied) {
    await tx`UPDATE orgs SET balance_micros = balance_micros + ${amountMicros},
      funded_at = CASE WHEN funded_at IS NULL AND ${amountMicros}::bigint > 0 THEN ${opts.now}::bigint ELSE funded_at END WHERE id = ${orgId}`;
    await recordChangePg(tx, 'org', orgId, opts.now);
  }
  const [row] = await tx<{ balance: number }[]>`SELECT balance_micros AS balance FROM orgs WHERE id = ${orgId}`;
  return { applied, balanceMicros: row.balance };
}

/**
 * Records a money event and moves the cached balance in one transaction. A positive amount marks
 * the org funded. With a ref, a repeat is ignored (idempotent): a second insert of one ref waits
 * for the first to commit and then does nothing.
 */
export function insertMoneyEventPg(sql: Pg, orgId: string, kind: MoneyEventKind, amountMicros: number,
  opts: { note?: string; ref?: string; now: number }): Promise<{ applied: boolean; balanceMicros: number }> {
  return sql.begin((tx) => applyMoneyEventPg(tx, orgId, kind, amountMicros, opts));
}

/** An org's setting is in each of its keys' looked-up records: each key is a change; their ids. */
async function keysChanged(tx: Tx, orgId: string, now: number): Promise<string[]> {
  const ids = (await tx<{ id: string }[]>`SELECT id FROM api_keys WHERE org_id = ${orgId}`).map((r) => r.id);
  for (const id of ids) await recordChangePg(tx, 'key', id, now);
  return ids;
}

/** The OrgStore on PostgreSQL. */
export function postgresOrgStore(sql: Pg): OrgStore {
  return {
    find: async (orgId) => (await sql.unsafe<Org[]>(`SELECT ${ORG} FROM orgs WHERE id = $1`, [orgId]))[0],
    defaultWorkspaceId: async (orgId) =>
      (await sql<{ id: string }[]>`SELECT id FROM workspaces WHERE org_id = ${orgId} AND is_default = 1`)[0]?.id as string,
    hasActiveWorkspace: async (orgId, workspaceId) =>
      (await sql`SELECT 1 FROM workspaces WHERE id = ${workspaceId} AND org_id = ${orgId} AND archived_at IS NULL`).length > 0,
    rename: async (orgId, name) => {
      await sql`UPDATE orgs SET name = ${name} WHERE id = ${orgId}`;
    },
    // Every instance's key cache follows the change feed: each key of the org is a change.
    setGuardrails: (orgId, policy, now) => sql.begin(async (tx) => {
      await tx`UPDATE orgs SET guardrails = ${policy} WHERE id = ${orgId}`;
      return keysChanged(tx, orgId, now);
    }),
    setCacheSettings: (orgId, patch, now) => sql.begin(async (tx) => {
      const set: Record<string, string | null> = {};
      if (patch.responseCache !== undefined) set.response_cache = patch.responseCache;
      if (patch.promptCache !== undefined) set.prompt_cache = patch.promptCache;
      if (Object.keys(set).length > 0) await tx`UPDATE orgs SET ${tx(set)} WHERE id = ${orgId}`;
      return keysChanged(tx, orgId, now);
    }),
    // Sorted as SQLite's NOCASE sorts them, whatever the database's locale.
    ownerEmails: async (orgId) => (await sql<{ email: string }[]>`SELECT u.email FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.org_id = ${orgId} AND m.role = 'owner' ORDER BY lower(u.email::text) COLLATE "C"`).map((r) => r.email),
  };
}
