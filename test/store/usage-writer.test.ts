import * as assert from 'uvu/assert';
import type { UsageTuple } from '../../src/domain/usage-record.js';
import { istDay, istMonth } from '../../src/lib/ist.js';
import { postgresUsageBatchWriter } from '../../src/store/postgres/pg-usage.js';
import { query, scalar, seedKey, usageWriter } from '../support/ledger-backends.js';
import { eachBackend } from '../support/store-backends.js';

const row = (at: number, i: number, o: { orgId: string; workspaceId: string }, keyId: string, cost = 100 + i): UsageTuple =>
  [at, `req_${i}`, o.orgId, o.workspaceId, keyId, 'chat', 'm', 'p', 'p:m', 0, 200, null, 1, 1, cost, 1, null, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, null, 0];

eachBackend('usage writer', (test, be) => {
  // One batch whose rows straddle an IST midnight that is also a month end, out of order: the
  // writer formats the calendar once per day it meets, so every jump back and forth must land the
  // row in its own day and month.
  test('a batch spanning IST midnight and a month end counts each row in its own day and month', async () => {
    const o = await be().org('acme');
    const keyId = await seedKey(be(), o.orgId, o.workspaceId);
    const midnight = Date.parse('2026-11-30T18:30:00.000Z'); // 1 Dec 2026 00:00 IST
    const offsets = [-2, 0, -1, 5, -86_400_000, 1, -3, 86_400_000 - 1, 86_400_000, -1];
    const rows: UsageTuple[] = offsets.map((d, i) => row(midnight + d, i, o, keyId));
    assert.is(await usageWriter(be())(rows), rows.length);

    const days = new Map<string, number>();
    const months = new Map<string, number>();
    for (const r of rows) {
      days.set(istDay(r[0]), (days.get(istDay(r[0])) ?? 0) + 1);
      months.set(istMonth(r[0]), (months.get(istMonth(r[0])) ?? 0) + r[14]);
    }
    assert.equal([...days.keys()].sort(), ['2026-11-30', '2026-12-01', '2026-12-02']);
    const storedDays = await query(be(), 'SELECT ist_day, requests FROM key_daily_counts WHERE key_id = ? ORDER BY ist_day', keyId);
    assert.equal(storedDays, [...days].sort().map(([ist_day, requests]) => ({ ist_day, requests })));
    for (const scope of [keyId, o.workspaceId]) {
      const stored = await query(be(), 'SELECT ist_month, spent_micros FROM monthly_spend WHERE scope_id = ? ORDER BY ist_month', scope);
      assert.equal(stored, [...months].sort().map(([ist_month, spent_micros]) => ({ ist_month, spent_micros })), scope);
    }
  });

  test('a batch debits the org, stamps the key\'s last use and stores every column as given', async () => {
    const o = await be().org('cols');
    const keyId = await seedKey(be(), o.orgId, o.workspaceId);
    const before = await scalar(be(), 'SELECT balance_micros FROM orgs WHERE id = ?', o.orgId);
    const full: UsageTuple = [1_764_000_000_123, 'req_full', o.orgId, o.workspaceId, keyId, 'chat', 'model-x', null, null, 1, 502,
      'upstream_error', 12, 34, 5_678, 12.345, 3.5, 1, 1, 1, 1, 7, 0.25, 1, 3, 2, 5, 'redacted=email', 1];
    const unbilled: UsageTuple = [1_764_000_000_200, 'req_unbilled', o.orgId, o.workspaceId, keyId, 'chat', 'model-x', 'p', 'r', 0, 429,
      'rate_limited', 0, 0, 999, 1, null, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, null, 0];
    assert.is(await usageWriter(be())([full, unbilled]), 2);
    assert.is(await scalar(be(), 'SELECT balance_micros FROM orgs WHERE id = ?', o.orgId), before - 5_678, 'only the billable row is debited');
    assert.is(await scalar(be(), 'SELECT last_used_at FROM api_keys WHERE id = ?', keyId), 1_764_000_000_200);
    const [stored] = await query(be(), 'SELECT * FROM usage WHERE request_id = ?', 'req_full');
    assert.equal({ ...stored, id: 0 }, {
      id: 0, at: 1_764_000_000_123, request_id: 'req_full', org_id: o.orgId, workspace_id: o.workspaceId, key_id: keyId, endpoint: 'chat',
      model: 'model-x', provider: null, route: null, attempt: 1, status: 502, error_code: 'upstream_error', prompt_tokens: 12,
      completion_tokens: 34, cost_micros: 5_678, latency_ms: 12.345, ttfb_ms: 3.5, streamed: 1, byok: 1, billable: 1, usage_estimated: 1,
      units: 7, queue_ms: 0.25, usage_clamped: 1, cached_tokens: 3, cache_write_tokens: 2, reasoning_tokens: 5, guardrail: 'redacted=email', cache_hit: 1,
    });
  });

  // PostgreSQL only: a batch comes again from the spool when its first commit's answer was lost.
  test('a batch written again under the same id is not written twice', async () => {
    if (!be().pg) return;
    const o = await be().org('idem');
    const keyId = await seedKey(be(), o.orgId, o.workspaceId);
    const write = postgresUsageBatchWriter(be().pg!);
    const rows = [0, 1, 2].map((i) => row(Date.now(), 100 + i, o, keyId, 10));
    assert.is(await write(rows, 'batch-1'), 3);
    assert.is(await write(rows, 'batch-1'), 0, 'recognised');
    assert.is(await scalar(be(), 'SELECT COUNT(*) FROM usage WHERE org_id = ?', o.orgId), 3);
    assert.is(await scalar(be(), 'SELECT spent_micros FROM monthly_spend WHERE scope_id = ?', keyId), 30, 'spend moved once');
    assert.is(await write(rows.map((r) => [...r] as UsageTuple), 'batch-2'), 3, 'another id is another batch');
  });

  // PostgreSQL only: several instances' writers commit at once. Under the ledger lock ids commit
  // in id order, so a reader that follows ids (the rollup, gw tail) skips none, and the balance
  // moves by every batch.
  test('writers committing at once: every row once, ids in commit order, the balance moved by all', async () => {
    if (!be().pg) return;
    const o = await be().org('many');
    const keyId = await seedKey(be(), o.orgId, o.workspaceId);
    const before = await scalar(be(), 'SELECT balance_micros FROM orgs WHERE id = ?', o.orgId);
    const writers = [0, 1, 2, 3].map(() => postgresUsageBatchWriter(be().pg!));
    await Promise.all(writers.map((w, wi) => Promise.all([0, 1, 2, 3, 4].map((b) =>
      w(Array.from({ length: 50 }, (_, i) => row(Date.now(), wi * 10_000 + b * 100 + i, o, keyId, 1)), `w${wi}-b${b}`)))));
    assert.is(await scalar(be(), 'SELECT COUNT(DISTINCT request_id) FROM usage WHERE org_id = ?', o.orgId), 1_000);
    assert.is(await scalar(be(), 'SELECT balance_micros FROM orgs WHERE id = ?', o.orgId), before - 1_000);
    // The rollup followed every commit: its watermark is the top id, and it counted each row once.
    assert.is(await scalar(be(), 'SELECT last_id FROM usage_rollup_mark'), await scalar(be(), 'SELECT MAX(id) FROM usage'));
    assert.is(await scalar(be(), 'SELECT SUM(attempts) FROM usage_rollup WHERE org_id = ?', o.orgId), 1_000);
  });
});
