import type { Statement } from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import type { Db } from './database.js';
import type { UsageRow } from './usage.js';
import { IST_OFFSET_MS } from '../lib/ist.js';

const DAY_MS = 86_400_000;

/** The IST calendar day of an instant as a day number (days since 1970-01-01 IST). */
export function istDayNumber(ms: number): number {
  return Math.floor((ms + IST_OFFSET_MS) / DAY_MS);
}

/** `YYYY-MM-DD` of an IST day number. */
export function istDayLabel(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/**
 * One cell of the usage rollup: an IST day × key × model × provider. `requests` counts first
 * attempts (attempt = 0, a request's row under the provider tried first); tokens, cost and
 * `served` come from billable rows (under the provider that served).
 */
export interface UsageCell {
  day: number;
  keyId: string;
  model: string;
  provider: string | null;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  /** Of promptTokens: read from the provider's cache. */
  cachedTokens: number;
  /** Of promptTokens: written to the provider's cache. */
  cacheWriteTokens: number;
  /** Of completionTokens: reasoning. */
  reasoningTokens: number;
  costMicros: number;
  served: number;
}

type FoldRow = [day: number, keyId: string, model: string, provider: string | null, requests: number,
  prompt: number, completion: number, cost: number, served: number, maxId: number, cached: number, cacheWrite: number, reasoning: number];

/** What a report reads from an org's rollup: the cells of the IST days from..to, inclusive. */
export interface OrgUsage {
  cells(fromDay: number, toDay: number): Iterable<UsageCell>;
}

/**
 * Names interned per org make a cell's map key a number rather than a fresh string: 140 instead
 * of 349 bytes a cell, measured over 200,000 cells.
 */
const NAME_LIMIT = 131_072;

class OrgRollup implements OrgUsage {
  /** Every usage row of the org with id <= lastId is in the cells; later rows are not. */
  lastId = 0;
  size = 0;
  readonly days = new Map<number, Map<number | string, UsageCell>>();
  readonly #ids = new Map<string, number>();
  readonly #names: string[] = [];

  #intern(name: string): number {
    let i = this.#ids.get(name);
    if (i === undefined) {
      i = this.#names.push(name);
      this.#ids.set(name, i);
    }
    return i;
  }

  merge(rows: FoldRow[]): void {
    for (const [day, keyId, model, provider, requests, prompt, completion, cost, served, maxId, cached, cacheWrite, reasoning] of rows) {
      let cells = this.days.get(day);
      if (cells === undefined) this.days.set(day, (cells = new Map()));
      const ki = this.#intern(keyId);
      const mi = this.#intern(model);
      const pi = provider === null ? 0 : this.#intern(provider);
      const k = ki < NAME_LIMIT && mi < NAME_LIMIT && pi < NAME_LIMIT ? (ki * NAME_LIMIT + mi) * NAME_LIMIT + pi : `${ki}:${mi}:${pi}`;
      const c = cells.get(k);
      if (c === undefined) {
        cells.set(k, {
          day, keyId: this.#names[ki - 1], model: this.#names[mi - 1], provider: pi === 0 ? null : this.#names[pi - 1],
          requests, promptTokens: prompt, completionTokens: completion, cachedTokens: cached, cacheWriteTokens: cacheWrite,
          reasoningTokens: reasoning, costMicros: cost, served,
        });
        this.size++;
      } else {
        c.requests += requests;
        c.promptTokens += prompt;
        c.completionTokens += completion;
        c.cachedTokens += cached;
        c.cacheWriteTokens += cacheWrite;
        c.reasoningTokens += reasoning;
        c.costMicros += cost;
        c.served += served;
      }
      if (maxId > this.lastId) this.lastId = maxId;
    }
  }

  *cells(fromDay: number, toDay: number): Iterable<UsageCell> {
    for (const [day, cells] of this.days) if (day >= fromDay && day <= toDay) yield* cells.values();
  }
}

const FOLD = `SELECT (at + ${IST_OFFSET_MS}) / ${DAY_MS}, key_id, model, provider, SUM(attempt = 0),
  SUM(prompt_tokens * billable), SUM(completion_tokens * billable), SUM(cost_micros * billable), SUM(billable), MAX(id),
  SUM(cached_tokens * billable), SUM(cache_write_tokens * billable), SUM(reasoning_tokens * billable)
  FROM usage WHERE org_id = ? AND id > ?`;

