import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { p95 } from '../../src/lib/stats.js';

test('p95 is the nearest-rank 95th percentile, whatever the order; null for no values', () => {
  assert.is(p95([]), null);
  assert.is(p95([7]), 7);
  assert.is(p95(Array.from({ length: 20 }, (_, i) => 20 - i)), 19);
  assert.is(p95(Array.from({ length: 100 }, (_, i) => i + 1)), 95);
  assert.is(p95([1, 1000]), 1000);
});

test.run();
