import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TrafficBook, type TrafficSample } from '../../src/control/traffic-book.js';

const NOW = Date.parse('2026-11-23T06:00:00Z'); // 11:30 IST
const DAY = 86_400_000;
const sample = (over: Partial<TrafficSample> = {}): TrafficSample => ({
  at: NOW, model: 'm1', status: 200, errorCode: null, promptTokens: 10, completionTokens: 20, latencyMs: 1000, ttfbMs: 100,
  billable: true, ...over,
});

test('model stats over 7 IST days: success rate over attempts that reflect on providers, TTFB quantiles, output speed', () => {
  const b = new TrafficBook(() => true);
  for (let i = 0; i < 8; i++) b.add(sample({ ttfbMs: 100 }));
  b.add(sample({ status: 502, errorCode: 'upstream_error', billable: false, completionTokens: 0 }));
  b.add(sample({ status: 200, errorCode: 'stream_interrupted' }));
  b.add(sample({ status: 499, errorCode: 'client_aborted', billable: false }));
  b.add(sample({ status: 400, errorCode: 'invalid_request', billable: false }));
  b.add(sample({ at: NOW - 7 * DAY, status: 500, billable: false }));
  const s = b.modelStats('m1', NOW);
  assert.equal([s.window_days, s.since, s.attempts, s.requests], [7, '2026-11-17', 10, 9]);
  assert.is(s.success_rate, 0.8);
  assert.ok(Math.abs(s.latency_ms.p50! - 100) <= 10 && Math.abs(s.latency_ms.p95! - 100) <= 10, JSON.stringify(s.latency_ms));
  assert.is(s.tokens_per_second, 20, '160 output tokens in 8 s of answers');
  assert.equal(b.modelStats('nothing', NOW), {
    model: 'nothing', window_days: 7, since: '2026-11-17', requests: 0, attempts: 0, success_rate: null,
    latency_ms: { p50: null, p95: null }, tokens_per_second: null,
  });
});

test('rankings by tokens of served requests, per window; days past 30 are forgotten', () => {
  const b = new TrafficBook(() => true);
  b.add(sample({ model: 'big', promptTokens: 1000, completionTokens: 0 }));
  b.add(sample({ model: 'small', promptTokens: 100, completionTokens: 0 }));
  b.add(sample({ model: 'old', at: NOW - 20 * DAY, promptTokens: 5000, completionTokens: 0 }));
  b.add(sample({ model: 'ancient', at: NOW - 31 * DAY, promptTokens: 9000, completionTokens: 0 }));
  b.add(sample({ model: 'failed', billable: false, status: 502 }));
  const r = b.rankings(NOW);
  assert.equal(r.windows.map((w) => [w.days, w.since]), [[7, '2026-11-17'], [30, '2026-10-25']]);
  assert.equal(r.windows[0].data, [
    { rank: 1, model: 'big', tokens: 1000, requests: 1, share: 0.9091 },
    { rank: 2, model: 'small', tokens: 100, requests: 1, share: 0.0909 },
  ]);
  assert.equal(r.windows[1].data.map((e) => e.model), ['old', 'big', 'small']);
  // Ten days on, the 30-day window has moved past 'old'.
  b.add(sample({ at: NOW + 10 * DAY }));
  assert.equal(b.rankings(NOW + 10 * DAY).windows[1].data.map((e) => e.model), ['big', 'small', 'm1']);
});

test('a rebuild reads the ledger from 30 days back up to the given row, in slices', async () => {
  const rows = Array.from({ length: 12_000 }, (_, i) => ({
    id: i + 1, at: NOW - 40 * DAY + i * 5 * 60_000, model: 'm1', status: 200, error_code: null, prompt_tokens: 1, completion_tokens: 1,
    latency_ms: 10, ttfb_ms: 5, billable: 1,
  }));
  const pages: number[] = [];
  const reader = {
    firstIdSince: (at: number) => rows.find((r) => r.at >= at)?.id ?? rows.length + 1,
    page: (after: number, upTo: number, limit: number) => {
      const out = rows.filter((r) => r.id > after && r.id <= upTo).slice(0, limit);
      pages.push(out.length);
      return out;
    },
  };
  const b = new TrafficBook(() => true);
  await b.load(reader, 11_000, NOW);
  const first = rows.find((r) => r.at >= Date.parse('2026-10-24T18:30:00Z'))!.id;
  assert.is(b.rankings(NOW).windows[1].data[0].requests, 11_000 - first + 1);
  assert.ok(pages.length >= 2, 'more than one slice');
});

test.run();
