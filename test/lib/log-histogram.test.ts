import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LogHistogram } from '../../src/lib/log-histogram.js';

const near = (actual: number | null, expected: number, what: string) =>
  assert.ok(actual !== null && Math.abs(actual - expected) <= expected * 0.1, `${what}: ${actual} vs ${expected}`);

test('quantiles within 10% of the true value, from 0.1 ms to minutes', () => {
  for (const scale of [0.1, 1, 250, 60_000]) {
    const h = new LogHistogram();
    for (let i = 1; i <= 1000; i++) h.add(i * scale);
    near(h.quantile(0.5), 500 * scale, `p50 at scale ${scale}`);
    near(h.quantile(0.95), 950 * scale, `p95 at scale ${scale}`);
  }
});

test('empty is null; merging adds counts', () => {
  const a = new LogHistogram();
  assert.is(a.quantile(0.5), null);
  const b = new LogHistogram();
  for (let i = 0; i < 100; i++) b.add(10);
  for (let i = 0; i < 100; i++) a.add(1000);
  a.merge(b);
  assert.is(a.total, 200);
  near(a.quantile(0.25), 10, 'p25 after merge');
  near(a.quantile(0.75), 1000, 'p75 after merge');
});

test.run();