/** The report queries, named so that tests and the bench can EXPLAIN exactly what runs. */
const SQL = {
  /** The id `OFFSET` org rows past the watermark: the end of the next fold step. */
  chunkEnd: 'SELECT id FROM usage WHERE org_id = ? AND id > ? ORDER BY id LIMIT 1 OFFSET ?',
  foldRange: `${FOLD} AND id <= ? GROUP BY 1, 2, 3, 4`,
  foldRest: `${FOLD} GROUP BY 1, 2, 3, 4`,
  /** The id `OFFSET` org rows below a cursor: how far a filtered events page may look. */
  eventsFloor: 'SELECT id FROM usage WHERE org_id = ? AND id < ? ORDER BY id DESC LIMIT 1 OFFSET ?',
} as const;

export interface UsageRollupOptions {
  /** Org rows folded per synchronous step; the event loop runs between steps. */
  chunkRows?: number;
  /** Cells kept in memory across all orgs; the least recently read orgs are dropped first. */
  maxCells?: number;
}

/**
 * Per-org usage aggregated by IST day, key, model and provider, kept in memory and brought up to
 * date on every read by folding in only the rows added since (`id > lastId`, a range of
 * usage_by_org_id). Row ids only grow and rows are never updated, so this is exact: every
 * committed row is counted once.
 *
 * Why not aggregate the usage table on every read: at 1,000,000 rows a GROUP BY over the 30-day
 * range (500,000 rows) took 470-660 ms, on usage_by_org_time and on a trial covering index alike
 * (bench/reports.bench.ts), all of it blocking the event loop the data plane runs on. Here the
 * first read of an org after a start folds its whole history (about 2.5 s per million rows) in
 * steps of `chunkRows` rows (10,000: about 15 ms each on an idle core), yielding between steps;
 * after that a read costs only the rows added since the previous one.
 */
export class UsageRollup {
  readonly #chunkRows: number;
  readonly #chunkEnd: Statement<unknown[]>;
  readonly #foldRange: Statement<unknown[]>;
  readonly #foldRest: Statement<unknown[]>;
  readonly #orgs: LRUCache<string, OrgRollup>;
  readonly #running = new Map<string, Promise<OrgRollup>>();

  constructor(db: Db, opts: UsageRollupOptions = {}) {
    this.#chunkRows = opts.chunkRows ?? 10_000;
    this.#orgs = new LRUCache({ maxSize: opts.maxCells ?? 200_000, sizeCalculation: (o) => Math.max(1, o.size) });
    this.#chunkEnd = db.prepare(SQL.chunkEnd).pluck();
    this.#foldRange = db.prepare(SQL.foldRange).raw();
    this.#foldRest = db.prepare(SQL.foldRest).raw();
  }

