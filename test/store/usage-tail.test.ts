import * as assert from 'uvu/assert';
import type { UsageTuple } from '../../src/domain/usage-record.js';
import { pgUsageExportReader } from '../../src/store/postgres/pg-usage-reports.js';
import { postgresUsageTailReader } from '../../src/store/postgres/pg-usage.js';
import { usageExportReader } from '../../src/store/usage-reports.js';
import { usageTailReader, type TailFilter, type UsageRow } from '../../src/store/usage.js';
import type { EventFilter, ExportStep } from '../../src/domain/stores/usage-report-store.js';
import { query, seedKey, usageWriter } from '../support/ledger-backends.js';
import { eachBackend } from '../support/store-backends.js';

// `gw tail`'s reader and the export's windows, over SQLite and PostgreSQL: the same rows, in the same order.
eachBackend('usage tail and export', (test, be) => {
  let o: { orgId: string; workspaceId: string };
  let keys: string[];
  const tail = (f: TailFilter) => be().pick<{ after(id: number, limit: number): Promise<UsageRow[]>; lastId(): Promise<number>; lastN(n: number): Promise<UsageRow[]> }>(
    (db) => { const r = usageTailReader(db, f); return { after: async (i, l) => r.after(i, l), lastId: async () => r.lastId(), lastN: async (n) => r.lastN(n) }; },
    (pg) => postgresUsageTailReader(pg, f));
  const exporter = (windowRows: number) => be().pick<(orgId: string, before: number, f: EventFilter) => Promise<ExportStep>>(
    (db) => { const r = usageExportReader(db, windowRows); return async (...a) => r(...a); },
    (pg) => pgUsageExportReader(pg, windowRows));

  test.before(async () => {
    o = await be().org('tailed');
    const other = await be().org('other');
    keys = [await seedKey(be(), o.orgId, o.workspaceId, 'a'), await seedKey(be(), o.orgId, o.workspaceId, 'b')];
    const otherKey = await seedKey(be(), other.orgId, other.workspaceId);
    const rows: UsageTuple[] = [];
    for (let i = 0; i < 40; i++) {
      const mine = i % 4 !== 3;
      rows.push([1_764_000_000_000 + i, `req_${i}`, mine ? o.orgId : other.orgId, mine ? o.workspaceId : other.workspaceId,
        mine ? keys[i % 2] : otherKey, 'chat', i % 3 === 0 ? 'm-x' : 'm-y', 'p', null, 0, i % 5 === 0 ? 502 : 200, null, 1, 2, 10, 1.5, null,
        0, 0, 1, 0, 0, 0, 0, 0, 0, 0, null, 0]);
    }
    await usageWriter(be())(rows);
  });

  test('lastId, lastN and after follow the ledger by id, filtered by org, key and model', async () => {
    const all = await query<{ id: number; org_id: string; key_id: string; model: string }>(be(), 'SELECT id, org_id, key_id, model FROM usage ORDER BY id');
    assert.is(all.length, 40);
    assert.is(await tail({}).lastId(), all.at(-1)!.id);
    const f = { orgId: o.orgId, keyId: keys[0], model: 'm-y' };
    const want = all.filter((r) => r.org_id === f.orgId && r.key_id === f.keyId && r.model === f.model).map((r) => r.id);
    assert.ok(want.length >= 5);
    const reader = tail(f);
    assert.equal((await reader.lastN(3)).map((r) => r.id), want.slice(-3));
    assert.equal((await reader.after(want[1], 2)).map((r) => r.id), want.slice(2, 4));
    assert.equal((await reader.after(0, 1_000)).map((r) => r.id), want);
    const [row] = await reader.lastN(1);
    const [stored] = await query<{ request_id: string }>(be(), 'SELECT request_id FROM usage WHERE id = ?', want.at(-1));
    assert.equal([row.request_id, row.latency_ms, row.ttfb_ms, row.billable], [stored.request_id, 1.5, null, 1]);
  });

  test('an export walked window by window is every matching row of the org once, newest first', async () => {
    for (const f of [{}, { status: 'error' as const }, { model: 'm-x', keyId: '' }] as EventFilter[]) {
      const filter = { ...f, keyId: f.keyId === '' ? keys[0] : f.keyId };
      const step = exporter(4);
      const got: string[] = [];
      let before: number | null = Number.MAX_SAFE_INTEGER;
      for (let n = 0; before !== null; n++) {
        assert.ok(n < 100);
        const s: ExportStep = await step(o.orgId, before, filter);
        got.push(...s.rows.map((r) => String(r[1])));
        before = s.nextBefore;
      }
      const want = (await query<{ request_id: string; status: number; model: string; key_id: string }>(be(),
        'SELECT request_id, status, model, key_id FROM usage WHERE org_id = ? ORDER BY id DESC', o.orgId))
        .filter((r) => (filter.status === undefined || r.status >= 300) && (filter.model === undefined || r.model === filter.model)
          && (filter.keyId === undefined || r.key_id === filter.keyId)).map((r) => r.request_id);
      assert.ok(want.length > 0);
      assert.equal(got, want);
    }
  });
});
