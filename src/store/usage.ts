import type { Db } from './database.js';
import type { LimitsReader } from '../domain/limits-reader.js';
import { rollupFolder } from './usage-rollup.js';
import { batchEffects } from './batch-effects.js';
import { USAGE_FIELDS, type UsageColumns, type UsageTuple } from '../domain/usage-record.js';

export type { UsageTuple };

/** The insert of one record, its columns and parameters in USAGE_FIELDS order (a UsageTuple). */
const INSERT_USAGE = `INSERT INTO usage (${USAGE_FIELDS.map((f) => f.column).join(', ')})
  VALUES (${USAGE_FIELDS.map(() => '?').join(', ')})`;

/** Rows the writer folds per batch: its own batch (at most 1,000) and up to this many of a backlog. */
const ROLLUP_STEP_ROWS = 10_000;

/**
 * Writes one batch in one transaction: the usage rows, and with them the org balances, the key
 * and workspace monthly spend, the key daily request counts and last-used times, and the reports'
 * rollup. Everything a limit or a report reads after a restart is therefore exactly as durable as
 * the rows themselves. rollup: false leaves the rollup behind (as rows another program writes
 * would), for the tests of its backlog fold.
 */
export function usageBatchWriter(db: Db, opts: { rollup?: boolean } = {}): (rows: UsageTuple[]) => number {
  const insert = db.prepare(INSERT_USAGE);
  const debit = db.prepare('UPDATE orgs SET balance_micros = balance_micros - ? WHERE id = ?');
  const spend = db.prepare(`INSERT INTO monthly_spend (scope_id, ist_month, spent_micros) VALUES (?, ?, ?)
    ON CONFLICT(scope_id, ist_month) DO UPDATE SET spent_micros = spent_micros + excluded.spent_micros`);
  const daily = db.prepare(`INSERT INTO key_daily_counts (key_id, ist_day, requests) VALUES (?, ?, ?)
    ON CONFLICT(key_id, ist_day) DO UPDATE SET requests = requests + excluded.requests`);
  const lastUsed = db.prepare('UPDATE api_keys SET last_used_at = MAX(COALESCE(last_used_at, 0), ?) WHERE id = ?');
  const rollup = opts.rollup === false ? null : rollupFolder(db);

  return db.transaction((rows: UsageTuple[]) => {
    let firstId = 0;
    let lastId = 0;
    for (let i = 0; i < rows.length; i++) {
      // Spread, not the tuple: better-sqlite3 reads an array's elements through v8::Object::Get,
      // its arguments directly; 38.8k → 27.1k instructions a row inside Statement#run, 10.5k
      // fewer a row in all (callgrind, 20,000 rows in 1,000-row batches; docs/benchmarks.md).
      lastId = Number(insert.run(...rows[i]).lastInsertRowid);
      if (i === 0) firstId = lastId;
    }
    const e = batchEffects(rows);
    for (const [org, amount] of e.orgDebits) debit.run(amount, org);
    for (const [scope, month, amount] of e.monthSpend) spend.run(scope, month, amount);
    for (const [key, day, n] of e.dayCounts) daily.run(key, day, n);
    for (const [key, at] of e.keyLastUsed) lastUsed.run(at, key);
    // The batch (or a step of an older backlog) goes into the reports' rollup in the same commit:
    // the rollup never lags the ledger, and the event loop never writes it.
    rollup?.batch(rows, firstId, lastId, ROLLUP_STEP_ROWS);
    return rows.length;
  });
}

export function limitsReader(db: Db): LimitsReader {
  const daily = db.prepare('SELECT requests FROM key_daily_counts WHERE key_id = ? AND ist_day = ?').pluck();
  // Keys are never deleted (revocation only marks them), so a revoked trial key's requests still count.
  const trialDaily = db.prepare(`SELECT COALESCE(SUM(d.requests), 0) FROM api_keys k
    JOIN key_daily_counts d ON d.key_id = k.id AND d.ist_day = ? WHERE k.org_id = ? AND k.tier = 'trial'`).pluck();
  const spend = db.prepare('SELECT spent_micros FROM monthly_spend WHERE scope_id = ? AND ist_month = ?').pluck();
  const balance = db.prepare('SELECT balance_micros FROM orgs WHERE id = ?').pluck();
  const latestEvent = db.prepare('SELECT COALESCE(MAX(id), 0) FROM money_events').pluck();
  const budget = db.prepare('SELECT monthly_budget_micros FROM workspaces WHERE id = ? AND archived_at IS NULL').pluck();
  const since = db.prepare('SELECT id, org_id, amount_micros FROM money_events WHERE id > ? ORDER BY id LIMIT 1000');
  const orgSnapshot = db.transaction((orgId: string) => {
    const b = balance.get(orgId) as number | undefined;
    return b === undefined ? null : { balanceMicros: b, moneyEventId: latestEvent.get() as number };
  });
  return {
    keyDailyCount: (keyId, day) => (daily.get(keyId, day) as number | undefined) ?? 0,
    orgTrialDailyCount: (orgId, day) => trialDaily.get(day, orgId) as number,
    monthlySpend: (scopeId, month) => (spend.get(scopeId, month) as number | undefined) ?? 0,
    orgBalance: (orgId) => orgSnapshot(orgId),
    workspaceBudget: (id) => (budget.get(id) as number | null | undefined) ?? null,
    moneyEventsSince: (id) => since.all(id) as { id: number; org_id: string; amount_micros: number }[],
    latestMoneyEventId: () => latestEvent.get() as number,
  };
}

/** A usage row as SELECT * reads it. */
export type UsageRow = { id: number } & UsageColumns;

export interface TailFilter {
  orgId?: string;
  keyId?: string;
  model?: string;
}

/** Reads usage rows after an id, oldest first, with optional filters (for `gw tail`). */
export function usageTailReader(db: Db, f: TailFilter): { after(id: number, limit: number): UsageRow[]; lastId(): number; lastN(n: number): UsageRow[] } {
  const where: string[] = [];
  const args: string[] = [];
  if (f.orgId) { where.push('org_id = ?'); args.push(f.orgId); }
  if (f.keyId) { where.push('key_id = ?'); args.push(f.keyId); }
  if (f.model) { where.push('model = ?'); args.push(f.model); }
  const extra = where.length ? ` AND ${where.join(' AND ')}` : '';
  const after = db.prepare(`SELECT * FROM usage WHERE id > ?${extra} ORDER BY id LIMIT ?`);
  const last = db.prepare(`SELECT * FROM (SELECT * FROM usage WHERE 1${extra} ORDER BY id DESC LIMIT ?) ORDER BY id`);
  const maxId = db.prepare('SELECT COALESCE(MAX(id), 0) FROM usage').pluck();
  return {
    after: (id, limit) => after.all(id, ...args, limit) as UsageRow[],
    lastN: (n) => last.all(...args, n) as UsageRow[],
    lastId: () => maxId.get() as number,
  };
}

