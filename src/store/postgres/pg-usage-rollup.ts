import { LRUCache } from 'lru-cache';
import { DAY_MS, IST_OFFSET_MS } from '../../lib/ist.js';
import type { IdSpan, OrgUsage, UsageCell } from '../../domain/stores/usage-report-store.js';
import type { UsageRollupOptions } from '../usage-rollup.js';
import type { Pg } from './pg-database.js';
import type { Tx } from './pg-locks.js';

/**
 * The ledger's lock: every usage insert and every fold of the rollup takes it until commit, so
 * usage ids commit in id order across every gateway instance. The rollup's watermark and `gw
 * tail` read rows by id (`WHERE id > last`); without it, two writers' batches could commit out
 * of id order and a reader skip the lower ids for good, as lockFeed says of the change feed.
 * It serialises the ledger's commits, not the gateways: each instance has one writer, and a
 * batch of 1,000 rows holds the lock for a few milliseconds.
 */
export const LEDGER_LOCK = 0x67770003;

/**
 * The rows of an id range summed by cell and added to the rollup in one statement (SQLite's
 * fold reads the sums back and upserts them a cell at a time). Integer division truncates, as
 * SQLite's does; the SUMs are NUMERIC, cast back to BIGINT on insert.
 */
const FOLD = `INSERT INTO usage_rollup (org_id, day, key_id, model, provider, requests, prompt_tokens, completion_tokens,
    cached_tokens, cache_write_tokens, reasoning_tokens, cost_micros, served, attempts, min_id, max_id)
  SELECT org_id, (at + ${IST_OFFSET_MS}) / ${DAY_MS}, key_id, model, COALESCE(provider, ''), SUM(CASE WHEN attempt = 0 THEN 1 ELSE 0 END),
    SUM(prompt_tokens * billable), SUM(completion_tokens * billable), SUM(cached_tokens * billable), SUM(cache_write_tokens * billable),
    SUM(reasoning_tokens * billable), SUM(cost_micros * billable), SUM(billable), COUNT(*), MIN(id), MAX(id)
  FROM usage WHERE id > $1 AND id <= $2 GROUP BY 1, 2, 3, 4, 5
  ON CONFLICT (org_id, day, key_id, model, provider) DO UPDATE SET
    requests = usage_rollup.requests + EXCLUDED.requests, prompt_tokens = usage_rollup.prompt_tokens + EXCLUDED.prompt_tokens,
    completion_tokens = usage_rollup.completion_tokens + EXCLUDED.completion_tokens,
    cached_tokens = usage_rollup.cached_tokens + EXCLUDED.cached_tokens,
    cache_write_tokens = usage_rollup.cache_write_tokens + EXCLUDED.cache_write_tokens,
    reasoning_tokens = usage_rollup.reasoning_tokens + EXCLUDED.reasoning_tokens,
    cost_micros = usage_rollup.cost_micros + EXCLUDED.cost_micros, served = usage_rollup.served + EXCLUDED.served,
    attempts = usage_rollup.attempts + EXCLUDED.attempts,
    min_id = LEAST(usage_rollup.min_id, EXCLUDED.min_id), max_id = GREATEST(usage_rollup.max_id, EXCLUDED.max_id)`;

/**
 * One step of the fold inside the caller's transaction, which holds the ledger lock (so no
 * batch commits below the watermark meanwhile, and two folders take turns): the rows above the
 * watermark, at most chunkRows of them. Returns whether rows are left, and the new watermark.
 */
export async function pgRollupStep(tx: Tx, chunkRows: number): Promise<{ more: boolean; mark: number }> {
  const [{ top }] = await tx`SELECT COALESCE(MAX(id), 0) AS top FROM usage`;
  const [{ from }] = await tx`SELECT last_id AS "from" FROM usage_rollup_mark WHERE one = 1`;
  if (top <= from) return { more: false, mark: from };
  const to = Math.min(top, from + chunkRows);
  await tx.unsafe(FOLD, [from, to]);
  await tx`UPDATE usage_rollup_mark SET last_id = ${to} WHERE one = 1`;
  return { more: to < top, mark: to };
}

type CellRow = {
  day: number; key_id: string; model: string; provider: string; requests: number; prompt_tokens: number; completion_tokens: number;
  cached_tokens: number; cache_write_tokens: number; reasoning_tokens: number; cost_micros: number; served: number;
  attempts: number; min_id: number; max_id: number;
};

/** An org's cells, all days, with what each adds to a span. */
interface OrgCells {
  hi: number;
  rows: number;
  cells: { cell: UsageCell; attempts: number; minId: number; maxId: number }[];
}

/**
 * The PostgreSQL twin of UsageRollup: the same table, watermark and fold, in steps, each in its
 * own transaction under the ledger lock. OrgUsage answers synchronously, so a read loads the
 * org's cells (every day) and answers ranges from memory; the cells are kept while the org's
 * span (highest id, row count) is unchanged, which one indexed aggregate over the org's cells
 * tells. mark() is the watermark as last seen by this process (read at each catch-up).
 */
