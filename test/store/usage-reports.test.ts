import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { istDay, istDayStart } from '../../src/lib/ist.js';
import { openDatabase, type Db } from '../../src/store/database.js';
import { insertKey } from '../../src/store/keys.js';
import { insertOrg } from '../../src/store/orgs.js';
import {
  istDayLabel, istDayNumber, reportQueryPlans, usageEventsReader, UsageRollup, type EventFilter, type OrgUsage,
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
  const o = insertOrg(db, name);
  return { ...o, keys: [0, 1, 2].map((i) => insertKey(db, { orgId: o.orgId, workspaceId: o.workspaceId, name: `k${i}`, tier: 'standard' }).id) };
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
  write = usageBatchWriter(db);
  seed = 7;
  all = [];
  orgA = org('a');
  orgB = org('b');
});
test.after.each(() => {
  db.close();
});

test('IST day numbers turn at 18:30 UTC', () => {
  const midnight = Date.parse('2025-03-01T18:30:00.000Z');
  assert.is(istDayLabel(istDayNumber(midnight - 1)), '2025-03-01');
  assert.is(istDayLabel(istDayNumber(midnight)), '2025-03-02');
  assert.is(istDayLabel(istDayNumber(istDayStart('2025-03-02'))), '2025-03-02');
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

test('an org evicted for space is rebuilt from the table on its next read', async () => {
  add(rows(200));
  add(rows(200, orgB));
  const rollup = new UsageRollup(db, { chunkRows: 50, maxCells: 250 });
  await rollup.read(orgA.orgId);
  await rollup.read(orgB.orgId);
  add(rows(10));
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

test('every report query reads usage through usage_by_org_id, never a table scan', () => {
  const plans = reportQueryPlans(db);
  assert.ok(Object.keys(plans).length >= 6);
  for (const [name, plan] of Object.entries(plans)) {
    assert.match(plan, /USING (COVERING )?INDEX usage_by_org_id \(org_id=\? AND id[<>]/, name);
    assert.not.match(plan, /SCAN usage\b/, name);
  }
});

test.run();
