import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { USAGE_FIELDS, USAGE_SLOT as F, type UsageTuple } from '../../src/domain/usage-record.js';
import { batchEffects, type BatchEffects } from '../../src/store/batch-effects.js';
import { IstCalendar } from '../../src/lib/ist.js';

// batchEffects sums runs of rows that share their key, org, workspace and IST day before it
// touches its maps (src/store/batch-effects.ts). Whatever the order of the rows, the effects must
// be those of adding every row on its own, as below.

function perRow(rows: readonly UsageTuple[]): BatchEffects {
  const orgDebits = new Map<string, number>();
  const monthSpend = new Map<string, number>();
  const dayCounts = new Map<string, number>();
  const keyLastUsed = new Map<string, number>();
  const calendar = new IstCalendar();
  for (const r of rows) {
    const at = r[F.at] as number;
    const cost = r[F.costMicros] as number;
    const keyId = r[F.keyId] as string;
    if (r[F.billable] === 1 && cost !== 0) {
      const org = r[F.orgId] as string;
      orgDebits.set(org, (orgDebits.get(org) ?? 0) + cost);
      const month = calendar.month(at);
      for (const scope of [keyId, r[F.workspaceId] as string]) monthSpend.set(`${scope} ${month}`, (monthSpend.get(`${scope} ${month}`) ?? 0) + cost);
    }
    if (r[F.attempt] === 0) {
      const k = `${keyId} ${calendar.day(at)}`;
      dayCounts.set(k, (dayCounts.get(k) ?? 0) + 1);
    }
    if (at > (keyLastUsed.get(keyId) ?? 0)) keyLastUsed.set(keyId, at);
  }
  const sorted = <V>(m: Map<string, V>): [string, V][] => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const split = ([k, v]: [string, number]): [string, string, number] => [k.split(' ')[0], k.split(' ')[1], v];
  return {
    orgDebits: sorted(orgDebits),
    monthSpend: sorted(monthSpend).map(split),
    dayCounts: sorted(dayCounts).map(split),
    keyLastUsed: sorted(keyLastUsed),
  };
}

const MONTH_END = Date.parse('2026-11-30T18:30:00.000Z'); // 1 Dec 2026 00:00 IST

function rows(count: number, rand: () => number): UsageTuple[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const out: UsageTuple[] = [];
  let scope = { key: 'key_1', org: 'org_a', ws: 'ws_a' };
  let at = MONTH_END - 3_000;
  for (let i = 0; i < count; i++) {
    // Runs of one caller, broken now and then by another; a workspace or org that changes alone.
    if (rand() < 0.15) scope = { key: pick(['key_1', 'key_2', 'key_3']), org: pick(['org_a', 'org_b']), ws: pick(['ws_a', 'ws_b']) };
    if (rand() < 0.03) scope = { ...scope, org: pick(['org_a', 'org_b']) };
    if (rand() < 0.03) scope = { ...scope, ws: pick(['ws_a', 'ws_b']) };
    // Times across the IST month's end and a day later, now and then out of order or at or before 0.
    at += pick([0, 1, 7, 250, 86_400_000, -400]);
    const t = rand() < 0.01 ? pick([0, -5]) : at;
    const r = new Array(USAGE_FIELDS.length).fill(0) as UsageTuple;
    r[F.at] = t;
    r[F.requestId] = `req_${i}`;
    r[F.keyId] = scope.key;
    r[F.orgId] = scope.org;
    r[F.workspaceId] = scope.ws;
    r[F.attempt] = rand() < 0.8 ? 0 : pick([1, 2]);
    r[F.billable] = rand() < 0.7 ? 1 : 0;
    r[F.costMicros] = rand() < 0.2 ? 0 : Math.floor(rand() * 90_000);
    out.push(r);
  }
  return out;
}

test('a batch has the effects of its rows added one by one, in runs or not', () => {
  let seed = 7;
  const rand = (): number => ((seed = (seed * 1_103_515_245 + 12_345) >>> 0) / 2 ** 32);
  for (let b = 0; b < 200; b++) {
    const batch = rows(1 + Math.floor(rand() * 400), rand);
    assert.equal(batchEffects(batch), perRow(batch), `batch ${b}`);
  }
});

test('no rows, no effects; one row, its own', () => {
  assert.equal(batchEffects([]), { orgDebits: [], monthSpend: [], dayCounts: [], keyLastUsed: [] });
  const [r] = rows(1, () => 0.5);
  assert.equal(batchEffects([r]), perRow([r]));
});

test.run();