  /** The org's rollup including every row committed before this call. */
  read(orgId: string): Promise<OrgUsage> {
    // One refresh per org at a time; a caller that arrives during one runs its own after it, so
    // it also sees rows committed after the earlier refresh began.
    const before = this.#running.get(orgId);
    const run = before === undefined ? this.#refresh(orgId) : before.then(() => this.#refresh(orgId), () => this.#refresh(orgId));
    this.#running.set(orgId, run);
    const done = () => {
      if (this.#running.get(orgId) === run) this.#running.delete(orgId);
    };
    run.then(done, done);
    return run;
  }

  async #refresh(orgId: string): Promise<OrgRollup> {
    const org = this.#orgs.get(orgId) ?? new OrgRollup();
    for (;;) {
      const end = this.#chunkEnd.get(orgId, org.lastId, this.#chunkRows - 1) as number | undefined;
      if (end === undefined) {
        org.merge(this.#foldRest.all(orgId, org.lastId) as FoldRow[]);
        break;
      }
      org.merge(this.#foldRange.all(orgId, org.lastId, end) as FoldRow[]);
      org.lastId = Math.max(org.lastId, end);
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.#orgs.set(orgId, org);
    return org;
  }
}

export interface OrgKey {
  id: string;
  prefix: string;
  name: string;
  revoked_at: number | null;
  expires_at: number | null;
}

/** The org's keys, oldest first, revoked ones included (their usage still shows). */
export function orgKeysReader(db: Db): (orgId: string) => OrgKey[] {
  const stmt = db.prepare('SELECT id, prefix, name, revoked_at, expires_at FROM api_keys WHERE org_id = ? ORDER BY created_at, id');
  return (orgId) => stmt.all(orgId) as OrgKey[];
}

/** A usage row as the events feed shows it: without org, workspace and route, with the key's prefix. */
export type UsageEventRow = Omit<UsageRow, 'org_id' | 'workspace_id' | 'route'> & { key_prefix: string | null };

export interface EventFilter {
  model?: string;
  keyId?: string;
  /** 'ok' = 2xx, 'error' = anything else, a number = that status. */
  status?: 'ok' | 'error' | number;
}

export interface EventPage {
  rows: UsageEventRow[];
  /** Continue with rows whose id is below this; null when no rows are left. */
  nextBefore: number | null;
}

function eventsSql(f: EventFilter, floored: boolean): string {
  const where = ['u.org_id = ?', 'u.id < ?'];
  if (floored) where.push('u.id >= ?');
  if (f.model !== undefined) where.push('+u.model = ?');
  if (f.keyId !== undefined) where.push('+u.key_id = ?');
  if (f.status === 'ok') where.push('+u.status BETWEEN 200 AND 299');
  else if (f.status === 'error') where.push('+u.status NOT BETWEEN 200 AND 299');
  else if (f.status !== undefined) where.push('+u.status = ?');
  return `SELECT u.id, u.at, u.request_id, u.key_id, k.prefix AS key_prefix, u.endpoint, u.model, u.provider, u.attempt,
      u.status, u.error_code, u.prompt_tokens, u.completion_tokens, u.cost_micros, u.latency_ms, u.ttfb_ms, u.streamed, u.byok, u.billable,
      u.usage_estimated, u.units, u.usage_clamped, u.cached_tokens, u.cache_write_tokens, u.reasoning_tokens
    FROM usage u LEFT JOIN api_keys k ON k.id = u.key_id AND k.org_id = u.org_id
    WHERE ${where.join(' AND ')} ORDER BY u.id DESC LIMIT ?`;
}

/**
 * Usage rows of an org, newest first, below a row id (keyset on usage_by_org_id, so rows added
 * meanwhile never shift a page). The filters are residual (the unary `+` keeps the planner on
 * (org_id, id) rather than usage_by_key_time, which would need a sort), so a filtered page looks
 * at no more than `scanRows` rows: a rare filter value then yields a short page whose cursor
 * continues below the rows already looked at, instead of one read walking the org's history.
 */
export function usageEventsReader(db: Db, scanRows = 20_000): (orgId: string, before: number, limit: number, f: EventFilter) => EventPage {
  const floorStmt = db.prepare(SQL.eventsFloor).pluck();
  const shapes = new Map<string, Statement<unknown[]>>();
  const statement = (f: EventFilter, floored: boolean) => {
    const shape = `${f.model === undefined ? 0 : 1}${f.keyId === undefined ? 0 : 1}${f.status === undefined ? '-' : typeof f.status === 'number' ? 'n' : f.status}${floored ? 1 : 0}`;
    let stmt = shapes.get(shape);
    if (stmt === undefined) {
      stmt = db.prepare(eventsSql(f, floored));
      shapes.set(shape, stmt);
    }
    return stmt;
  };
  return (orgId, before, limit, f) => {
    const filtered = f.model !== undefined || f.keyId !== undefined || f.status !== undefined;
    const floor = filtered ? (floorStmt.get(orgId, before, scanRows - 1) as number | undefined) : undefined;
    const args: (string | number)[] = [orgId, before];
    if (floor !== undefined) args.push(floor);
    if (f.model !== undefined) args.push(f.model);
    if (f.keyId !== undefined) args.push(f.keyId);
    if (typeof f.status === 'number') args.push(f.status);
    const rows = statement(f, floor !== undefined).all(...args, limit + 1) as UsageEventRow[];
    if (rows.length > limit) {
      rows.length = limit;
      return { rows, nextBefore: rows[limit - 1].id };
    }
    // A short page: the end of the org's rows, or of the rows this page was allowed to look at.
    return { rows, nextBefore: floor ?? null };
  };
}

/** EXPLAIN QUERY PLAN of every report query, one line per step: tests and the bench assert index use. */
export function reportQueryPlans(db: Db): Record<string, string> {
  const plan = (sql: string) => {
    const params = (sql.match(/\?/g) ?? []).map(() => 1);
    return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('; ');
  };
  const out: Record<string, string> = {};
  for (const [name, sql] of Object.entries(SQL)) out[name] = plan(sql);
  out.events = plan(eventsSql({}, false));
  out.eventsFiltered = plan(eventsSql({ model: 'm', keyId: 'k', status: 'error' }, true));
  return out;
}
