import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { istDay, istMonth } from '../../src/lib/ist.js';
import { openDatabase } from '../../src/store/database.js';
import { insertKey } from '../../src/store/keys.js';
import { insertOrg } from '../../src/store/orgs.js';
import { usageBatchWriter, type UsageTuple } from '../../src/store/usage.js';

// One batch whose rows straddle an IST midnight that is also a month end, out of order: the
// writer formats the calendar once per day it meets, so every jump back and forth must land the
// row in its own day and month.
test('a batch spanning IST midnight and a month end counts each row in its own day and month', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-usage-writer-'));
  const db = openDatabase(join(dir, 'gw.db'));
  try {
    const o = insertOrg(db, 'acme', { now: Date.now() });
    const keyId = insertKey(db, { orgId: o.orgId, workspaceId: o.workspaceId, name: 'k', tier: 'standard' }, Date.now()).id;
    const midnight = Date.parse('2026-11-30T18:30:00.000Z'); // 1 Dec 2026 00:00 IST
    const offsets = [-2, 0, -1, 5, -86_400_000, 1, -3, 86_400_000 - 1, 86_400_000, -1];
    const rows: UsageTuple[] = offsets.map((d, i) => [midnight + d, `req_${i}`, o.orgId, o.workspaceId, keyId, 'chat', 'm', 'p', 'p:m',
      0, 200, null, 1, 1, 100 + i, 1, null, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]);
    assert.is(usageBatchWriter(db)(rows), rows.length);

    const days = new Map<string, number>();
    const months = new Map<string, number>();
    for (const r of rows) {
      days.set(istDay(r[0]), (days.get(istDay(r[0])) ?? 0) + 1);
      months.set(istMonth(r[0]), (months.get(istMonth(r[0])) ?? 0) + r[14]);
    }
    assert.equal([...days.keys()].sort(), ['2026-11-30', '2026-12-01', '2026-12-02']);
    const storedDays = db.prepare('SELECT ist_day, requests FROM key_daily_counts WHERE key_id = ? ORDER BY ist_day').all(keyId);
    assert.equal(storedDays, [...days].sort().map(([ist_day, requests]) => ({ ist_day, requests })));
    for (const scope of [keyId, o.workspaceId]) {
      const stored = db.prepare('SELECT ist_month, spent_micros FROM monthly_spend WHERE scope_id = ? ORDER BY ist_month').all(scope);
      assert.equal(stored, [...months].sort().map(([ist_month, spent_micros]) => ({ ist_month, spent_micros })), scope);
    }
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
