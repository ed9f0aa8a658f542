// The ledger's store over either backend, for the suites that run over SQLite and PostgreSQL:
// one way to seed a key, write a batch, read rows back and start a test again on empty tables.
import type { UsageTuple } from '../../src/domain/usage-record.js';
import { newId } from '../../src/lib/ids.js';
import { insertKey } from '../../src/store/keys.js';
import { postgresUsageBatchWriter } from '../../src/store/postgres/pg-usage.js';
import { usageBatchWriter } from '../../src/store/usage.js';
import type { StoreBackend } from './store-backends.js';

/** `?` placeholders as PostgreSQL numbers them. */
const numbered = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

/** Rows of a query written once with `?` placeholders, from either backend. */
export async function query<T = Record<string, any>>(be: StoreBackend, text: string, ...args: unknown[]): Promise<T[]> {
  if (be.db) return be.db.prepare(text).all(...args) as T[];
  return [...await be.pg!.unsafe(numbered(text), args as never[])] as T[];
}

/** The first column of the first row. */
export async function scalar<T = number>(be: StoreBackend, text: string, ...args: unknown[]): Promise<T> {
  const [row] = await query(be, text, ...args);
  return (row === undefined ? undefined : Object.values(row)[0]) as T;
}

/** A key of the org, as key creation leaves it. */
export async function seedKey(be: StoreBackend, orgId: string, workspaceId: string, name = 'k'): Promise<string> {
  if (be.db) return insertKey(be.db, { orgId, workspaceId, name, tier: 'standard' }, Date.now()).id;
  const id = newId('key');
  await be.pg!`INSERT INTO api_keys (id, org_id, workspace_id, name, hash, prefix, tier, created_at)
    VALUES (${id}, ${orgId}, ${workspaceId}, ${name}, ${newId('h')}, ${`gw-${id.slice(-6)}`}, 'standard', ${Date.now()})`;
  return id;
}

/** The backend's ledger writer, awaited the same way on both. */
export function usageWriter(be: StoreBackend, opts: { rollup?: boolean } = {}): (rows: UsageTuple[]) => Promise<number> {
  return be.pick(
    (db) => { const w = usageBatchWriter(db, opts); return async (rows: UsageTuple[]) => w(rows); },
    (pg) => postgresUsageBatchWriter(pg, opts),
  );
}

/** Empties the ledger and its rollup, ids starting again at 1, as a fresh database has them. */
export async function resetLedger(be: StoreBackend): Promise<void> {
  if (be.db) {
    be.db.exec('DELETE FROM usage; DELETE FROM usage_rollup; UPDATE usage_rollup_mark SET last_id = 0; DELETE FROM key_daily_counts; DELETE FROM monthly_spend');
    return;
  }
  await be.pg!.unsafe(`TRUNCATE usage, usage_rollup, key_daily_counts, monthly_spend, ledger_batches RESTART IDENTITY;
    UPDATE usage_rollup_mark SET last_id = 0`);
}
