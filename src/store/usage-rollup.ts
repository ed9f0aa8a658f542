import type { Statement } from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import type { Db } from './database.js';
import { DAY_MS, IST_OFFSET_MS } from '../lib/ist.js';
import type { IdSpan, OrgUsage, UsageCell } from '../domain/stores/usage-report-store.js';
import type { UsageTuple } from '../domain/usage-record.js';
import { rollupBatchCells } from './rollup-batch-cells.js';

export type { IdSpan, OrgUsage, UsageCell };




type CellRow = [day: number, keyId: string, model: string, provider: string, requests: number, prompt: number, completion: number,
  cached: number, cacheWrite: number, reasoning: number, cost: number, served: number];

/** The report queries of the rollup, named so that tests and the bench can EXPLAIN exactly what runs. */
export const ROLLUP_SQL = {
  top: 'SELECT MAX(id) FROM usage',
  /** Every row of an id range summed by cell: a range of the primary key, whatever org wrote it. */
  fold: `SELECT org_id, (at + ${IST_OFFSET_MS}) / ${DAY_MS}, key_id, model, COALESCE(provider, ''), SUM(attempt = 0),
      SUM(prompt_tokens * billable), SUM(completion_tokens * billable), SUM(cached_tokens * billable), SUM(cache_write_tokens * billable),
      SUM(reasoning_tokens * billable), SUM(cost_micros * billable), SUM(billable), COUNT(*), MIN(id), MAX(id)
    FROM usage WHERE id > ? AND id <= ? GROUP BY 1, 2, 3, 4, 5`,
  cells: `SELECT day, key_id, model, provider, requests, prompt_tokens, completion_tokens, cached_tokens, cache_write_tokens,
      reasoning_tokens, cost_micros, served FROM usage_rollup WHERE org_id = ? AND day >= ? AND day <= ?`,
  span: 'SELECT MIN(min_id), MAX(max_id), COALESCE(SUM(attempts), 0) FROM usage_rollup WHERE org_id = ? AND day >= ? AND day <= ?',
} as const;

/** Folds the ledger into the rollup, inside the caller's transaction. */
export interface RollupFolder {
  /**
   * One step: the rows above the watermark, at most chunkRows of them, summed into their cells;
   * returns whether rows are left. UsageRollup calls it for a backlog.
   */
  step(chunkRows: number): boolean;
  /**
   * After the ledger writer has inserted `rows` as ids firstId to lastId: those rows summed from
   * the tuples in hand when the watermark stands right below them (the rollup has kept up, as it
   * does while this writer is the only one); otherwise a step of chunkRows, which folds a backlog
   * (rows another program wrote, or a ledger older than the rollup) first. So the rollup moves
   * with the ledger, off the event loop, under the write lock the writer already holds.
   */
  batch(rows: readonly UsageTuple[], firstId: number, lastId: number, chunkRows: number): void;
}

export function rollupFolder(db: Db): RollupFolder {
  const top = db.prepare(ROLLUP_SQL.top).pluck();
  const mark = db.prepare('SELECT last_id FROM usage_rollup_mark WHERE one = 1').pluck();
  const fold = db.prepare(ROLLUP_SQL.fold).raw();
  const upsert = db.prepare(`INSERT INTO usage_rollup (org_id, day, key_id, model, provider, requests, prompt_tokens, completion_tokens,
      cached_tokens, cache_write_tokens, reasoning_tokens, cost_micros, served, attempts, min_id, max_id)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (org_id, day, key_id, model, provider) DO UPDATE SET
      requests = requests + excluded.requests, prompt_tokens = prompt_tokens + excluded.prompt_tokens,
      completion_tokens = completion_tokens + excluded.completion_tokens, cached_tokens = cached_tokens + excluded.cached_tokens,
      cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens, reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens,
      cost_micros = cost_micros + excluded.cost_micros, served = served + excluded.served, attempts = attempts + excluded.attempts,
      min_id = MIN(min_id, excluded.min_id), max_id = MAX(max_id, excluded.max_id)`);
  const setMark = db.prepare('UPDATE usage_rollup_mark SET last_id = ? WHERE one = 1');
  const step = (chunkRows: number): boolean => {
    const last = (top.get() as number | null) ?? 0;
    const from = mark.get() as number;
    if (last <= from) return false;
    const to = Math.min(last, from + chunkRows);
    for (const cell of fold.all(from, to) as unknown[][]) upsert.run(cell);
    setMark.run(to);
    return to < last;
  };
  return {
    step,
    batch(rows, firstId, lastId, chunkRows) {
      const cells = rows.length > 0 && lastId - firstId + 1 === rows.length && mark.get() === firstId - 1
        ? rollupBatchCells(rows, firstId) : null;
      if (cells === null) {
        step(chunkRows);
        return;
      }
      for (const cell of cells) upsert.run(...cell);
      setMark.run(lastId);
    },
  };
}

export interface UsageRollupOptions {
  /** Row ids folded per synchronous step; the event loop runs between steps. */
  chunkRows?: number;
  /** How often start() folds in new rows. */
  followMs?: number;
  /** Cells kept in memory for ranges read again (the page's calls, a reload), across orgs. */
  cacheCells?: number;
  /** A background fold failed (the database busy past its timeout); the next one retries. */
  onError?: (e: unknown) => void;
}