export class PgUsageRollup {
  readonly #sql: Pg;
  readonly #chunkRows: number;
  readonly #followMs: number;
  readonly #onError: (e: unknown) => void;
  readonly #recent: LRUCache<string, OrgCells>;
  #mark = 0;
  #running: Promise<void> | null = null;
  #again: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;

  constructor(sql: Pg, opts: UsageRollupOptions = {}) {
    this.#sql = sql;
    this.#chunkRows = opts.chunkRows ?? 10_000;
    this.#followMs = opts.followMs ?? 2_000;
    this.#onError = opts.onError ?? (() => {});
    this.#recent = new LRUCache({ maxSize: opts.cacheCells ?? 100_000, sizeCalculation: (v) => Math.max(1, v.cells.length) });
  }

  async read(orgId: string): Promise<OrgUsage> {
    await this.catchUp();
    const [whole] = await this.#sql`SELECT COALESCE(MAX(max_id), 0) AS hi, COALESCE(SUM(attempts), 0) AS rows
      FROM usage_rollup WHERE org_id = ${orgId}`;
    let org = this.#recent.get(orgId);
    if (org === undefined || org.hi !== whole.hi || org.rows !== whole.rows) {
      const rows = await this.#sql<CellRow[]>`SELECT day, key_id, model, provider, requests, prompt_tokens, completion_tokens, cached_tokens,
        cache_write_tokens, reasoning_tokens, cost_micros, served, attempts, min_id, max_id FROM usage_rollup WHERE org_id = ${orgId}`;
      org = { hi: whole.hi, rows: whole.rows, cells: rows.map((r) => ({ cell: cellOf(r), attempts: r.attempts, minId: r.min_id, maxId: r.max_id })) };
      this.#recent.set(orgId, org);
    }
    const cells = org.cells;
    return {
      cells: (fromDay, toDay) => cells.filter((c) => c.cell.day >= fromDay && c.cell.day <= toDay).map((c) => c.cell),
      span: (fromDay, toDay): IdSpan => {
        let lo = Infinity;
        let hi = -Infinity;
        let n = 0;
        for (const c of cells) {
          if (c.cell.day < fromDay || c.cell.day > toDay) continue;
          if (c.minId < lo) lo = c.minId;
          if (c.maxId > hi) hi = c.maxId;
          n += c.attempts;
        }
        return { lo, hi, rows: n };
      },
    };
  }

  /** The last row id folded in, as this process last saw it: rows above it are not in the rollup yet. */
  mark(): number {
    return this.#mark;
  }

  /** Reads the watermark from the database (another process's writer may have moved it). */
  async refreshMark(): Promise<number> {
    const [{ mark }] = await this.#sql`SELECT last_id AS mark FROM usage_rollup_mark WHERE one = 1`;
    this.#mark = Math.max(this.#mark, mark);
    return this.#mark;
  }

  /** Folds in every row committed before this call. */
  catchUp(): Promise<void> {
    if (this.#running === null) {
      const run = this.#foldAll().finally(() => {
        this.#running = null;
      });
      this.#running = run;
      return run;
    }
    this.#again ??= this.#running.then(() => undefined, () => undefined).then(() => {
      this.#again = null;
      return this.catchUp();
    });
    return this.#again;
  }

  async #foldAll(): Promise<void> {
    // Cheap when the ledger writers have kept up (they fold each batch they commit): one read.
    const [{ behind }] = await this.#sql`SELECT COALESCE((SELECT MAX(id) FROM usage), 0) > last_id AS behind, last_id
      FROM usage_rollup_mark WHERE one = 1`;
    if (!behind) {
      await this.refreshMark();
      return;
    }
    for (;;) {
      const step = await this.#sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(${LEDGER_LOCK})`;
        return pgRollupStep(tx, this.#chunkRows);
      });
      this.#mark = Math.max(this.#mark, step.mark);
      if (!step.more) return;
    }
  }

  start(): void {
    if (this.#timer !== null) return;
    const tick = () => void this.catchUp().catch(this.#onError);
    tick();
    this.#timer = setInterval(tick, this.#followMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await Promise.allSettled([this.#running, this.#again]);
  }
}

function cellOf(r: CellRow): UsageCell {
  return {
    day: r.day, keyId: r.key_id, model: r.model, provider: r.provider === '' ? null : r.provider, requests: r.requests,
    promptTokens: r.prompt_tokens, completionTokens: r.completion_tokens, cachedTokens: r.cached_tokens, cacheWriteTokens: r.cache_write_tokens,
    reasoningTokens: r.reasoning_tokens, costMicros: r.cost_micros, served: r.served,
  };
}
