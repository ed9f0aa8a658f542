import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SlidingWindow } from '../../src/lib/sliding-window.js';

// An arbitrary epoch-aligned second, so bucket boundaries are easy to read: T + 1000 is the next second.
const T = 1_800_000_000_000;

test('counts requests in the last minute and forgets each one 60 s after its second began', () => {
  const w = new SlidingWindow();
  w.add(T);
  w.add(T + 999);
  w.add(T + 30_000);
  assert.is(w.count(T + 30_000), 3);
  assert.is(w.count(T + 59_999), 3, 'still inside the minute');
  assert.is(w.count(T + 60_000), 1, 'both requests of second T left together');
  assert.is(w.count(T + 89_999), 1);
  assert.is(w.count(T + 90_000), 0);
});

test('an empty window admits at once: retryAfterSeconds is 0 while under the limit', () => {
  const w = new SlidingWindow();
  assert.is(w.count(T), 0);
  assert.is(w.retryAfterSeconds(T, 1), 0);
  w.add(T);
  assert.is(w.retryAfterSeconds(T, 2), 0);
  assert.is(w.retryAfterSeconds(T, 1), 60);
});

test('retryAfterSeconds is exactly the wait until the oldest request leaves, rounded up', () => {
  const w = new SlidingWindow();
  w.add(T + 250);
  w.add(T + 20_000);
  w.add(T + 20_500);
  const now = T + 40_400;
  // Limit 3 is full. The request of second T leaves at T + 60 000: 19.6 s away, so 20.
  assert.is(w.retryAfterSeconds(now, 3), 20);
  assert.is(w.count(now + 19_599), 3, 'one millisecond early it is still full');
  assert.is(w.count(now + 19_600), 2, 'at the promised moment a request would pass');
  // Limit 2: two must leave; the second-oldest is in second T+20, leaving at T + 80 000.
  assert.is(w.retryAfterSeconds(now, 2), 40);
  // Limit 1: all three must leave; the two of second T+20 leave together at T + 80 000.
  assert.is(w.retryAfterSeconds(now, 1), 40);
  assert.is(w.count(T + 79_999), 2);
  assert.is(w.count(T + 80_000), 0);
});

test('a promised retry-after always admits, and one second less never does', () => {
  // Deterministic pseudo-random arrivals over four and a half minutes, checked against a plain list.
  let seed = 7;
  const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  const w = new SlidingWindow();
  const log: number[] = [];
  const limit = 8;
  let refused = 0;
  const inWindow = (now: number) => log.filter((t) => Math.floor(t / 1000) > Math.floor(now / 1000) - 60).length;
  let now = T;
  for (let i = 0; i < 600; i++) {
    now += Math.floor(rand() * 900);
    assert.is(w.count(now), inWindow(now), `count at step ${i}`);
    if (w.count(now) < limit) {
      w.add(now);
      log.push(now);
      continue;
    }
    refused++;
    const ra = w.retryAfterSeconds(now, limit);
    assert.ok(ra >= 1 && ra <= 60, `retry-after ${ra} in range`);
    assert.ok(inWindow(now + ra * 1000) < limit, `after ${ra} s a request passes (step ${i})`);
    if (ra > 1) assert.ok(inWindow(now + (ra - 1) * 1000) >= limit, `after ${ra - 1} s it would not (step ${i})`);
  }
  assert.ok(log.length > 30 && refused > 100, `the run admitted ${log.length} and refused ${refused}: enough to mean something`);
});

test('a burst far above the limit is remembered in full, in constant memory', () => {
  const w = new SlidingWindow();
  for (let i = 0; i < 10_000; i++) w.add(T + (i % 1000));
  assert.is(w.count(T + 999), 10_000);
  assert.is(w.retryAfterSeconds(T + 999, 120), 60, 'all in one second: the whole minute must pass (59.001 s, rounded up)');
  assert.is(w.count(T + 60_000), 0);
});

test('a bucket reused a minute later starts from zero rather than adding to stale counts', () => {
  const w = new SlidingWindow();
  w.add(T + 5_000);
  w.add(T + 5_000);
  // The same bucket index, one minute on, without a count() in between to expire it.
  w.add(T + 65_000);
  assert.is(w.count(T + 65_000), 1);
  assert.is(w.retryAfterSeconds(T + 65_000, 1), 60);
});

test('after a long idle gap the window is empty and the limit applies afresh', () => {
  const w = new SlidingWindow();
  for (let i = 0; i < 3; i++) w.add(T + i * 100);
  assert.is(w.retryAfterSeconds(T + 300, 3), 60);
  const later = T + 3_600_000;
  assert.is(w.count(later), 0);
  assert.is(w.retryAfterSeconds(later, 3), 0);
});

test.run();