/**
 * The ledger aggregated by IST day, org, key, model and provider, in the usage_rollup table,
 * brought up to date by folding in the rows above a watermark (a range of the primary key):
 * every read first, and start() in the background, so a read seldom has more than a few
 * seconds' rows to fold. Row ids only grow and rows are never updated, so this is exact: every
 * committed row is counted once, whichever process wrote it.
 *
 * Why not aggregate the usage table on every read: at 1,000,000 rows a GROUP BY over the 30-day
 * range (500,000 rows) took 470-660 ms (bench/reports.bench.ts), all of it blocking the event
 * loop the data plane runs on. Why in the database rather than in memory (as before): the
 * in-memory rollup folded an org's whole history on its first read after every start, 2.2 s
 * for a million rows, measured through GET /me/activity (test/e2e/dashboard-usage-scale.test.ts);
 * from the table that read takes milliseconds. A step of 10,000 rows costs about 15 ms. Reading
 * a 30-day range of 6,000 cells costs 12-40 ms (load average 5-9 on 2 cores), so the cells of
 * ranges read recently are kept while their span (highest id, row count) is unchanged: 0.6 ms.
 */
export class UsageRollup {
  readonly #chunkRows: number;
  readonly #followMs: number;
  readonly #onError: (e: unknown) => void;
  readonly #top: Statement<unknown[]>;
  readonly #mark: Statement<unknown[]>;
  readonly #cells: Statement<unknown[]>;
  readonly #span: Statement<unknown[]>;
  readonly #step: (chunkRows: number) => boolean;
  /** The cells of an org's range, with the span they were read at. */
  readonly #recent: LRUCache<string, { hi: number; rows: number; cells: UsageCell[] }>;
  #running: Promise<void> | null = null;
  #again: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;

  constructor(db: Db, opts: UsageRollupOptions = {}) {
    this.#chunkRows = opts.chunkRows ?? 10_000;
    this.#followMs = opts.followMs ?? 2_000;
    this.#onError = opts.onError ?? (() => {});
    this.#recent = new LRUCache({ maxSize: opts.cacheCells ?? 100_000, sizeCalculation: (v) => Math.max(1, v.cells.length) });
    this.#top = db.prepare(ROLLUP_SQL.top).pluck();
    this.#mark = db.prepare('SELECT last_id FROM usage_rollup_mark WHERE one = 1').pluck();
    this.#cells = db.prepare(ROLLUP_SQL.cells).raw();
    this.#span = db.prepare(ROLLUP_SQL.span).raw();
    const { step } = rollupFolder(db);
    // IMMEDIATE: the write lock is taken at BEGIN (waiting for the ledger writer's batch), not on
    // the first write, where WAL would refuse a snapshot that another commit has made stale.
    const fold = db.transaction((chunk: number) => step(chunk));
    this.#step = (chunk) => fold.immediate(chunk);
  }

  /** The org's usage, including every row committed before this call. */
  async read(orgId: string): Promise<OrgUsage> {
    await this.catchUp();
    const span = (fromDay: number, toDay: number): IdSpan => {
      const [lo, hi, rows] = this.#span.get(orgId, fromDay, toDay) as [number | null, number | null, number];
      return { lo: lo ?? Infinity, hi: hi ?? -Infinity, rows };
    };
    return {
      span,
      cells: (fromDay, toDay) => {
        // A row folded into a range raises its highest id (ids only grow), so the same span
        // means the same cells: the page's /me/usage and /me/activity read 30 days once.
        const { hi, rows } = span(fromDay, toDay);
        const key = `${orgId}\u0000${fromDay}\u0000${toDay}`;
        const seen = this.#recent.get(key);
        if (seen !== undefined && seen.hi === hi && seen.rows === rows) return seen.cells;
        const cells = (this.#cells.all(orgId, fromDay, toDay) as CellRow[]).map(cellOf);
        this.#recent.set(key, { hi, rows, cells });
        return cells;
      },
    };
  }

  /** The last row id folded in: rows above it are not in the rollup yet. */
  mark(): number {
    return this.#mark.get() as number;
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
    // The run under way may already have looked for its last rows: one more after it, shared by
    // every caller that arrives meanwhile.
    this.#again ??= this.#running.then(() => undefined, () => undefined).then(() => {
      this.#again = null;
      return this.catchUp();
    });
    return this.#again;
  }

  async #foldAll(): Promise<void> {
    // Cheap when the ledger writer has kept up (it folds each batch it commits): two reads.
    if (((this.#top.get() as number | null) ?? 0) <= this.mark()) return;
    while (this.#step(this.#chunkRows)) await new Promise((resolve) => setImmediate(resolve));
  }

  /**
   * Every followMs, folds in rows the ledger writer did not (a ledger from before the rollup,
   * rows written by another program); while the writer keeps up, a tick is two reads.
   */
  start(): void {
    if (this.#timer !== null) return;
    const tick = () => void this.catchUp().catch(this.#onError);
    tick();
    this.#timer = setInterval(tick, this.#followMs);
    this.#timer.unref();
  }

  /** Stops following and waits for a fold under way (before the database closes). */
  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await Promise.allSettled([this.#running, this.#again]);
  }
}

function cellOf(r: CellRow): UsageCell {
  return {
    day: r[0], keyId: r[1], model: r[2], provider: r[3] === '' ? null : r[3], requests: r[4], promptTokens: r[5], completionTokens: r[6],
    cachedTokens: r[7], cacheWriteTokens: r[8], reasoningTokens: r[9], costMicros: r[10], served: r[11],
  };
}
