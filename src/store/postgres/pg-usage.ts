import { USAGE_FIELDS, USAGE_SLOT, type UsageKind, type UsageTuple } from '../../domain/usage-record.js';
import type { TailFilter, UsageRow } from '../usage.js';
import type { Pg } from './pg-database.js';
import { batchEffects } from '../batch-effects.js';
import type { Tx } from './pg-locks.js';
import { LEDGER_LOCK, pgRollupStep } from './pg-usage-rollup.js';

/** The fields the writer reads, by their place in a row. */
const F = USAGE_SLOT;

/** Rows the writer folds per batch: its own batch (at most 1,000) and up to this many of a backlog. */
const ROLLUP_STEP_ROWS = 10_000;

const ARRAY_TYPE: Record<UsageKind, string> = {
  text: 'text[]', 'text-unique': 'text[]', 'text?': 'text[]', int: 'bigint[]', micros: 'bigint[]', ms: 'float8[]', 'ms?': 'float8[]', bool: 'bigint[]',
};

/**
 * One statement for the whole batch: a column array per field, unnested into rows. 27 parameters
 * whatever the batch size, where a multi-VALUES insert of 1,000 rows binds 27,000.
 */
const INSERT_USAGE = `INSERT INTO usage (${USAGE_FIELDS.map((f) => f.column).join(', ')})
  SELECT * FROM unnest(${USAGE_FIELDS.map((f, i) => `$${i + 1}::${ARRAY_TYPE[f.kind]}`).join(', ')})`;

/** A usage row's values by column: the insert's parameters. */
function columns(rows: UsageTuple[]): unknown[][] {
  const out: unknown[][] = USAGE_FIELDS.map(() => new Array(rows.length));
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    for (let c = 0; c < out.length; c++) out[c][r] = row[c];
  }
  return out;
}

/** How long a committed batch's id is kept to recognise its replay: a spool older than this is not expected. */
export const BATCH_IDS_KEPT_MS = 7 * 86_400_000;
/** Old ids deleted per batch at most, so a backlog of them is worked off without a long commit. */
const PRUNE_STEP = 500;

export interface PgUsageWriterOptions {
  /** false leaves the rollup behind (as rows another program writes would), for the tests of its backlog fold. */
  rollup?: boolean;
}

/**
 * The PostgreSQL twin of usageBatchWriter: one batch in one transaction, the rows with one
 * INSERT … SELECT FROM unnest(…), and with them the org balances, the key and workspace monthly
 * spend, the key daily request counts, last-used times and the reports' rollup, so everything a
 * limit or a report reads is exactly as durable as the rows. `batchId` makes a batch idempotent:
 * a batch already committed under that id (replayed from the spool after its commit's answer was
 * lost) is not written again, and 0 rows are reported for it.
 */
export function postgresUsageBatchWriter(sql: Pg, opts: PgUsageWriterOptions = {}): (rows: UsageTuple[], batchId?: string) => Promise<number> {
  const fold = opts.rollup !== false;
  return (rows, batchId) => sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${LEDGER_LOCK})`;
    if (batchId !== undefined) {
      let newest = 0;
      for (const r of rows) if ((r[F.at] as number) > newest) newest = r[F.at] as number;
      const fresh = await tx`INSERT INTO ledger_batches (id, at, rows) VALUES (${batchId}, ${newest}, ${rows.length})
        ON CONFLICT (id) DO NOTHING RETURNING id`;
      if (fresh.length === 0) return 0;
      // A step of pruning: ids older than a spool could still hold (an index range, mostly empty).
      await tx`DELETE FROM ledger_batches WHERE id IN (
        SELECT id FROM ledger_batches WHERE at < ${newest - BATCH_IDS_KEPT_MS} ORDER BY at LIMIT ${PRUNE_STEP})`;
    }
    if (rows.length === 0) return 0;
    await tx.unsafe(INSERT_USAGE, columns(rows) as never[]);
    await applyEffects(tx, rows);
    // As on SQLite: the batch (and a step of any older backlog) goes into the rollup in this commit.
    if (fold) await pgRollupStep(tx, ROLLUP_STEP_ROWS);
    return rows.length;
  });
}

/** The balances, spend, counts and last-used times a batch moves (batchEffects), one statement each. */
async function applyEffects(tx: Tx, rows: UsageTuple[]): Promise<void> {
  const e = batchEffects(rows);
  const col = <T extends unknown[]>(xs: T[], i: number) => xs.map((x) => x[i]);
  if (e.orgDebits.length > 0) {
    await tx.unsafe(`UPDATE orgs SET balance_micros = orgs.balance_micros - d.amount
      FROM unnest($1::text[], $2::bigint[]) AS d(id, amount) WHERE orgs.id = d.id`, [col(e.orgDebits, 0), col(e.orgDebits, 1)] as never[]);
  }
  if (e.monthSpend.length > 0) {
    await tx.unsafe(`INSERT INTO monthly_spend (scope_id, ist_month, spent_micros)
      SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
      ON CONFLICT (scope_id, ist_month) DO UPDATE SET spent_micros = monthly_spend.spent_micros + EXCLUDED.spent_micros`,
    [col(e.monthSpend, 0), col(e.monthSpend, 1), col(e.monthSpend, 2)] as never[]);
  }
  if (e.dayCounts.length > 0) {
    await tx.unsafe(`INSERT INTO key_daily_counts (key_id, ist_day, requests)
      SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
      ON CONFLICT (key_id, ist_day) DO UPDATE SET requests = key_daily_counts.requests + EXCLUDED.requests`,
    [col(e.dayCounts, 0), col(e.dayCounts, 1), col(e.dayCounts, 2)] as never[]);
  }
  if (e.keyLastUsed.length > 0) {
    await tx.unsafe(`UPDATE api_keys SET last_used_at = GREATEST(COALESCE(api_keys.last_used_at, 0), u.at)
      FROM unnest($1::text[], $2::bigint[]) AS u(id, at) WHERE api_keys.id = u.id`, [col(e.keyLastUsed, 0), col(e.keyLastUsed, 1)] as never[]);
  }
}

/** The PostgreSQL twin of usageTailReader (for `gw tail` against PostgreSQL). */
export function postgresUsageTailReader(sql: Pg, f: TailFilter): {
  after(id: number, limit: number): Promise<UsageRow[]>; lastId(): Promise<number>; lastN(n: number): Promise<UsageRow[]>;
} {
  const where: string[] = [];
  const args: string[] = [];
  if (f.orgId) { args.push(f.orgId); where.push(`org_id = $${args.length}`); }
  if (f.keyId) { args.push(f.keyId); where.push(`key_id = $${args.length}`); }
  if (f.model) { args.push(f.model); where.push(`model = $${args.length}`); }
  const extra = where.length ? ` AND ${where.join(' AND ')}` : '';
  const n = args.length;
  const after = `SELECT * FROM usage WHERE id > $${n + 1}${extra} ORDER BY id LIMIT $${n + 2}`;
  const last = `SELECT * FROM (SELECT * FROM usage WHERE TRUE${extra} ORDER BY id DESC LIMIT $${n + 1}) AS t ORDER BY id`;
  return {
    after: async (id, limit) => [...await sql.unsafe(after, [...args, id, limit] as never[])] as unknown as UsageRow[],
    lastN: async (count) => [...await sql.unsafe(last, [...args, count] as never[])] as unknown as UsageRow[],
    lastId: async () => (await sql`SELECT COALESCE(MAX(id), 0) AS id FROM usage`)[0].id as number,
  };
}
