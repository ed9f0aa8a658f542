import type { TransactionSql } from 'postgres';

export type Tx = TransactionSql;

/**
 * SQLite runs every write transaction alone (BEGIN IMMEDIATE), so a `check(facts)` rule read
 * inside one holds when it commits. PostgreSQL runs them side by side under READ COMMITTED:
 * a write whose check reads a scope's rows (an org's active keys, a user's team orgs) first
 * takes that scope's transaction-scoped advisory lock, so two writes to one scope run in turn
 * and each check sees the other's commit. Writes to different scopes still run in parallel.
 */
export async function lockScope(tx: Tx, scope: string): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(hashtextextended(${scope}, 0))`;
}

/**
 * The change feed and the money events are read by id (`WHERE seq > last`): ids are handed out
 * at insert but rows become visible at commit, so two appends could commit out of id order and
 * a reader skip the later-committing, lower id for good. Appends take one lock until commit,
 * so they commit in id order. They are rare (control-plane writes, credits).
 */
export async function lockFeed(tx: Tx): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(${0x67770002})`;
}

/** Appends to the change feed; call inside the transaction that made the change. */
export async function recordChangePg(tx: Tx, kind: 'key' | 'org' | 'workspace', ref: string, at: number): Promise<void> {
  await lockFeed(tx);
  await tx`INSERT INTO change_log (at, kind, ref) VALUES (${at}, ${kind}, ${ref})`;
}
