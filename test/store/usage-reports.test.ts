import * as assert from 'uvu/assert';
import type { EventFilter, EventPage } from '../../src/domain/stores/usage-report-store.js';
import { IST_OFFSET_MS, istDay, istDayLabel, istDayNumber, istDayStart } from '../../src/lib/ist.js';
import { pgUsageEventsReader } from '../../src/store/postgres/pg-usage-reports.js';
import { PgUsageRollup } from '../../src/store/postgres/pg-usage-rollup.js';
import { USAGE_SLOT } from '../../src/domain/usage-record.js';
import {
  reportQueryPlans, usageEventsReader, UsageRollup, type OrgUsage, type UsageRollupOptions,
} from '../../src/store/usage-reports.js';
import type { UsageTuple } from '../../src/store/usage.js';
import { query, resetLedger, scalar, seedKey, usageWriter } from '../support/ledger-backends.js';
import { eachBackend } from '../support/store-backends.js';

const DAY = 86_400_000;
const MODELS = ['m-a', 'm-b', 'm-c'];
const PROVIDERS = ['groq', 'together', null];

eachBackend('usage reports', (test, be) => {
  let write: (rows: UsageTuple[]) => Promise<number>;
  let orgA: { orgId: string; workspaceId: string; keys: string[] };
  let orgB: { orgId: string; workspaceId: string; keys: string[] };
  let all: UsageTuple[];
  let seed: number;
  const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];

  async function org(name: string) {
    const o = await be().org(name);
    const keys: string[] = [];
    for (const i of [0, 1, 2]) keys.push(await seedKey(be(), o.orgId, o.workspaceId, `k${i}`));
    return { ...o, keys };
  }

  /** This backend's rollup. */
  type Rollup = UsageRollup | PgUsageRollup;
  const newRollup = (opts: UsageRollupOptions = {}): Rollup => be().pick<Rollup>((db) => new UsageRollup(db, opts), (pg) => new PgUsageRollup(pg, opts));
  /** The watermark as the database has it (PgUsageRollup.mark() is this process's last sight of it). */
  const markOf = async (r: Rollup): Promise<number> => (r instanceof PgUsageRollup ? r.refreshMark() : r.mark());
  const eventsReader = (scanRows?: number) => be().pick<(orgId: string, before: number, limit: number, f: EventFilter) => Promise<EventPage>>(
    (db) => { const read = usageEventsReader(db, scanRows); return async (...a) => read(...a); },
    (pg) => pgUsageEventsReader(pg, scanRows));

  /** n random rows over 40 IST days, a quarter of them within a second of an IST midnight. */
  function rows(n: number, o = orgA, base = istDayStart('2025-03-01')): UsageTuple[] {
    const out: UsageTuple[] = [];
    for (let i = 0; i < n; i++) {
      const day = base + Math.floor(rand() * 40) * DAY;
      const at = rand() < 0.25 ? day + Math.floor(rand() * 2_000) - 1_000 : day + Math.floor(rand() * DAY);
      const billable = rand() < 0.8 ? 1 : 0;
      const status = billable ? 200 : pick([429, 500, 502, 499]);
      out.push([at, `req_${out.length}_${rand()}`, o.orgId, o.workspaceId, pick(o.keys), 'chat', pick(MODELS), pick(PROVIDERS), null,
        rand() < 0.7 ? 0 : 1, status, billable ? null : 'upstream_error', billable ? 1 + Math.floor(rand() * 100) : 0,
        billable ? Math.floor(rand() * 50) : 0, billable ? Math.floor(rand() * 5_000) : 0, 10, null, 0, 0, billable as 0 | 1, 0, 0, 0, 0, 0, 0, 0, null, 0]);
    }
    return out;
  }

  async function add(r: UsageTuple[]): Promise<void> {
    await write(r);
    all.push(...r);
  }

  /** The rollup's cells, as sorted lines, for the days from..to. */
  function cellsOf(u: OrgUsage, from = -1e9, to = 1e9): string[] {
    return [...u.cells(from, to)].map((c) => [istDayLabel(c.day), c.keyId, c.model, c.provider, c.requests, c.promptTokens,
      c.completionTokens, c.costMicros, c.served].join(' ')).sort();
  }

  /** The same cells computed the plain way, from the rows as written. */
  function expected(orgId: string): string[] {
    const m = new Map<string, number[]>();
    for (const r of all) {
      if (r[2] !== orgId) continue;
      const k = [istDay(r[0]), r[4], r[6], r[7]].join(' ');
      const t = m.get(k) ?? [0, 0, 0, 0, 0];
      if (r[9] === 0) t[0]++;
      if (r[19] === 1) {
        t[1] += r[12];
        t[2] += r[13];
        t[3] += r[14];
        t[4]++;
      }
      m.set(k, t);
    }
    return [...m].map(([k, t]) => `${k} ${t.join(' ')}`).sort();
  }

  test.before.each(async () => {
    // Each test starts on an empty ledger whose ids start at 1, as a fresh database's do.
    await resetLedger(be());
    // Rows as a ledger from before the rollup, or another program, would leave them: not folded yet.
    write = usageWriter(be(), { rollup: false });
    seed = 7;
    all = [];
    orgA = await org('a');
    orgB = await org('b');
  });

  test('the rollup folded in small steps equals a plain aggregation of the org\'s rows, and holds none of another org\'s', async () => {
    await add(rows(600));
    await add(rows(300, orgB));
    const rollup = newRollup({ chunkRows: 7 });
    assert.equal(cellsOf(await rollup.read(orgA.orgId)), expected(orgA.orgId));
    assert.equal(cellsOf(await rollup.read(orgB.orgId)), expected(orgB.orgId));
    assert.ok(expected(orgA.orgId).length > 50);
  });

  test('rows written after a read, late ones for past days included, are folded in by the next read', async () => {
    const rollup = newRollup({ chunkRows: 5 });
    await add(rows(100));
    await rollup.read(orgA.orgId);
    await add(rows(80));
    await add(rows(40, orgA, istDayStart('2025-01-01')));
    await add(rows(30, orgB));
    assert.equal(cellsOf(await rollup.read(orgA.orgId)), expected(orgA.orgId));
  });

  test('a read that arrives during another read\'s fold sees rows committed after that fold began', async () => {
    const rollup = newRollup({ chunkRows: 3 });
    await add(rows(60));
    const first = rollup.read(orgA.orgId);
    await add(rows(25));
    const second = rollup.read(orgA.orgId);
    await add(rows(5));
    await first;
    assert.equal(cellsOf(await second), expected(orgA.orgId));
  });

  test('a second rollup on the same database (a restart) reads the folded cells and folds only the rows added since', async () => {
    await add(rows(200));
    await add(rows(200, orgB));
    await newRollup({ chunkRows: 50 }).read(orgA.orgId);
    const folded = await scalar(be(), 'SELECT last_id FROM usage_rollup_mark');
    assert.is(folded, 400, 'every org\'s rows are folded together');
    await add(rows(10));
    const again = newRollup({ chunkRows: 50 });
    assert.is(await markOf(again), 400);
    assert.equal(cellsOf(await again.read(orgA.orgId)), expected(orgA.orgId));
    assert.equal(cellsOf(await again.read(orgB.orgId)), expected(orgB.orgId));
    assert.is(again.mark(), 410);
  });

  test('a fold of a range another process folded meanwhile is dropped, so no row counts twice', async () => {
    await add(rows(100));
    const a = newRollup({ chunkRows: 1_000 });
    const b = newRollup({ chunkRows: 1_000 });
    await a.catchUp();
    await b.catchUp();
    await add(rows(30));
    await Promise.all([a.catchUp(), b.catchUp()]);
    assert.equal(cellsOf(await b.read(orgA.orgId)), expected(orgA.orgId));
  });

  test('span(from, to) gives the lowest and highest row id and the row count of the org\'s days', async () => {
    await add(rows(300));
    await add(rows(100, orgB));
    const u = await newRollup().read(orgA.orgId);
    const from = istDayNumber(istDayStart('2025-03-05'));
    const to = istDayNumber(istDayStart('2025-03-09'));
    const ids = (await query<{ id: number }>(be(), `SELECT id FROM usage WHERE org_id = ? AND at >= ? AND at < ? ORDER BY id`,
      orgA.orgId, istDayStart('2025-03-05'), istDayStart('2025-03-10'))).map((r) => r.id);
    assert.ok(ids.length > 10);
    assert.equal(u.span(from, to), { lo: ids[0], hi: ids.at(-1), rows: ids.length });
    assert.equal(u.span(from - 1000, from - 900), { lo: Infinity, hi: -Infinity, rows: 0 });
  });

  test('the follower folds new rows in the background until stopped', async () => {
    const rollup = newRollup({ followMs: 10 });
    await add(rows(50));
    rollup.start();
    const deadline = Date.now() + 5_000;
    while (rollup.mark() < 50 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    assert.is(rollup.mark(), 50);
    await rollup.stop();
    await add(rows(5));
    await new Promise((r) => setTimeout(r, 50));
    assert.is(await markOf(rollup), 50, 'stopped: nothing more is folded');
  });

  test('the ledger writer folds each batch into the rollup in its own commit, and a step of any backlog with it', async () => {
    await add(rows(120));
    const writer = usageWriter(be());
    const batch = rows(7);
    await writer(batch);
    all.push(...batch);
    const rollup = newRollup();
    assert.is(await markOf(rollup), 127, 'the backlog and the batch are folded by the writer');
    assert.equal(cellsOf(await rollup.read(orgA.orgId)), expected(orgA.orgId));
  });

  // The SQLite writer sums a batch from the rows it has just inserted when the rollup has kept up,
  // and in SQL otherwise: either way every column of every cell is the ledger's own GROUP BY.
  test('the writer\'s rollup, batch after batch, is the ledger grouped by cell in every column', async () => {
    const writer = usageWriter(be());
    const withTokens = (r: UsageTuple, i: number): UsageTuple => {
      const t = [...r] as UsageTuple;
      t[USAGE_SLOT.cachedTokens] = i % 3;
      t[USAGE_SLOT.cacheWriteTokens] = i % 5 === 0 ? 7 : 0;
      t[USAGE_SLOT.reasoningTokens] = i % 4;
      return t;
    };
    for (const [n, o] of [[1, orgA], [40, orgA], [25, orgB], [3, orgA], [60, orgB], [17, orgA]] as const) {
      await writer(rows(n, o).map(withTokens));
    }
    await add(rows(9)); // a backlog the next batch folds first (in SQL), then batches from their rows again
    for (const [n, o] of [[12, orgA], [30, orgB], [5, orgA]] as const) await writer(rows(n, o).map(withTokens));
    const num = (rs: Record<string, unknown>[]) => rs.map((r) => Object.values(r).map((v) => (typeof v === 'bigint' || /^\d+$/.test(String(v)) ? Number(v) : v)));
    const cells = await query(be(), `SELECT org_id, day, key_id, model, provider, requests, prompt_tokens, completion_tokens, cached_tokens,
      cache_write_tokens, reasoning_tokens, cost_micros, served, attempts, min_id, max_id FROM usage_rollup
      ORDER BY org_id, day, key_id, model, provider`);
    const grouped = await query(be(), `SELECT org_id, (at + ${IST_OFFSET_MS}) / ${DAY} AS day, key_id, model, COALESCE(provider, '') AS provider,
      SUM(CASE WHEN attempt = 0 THEN 1 ELSE 0 END) AS requests, SUM(prompt_tokens * billable) AS p, SUM(completion_tokens * billable) AS c,
      SUM(cached_tokens * billable) AS ca, SUM(cache_write_tokens * billable) AS cw, SUM(reasoning_tokens * billable) AS r,
      SUM(cost_micros * billable) AS cost, SUM(billable) AS served, COUNT(*) AS attempts, MIN(id) AS lo, MAX(id) AS hi
      FROM usage GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`);
    assert.ok(grouped.length > 50);
    assert.equal(num(cells), num(grouped));
    assert.is(await markOf(newRollup()), await scalar(be(), 'SELECT MAX(id) FROM usage'));
  });

  test('cells(from, to) keeps only the IST days asked for', async () => {
    await add(rows(300));
    const u = await newRollup().read(orgA.orgId);
    const from = istDayNumber(istDayStart('2025-03-05'));
    const to = istDayNumber(istDayStart('2025-03-07'));
    const got = cellsOf(u, from, to);
    assert.ok(got.length > 0);
    assert.equal(got, expected(orgA.orgId).filter((l) => l.slice(0, 10) >= '2025-03-05' && l.slice(0, 10) <= '2025-03-07'));
  });

  for (const [what, f] of [
    ['no filter', {}],
    ['a model', { model: 'm-b' }],
    ['status error', { status: 'error' }],
    ['status ok and a key', { status: 'ok', keyId: 'KEY1' }],
    ['an exact status', { status: 502 }],
    ['a value no row has', { model: 'nope' }],
  ] as [string, EventFilter][]) {
    test(`events walked page by page with ${what} are every matching row once, newest first, with a short look-ahead`, async () => {
      await add(rows(150));
      await add(rows(150, orgB));
      const filter = { ...f, keyId: f.keyId === 'KEY1' ? orgA.keys[1] : f.keyId };
      const page = eventsReader(11);
      const walked: number[] = [];
      let before: number | null = Number.MAX_SAFE_INTEGER;
      for (let pages = 0; before !== null; pages++) {
        assert.ok(pages < 200, 'the walk ends');
        const p = await page(orgA.orgId, before, 4, filter);
        assert.ok(p.rows.length <= 4);
        for (const r of p.rows) walked.push(r.id);
        assert.ok(p.nextBefore === null || p.nextBefore < before);
        before = p.nextBefore;
      }
      const want = (await query(be(), `SELECT id, model, key_id, status FROM usage WHERE org_id = ? ORDER BY id DESC`, orgA.orgId))
        .filter((r) => (filter.model === undefined || r.model === filter.model) && (filter.keyId === undefined || r.key_id === filter.keyId)
          && (filter.status === undefined || (filter.status === 'ok' ? r.status < 300 : filter.status === 'error' ? r.status >= 300 : r.status === filter.status)))
        .map((r) => r.id);
      assert.equal(walked, want);
    });
  }

  test('an event row carries the key prefix from the org\'s own key', async () => {
    await add(rows(3));
    const [r] = (await eventsReader()(orgA.orgId, Number.MAX_SAFE_INTEGER, 1, {})).rows;
    const prefix = await scalar<string>(be(), 'SELECT prefix FROM api_keys WHERE id = ?', r.key_id);
    assert.is(r.key_prefix, prefix);
    assert.is(r.request_id, all[2][1]);
  });

  test('an events range of IST days is the rows of those days only, walked page by page, filtered or not', async () => {
    await add(rows(400));
    await add(rows(100, orgB));
    // Late rows for old days: written last, their ids are above every other day's.
    await add(rows(20, orgA, istDayStart('2025-03-03')));
    const u = await newRollup().read(orgA.orgId);
    const from = istDayNumber(istDayStart('2025-03-03'));
    const to = istDayNumber(istDayStart('2025-03-06'));
    const span = u.span(from, to);
    const fromMs = istDayStart('2025-03-03');
    const toMs = istDayStart('2025-03-07');
    for (const f of [{}, { status: 'error' as const }]) {
      const page = eventsReader(13);
      const walked: number[] = [];
      let before: number | null = Number.MAX_SAFE_INTEGER;
      for (let pages = 0; before !== null; pages++) {
        assert.ok(pages < 500, 'the walk ends');
        const p = await page(orgA.orgId, before, 5, { ...f, range: { fromMs, toMs, loId: span.lo, hiId: span.hi } });
        walked.push(...p.rows.map((r) => r.id));
        before = p.nextBefore;
      }
      const want = (await query(be(), `SELECT id, status FROM usage WHERE org_id = ? AND at >= ? AND at < ? ORDER BY id DESC`, orgA.orgId, fromMs, toMs))
        .filter((r) => !('status' in f) || r.status >= 300).map((r) => r.id);
      assert.ok(want.length > 5);
      assert.equal(walked, want);
    }
    const none = await eventsReader()(orgA.orgId, Number.MAX_SAFE_INTEGER, 5, { range: { fromMs, toMs, loId: Infinity, hiId: -1 } });
    assert.equal(none, { rows: [], nextBefore: null });
  });

  // SQLite's plans; PostgreSQL's planner picks by table statistics, so a few test rows say nothing.
  test('every report query reads through an index, never a table scan', () => {
    if (!be().db) return;
    const plans = reportQueryPlans(be().db!);
    assert.ok(Object.keys(plans).length >= 8);
    const want: Record<string, RegExp> = {
      top: /^SEARCH usage$/,
      fold: /SEARCH usage USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/,
      cells: /SEARCH usage_rollup USING PRIMARY KEY \(org_id=\? AND day>\? AND day<\?\)/,
      span: /SEARCH usage_rollup USING PRIMARY KEY \(org_id=\? AND day>\? AND day<\?\)/,
    };
    for (const [name, plan] of Object.entries(plans)) {
      assert.match(plan, want[name] ?? /USING (COVERING )?INDEX usage_by_org_id \(org_id=\? AND id[<>]/, name);
      assert.not.match(plan, /SCAN usage\b/, name);
    }
  });

});
