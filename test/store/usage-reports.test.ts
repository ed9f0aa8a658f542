import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { istDay, istDayLabel, istDayNumber, istDayStart } from '../../src/lib/ist.js';
import { openDatabase, type Db } from '../../src/store/database.js';
import { insertKey } from '../../src/store/keys.js';
import { insertOrg } from '../../src/store/orgs.js';
import {
  reportQueryPlans, usageEventsReader, UsageRollup, type EventFilter, type OrgUsage,
} from '../../src/store/usage-reports.js';
import { usageBatchWriter, type UsageTuple } from '../../src/store/usage.js';

const DAY = 86_400_000;
const MODELS = ['m-a', 'm-b', 'm-c'];
const PROVIDERS = ['groq', 'together', null];

let db: Db;
let write: (rows: UsageTuple[]) => number;
let orgA: { orgId: string; workspaceId: string; keys: string[] };
let orgB: { orgId: string; workspaceId: string; keys: string[] };
let all: UsageTuple[];
let seed: number;
const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];

function org(name: string) {
  const o = insertOrg(db, name, { now: Date.now() });
  return { ...o, keys: [0, 1, 2].map((i) => insertKey(db, { orgId: o.orgId, workspaceId: o.workspaceId, name: `k${i}`, tier: 'standard' }, Date.now()).id) };
}

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
      billable ? Math.floor(rand() * 50) : 0, billable ? Math.floor(rand() * 5_000) : 0, 10, null, 0, 0, billable as 0 | 1, 0, 0, 0, 0, 0, 0, 0]);
  }
  return out;
}

