import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { UsageTuple } from '../../src/domain/usage-record.js';
import { openDatabase } from '../../src/store/database.js';
import { rollupBatchCells } from '../../src/store/rollup-batch-cells.js';
import { ROLLUP_SQL } from '../../src/store/usage-rollup.js';
import { usageBatchWriter } from '../../src/store/usage.js';

// The SQLite ledger writer sums each batch into the rollup from the rows it has just inserted
// (src/store/rollup-batch-cells.ts) rather than read them back with ROLLUP_SQL.fold: the two
// must agree in every column of every cell, whatever the rows hold.

const MIDNIGHT = Date.parse('2026-11-30T18:30:00.000Z'); // 1 Dec 2026 00:00 IST

function row(i: number, rand: () => number, odd: boolean): UsageTuple {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const billable = rand() < 0.7 ? 1 : 0;
  const n = (max: number): number => (odd && rand() < 0.1 ? Math.floor(rand() * max) + 0.5 : Math.floor(rand() * max));
  // Times on both sides of IST midnights, and (odd batches) one that is not a whole millisecond.
  const at = MIDNIGHT + pick([-1, 0, 1, 86_399_999, 86_400_000, -86_400_000]) * (rand() < 0.5 ? 1 : 0) + Math.floor(rand() * 3) * 86_400_000
    + (odd && rand() < 0.05 ? 0.5 : 0);
  return [at, `req_${i}`, pick(['org_a', 'org_b']), 'ws', pick(['key_1', 'key_2', 'key_3']), 'chat', pick(['m-a', 'm-b']),
    pick(['groq', null, '']), null, rand() < 0.8 ? 0 : 1, 200, null, n(100), n(50), n(9_000), 1.5, null, 0, 0, billable, 0, 0, 0, 0,
    n(20), n(5), n(30), null, 0];
}

function folded(db: ReturnType<typeof openDatabase>): unknown[][] {
  return db.prepare(`SELECT org_id, day, key_id, model, provider, requests, prompt_tokens, completion_tokens, cached_tokens,
    cache_write_tokens, reasoning_tokens, cost_micros, served, attempts, min_id, max_id FROM usage_rollup
    ORDER BY org_id, day, key_id, model, provider`).raw().all() as unknown[][];
}

test('batch after batch, the rollup equals ROLLUP_SQL.fold over the whole ledger, odd values included', () => {
  const db = openDatabase(':memory:');
  try {
    let seed = 11;
    const rand = (): number => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
    const write = usageBatchWriter(db);
    const fold = db.prepare(`${ROLLUP_SQL.fold} ORDER BY 1, 2, 3, 4, 5`).raw();
    let id = 0;
    for (let b = 0; b < 60; b++) {
      const odd = b % 7 === 3;
      const rows = Array.from({ length: 1 + Math.floor(rand() * 40) }, () => row(id++, rand, odd));
      assert.is(write(rows), rows.length);
      const want = fold.all(0, Number.MAX_SAFE_INTEGER) as unknown[][];
      assert.equal(folded(db), want, `after batch ${b}`);
    }
    const mark = db.prepare('SELECT last_id FROM usage_rollup_mark').pluck().get();
    assert.is(mark, id);
  } finally {
    db.close();
  }
});

test('rows SQLite would sum or divide otherwise than JavaScript are left to the SQL fold', () => {
  let seed = 5;
  const rand = (): number => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
  const plain = Array.from({ length: 20 }, (_, i) => row(i, rand, false));
  const cells = rollupBatchCells(plain, 1);
  assert.ok(cells !== null && cells.length > 1);
  assert.is(cells!.reduce((s, c) => s + c[13], 0), 20, 'every row in some cell');
  for (const [slot, value] of [[0, 1.5], [12, 0.5], [14, 2 ** 53], [9, -0.25], [19, 2], [0, -20_000_000]] as const) {
    const rows = plain.map((r) => [...r] as UsageTuple);
    (rows[7] as unknown[])[slot] = value;
    assert.is(rollupBatchCells(rows, 1), null, `slot ${slot} = ${value}`);
  }
  const big = plain.map((r) => [...r] as UsageTuple);
  for (const r of big) { r[14] = 2 ** 52; r[19] = 1; r[2] = 'org_a'; r[4] = 'key_1'; r[6] = 'm-a'; r[7] = null; r[0] = MIDNIGHT; }
  assert.is(rollupBatchCells(big, 1), null, 'a sum past 2^53');
});

test.run();