function add(r: UsageTuple[]): void {
  write(r);
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

test.before.each(() => {
  db = openDatabase(':memory:');
  // Rows as a ledger from before the rollup, or another program, would leave them: not folded yet.
  write = usageBatchWriter(db, { rollup: false });
  seed = 7;
  all = [];
  orgA = org('a');
  orgB = org('b');
});
test.after.each(() => {
  db.close();
});

test('the rollup folded in small steps equals a plain aggregation of the org\'s rows, and holds none of another org\'s', async () => {
  add(rows(600));
  add(rows(300, orgB));
  const rollup = new UsageRollup(db, { chunkRows: 7 });
  assert.equal(cellsOf(await rollup.read(orgA.orgId)), expected(orgA.orgId));
  assert.equal(cellsOf(await rollup.read(orgB.orgId)), expected(orgB.orgId));
  assert.ok(expected(orgA.orgId).length > 50);
});

test('rows written after a read, late ones for past days included, are folded in by the next read', async () => {
  const rollup = new UsageRollup(db, { chunkRows: 5 });
  add(rows(100));
  await rollup.read(orgA.orgId);
  add(rows(80));
  add(rows(40, orgA, istDayStart('2025-01-01')));
  add(rows(30, orgB));
  assert.equal(cellsOf(await rollup.read(orgA.orgId)), expected(orgA.orgId));
});

test('a read that arrives during another read\'s fold sees rows committed after that fold began', async () => {
  const rollup = new UsageRollup(db, { chunkRows: 3 });
  add(rows(60));
  const first = rollup.read(orgA.orgId);
  add(rows(25));
  const second = rollup.read(orgA.orgId);
  add(rows(5));
  await first;
  assert.equal(cellsOf(await second), expected(orgA.orgId));
});

test('a second rollup on the same database (a restart) reads the folded cells and folds only the rows added since', async () => {
  add(rows(200));
  add(rows(200, orgB));
  await new UsageRollup(db, { chunkRows: 50 }).read(orgA.orgId);
  const folded = db.prepare('SELECT last_id FROM usage_rollup_mark').pluck().get() as number;
  assert.is(folded, 400, 'every org\'s rows are folded together');
  add(rows(10));
  const again = new UsageRollup(db, { chunkRows: 50 });
  assert.is(again.mark(), 400);
  assert.equal(cellsOf(await again.read(orgA.orgId)), expected(orgA.orgId));
  assert.equal(cellsOf(await again.read(orgB.orgId)), expected(orgB.orgId));
  assert.is(again.mark(), 410);
});

test('a fold of a range another process folded meanwhile is dropped, so no row counts twice', async () => {
  add(rows(100));
  const a = new UsageRollup(db, { chunkRows: 1_000 });
  const b = new UsageRollup(db, { chunkRows: 1_000 });
  await a.catchUp();
  await b.catchUp();
  add(rows(30));
  await Promise.all([a.catchUp(), b.catchUp()]);
  assert.equal(cellsOf(await b.read(orgA.orgId)), expected(orgA.orgId));
});

test('span(from, to) gives the lowest and highest row id and the row count of the org\'s days', async () => {
  add(rows(300));
  add(rows(100, orgB));
  const u = await new UsageRollup(db).read(orgA.orgId);
  const from = istDayNumber(istDayStart('2025-03-05'));
  const to = istDayNumber(istDayStart('2025-03-09'));
  const ids = db.prepare(`SELECT id FROM usage WHERE org_id = ? AND at >= ? AND at < ? ORDER BY id`).pluck()
    .all(orgA.orgId, istDayStart('2025-03-05'), istDayStart('2025-03-10')) as number[];
  assert.ok(ids.length > 10);
  assert.equal(u.span(from, to), { lo: ids[0], hi: ids.at(-1), rows: ids.length });
  assert.equal(u.span(from - 1000, from - 900), { lo: Infinity, hi: -Infinity, rows: 0 });
});

test('the follower folds new rows in the background until stopped', async () => {
  const rollup = new UsageRollup(db, { followMs: 10 });
  add(rows(50));
  rollup.start();
  const deadline = Date.now() + 5_000;
  while (rollup.mark() < 50 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  assert.is(rollup.mark(), 50);
  await rollup.stop();
  add(rows(5));
  await new Promise((r) => setTimeout(r, 50));
  assert.is(rollup.mark(), 50, 'stopped: nothing more is folded');
});

test('the ledger writer folds each batch into the rollup in its own commit, and a step of any backlog with it', async () => {
  add(rows(120));
  const writer = usageBatchWriter(db);
  const batch = rows(7);
  writer(batch);
  all.push(...batch);
  const rollup = new UsageRollup(db);
  assert.is(rollup.mark(), 127, 'the backlog and the batch are folded by the writer');
  assert.equal(cellsOf(await rollup.read(orgA.orgId)), expected(orgA.orgId));
});

test('cells(from, to) keeps only the IST days asked for', async () => {
  add(rows(300));
  const u = await new UsageRollup(db).read(orgA.orgId);
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
  test(`events walked page by page with ${what} are every matching row once, newest first, with a short look-ahead`, () => {
    add(rows(150));
    add(rows(150, orgB));
    const filter = { ...f, keyId: f.keyId === 'KEY1' ? orgA.keys[1] : f.keyId };
    const page = usageEventsReader(db, 11);
    const walked: number[] = [];
    let before: number | null = Number.MAX_SAFE_INTEGER;
    for (let pages = 0; before !== null; pages++) {
      assert.ok(pages < 200, 'the walk ends');
      const p = page(orgA.orgId, before, 4, filter);
      assert.ok(p.rows.length <= 4);
      for (const r of p.rows) walked.push(r.id);
      assert.ok(p.nextBefore === null || p.nextBefore < before);
      before = p.nextBefore;
    }
    const want = (db.prepare(`SELECT id, model, key_id, status FROM usage WHERE org_id = ? ORDER BY id DESC`).all(orgA.orgId) as any[])
      .filter((r) => (filter.model === undefined || r.model === filter.model) && (filter.keyId === undefined || r.key_id === filter.keyId)
        && (filter.status === undefined || (filter.status === 'ok' ? r.status < 300 : filter.status === 'error' ? r.status >= 300 : r.status === filter.status)))
      .map((r) => r.id);
    assert.equal(walked, want);
  });
}

test('an event row carries the key prefix from the org\'s own key', () => {
  add(rows(3));
  const [r] = usageEventsReader(db)(orgA.orgId, Number.MAX_SAFE_INTEGER, 1, {}).rows;
  const prefix = db.prepare('SELECT prefix FROM api_keys WHERE id = ?').pluck().get(r.key_id);
  assert.is(r.key_prefix, prefix);
  assert.is(r.request_id, all[2][1]);
});

test('an events range of IST days is the rows of those days only, walked page by page, filtered or not', async () => {
  add(rows(400));
  add(rows(100, orgB));
  // Late rows for old days: written last, their ids are above every other day's.
  add(rows(20, orgA, istDayStart('2025-03-03')));
  const u = await new UsageRollup(db).read(orgA.orgId);
  const from = istDayNumber(istDayStart('2025-03-03'));
  const to = istDayNumber(istDayStart('2025-03-06'));
  const span = u.span(from, to);
  const fromMs = istDayStart('2025-03-03');
  const toMs = istDayStart('2025-03-07');
  for (const f of [{}, { status: 'error' as const }]) {
    const page = usageEventsReader(db, 13);
    const walked: number[] = [];
    let before: number | null = Number.MAX_SAFE_INTEGER;
    for (let pages = 0; before !== null; pages++) {
      assert.ok(pages < 500, 'the walk ends');
      const p = page(orgA.orgId, before, 5, { ...f, range: { fromMs, toMs, loId: span.lo, hiId: span.hi } });
      walked.push(...p.rows.map((r) => r.id));
      before = p.nextBefore;
    }
    const want = (db.prepare(`SELECT id, status FROM usage WHERE org_id = ? AND at >= ? AND at < ? ORDER BY id DESC`).all(orgA.orgId, fromMs, toMs) as any[])
      .filter((r) => !('status' in f) || r.status >= 300).map((r) => r.id);
    assert.ok(want.length > 5);
    assert.equal(walked, want);
  }
  const none = usageEventsReader(db)(orgA.orgId, Number.MAX_SAFE_INTEGER, 5, { range: { fromMs, toMs, loId: Infinity, hiId: -1 } });
  assert.equal(none, { rows: [], nextBefore: null });
});

test('every report query reads through an index, never a table scan', () => {
  const plans = reportQueryPlans(db);
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

test.run();
