import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Breakers } from '../../src/dataplane/breakers.js';
import { RouteFailure, SATURATED } from '../../src/dataplane/route-failure.js';
import { errors } from '../../src/errors/catalog.js';

const cfg = { resetTimeoutMs: 60_000, errorThresholdPercentage: 50, volumeThreshold: 2, rollingWindowMs: 10_000 };
const fail = () => Promise.reject(new Error('upstream down'));
const ok = () => Promise.resolve('ok');

async function open(b: Breakers, route: { id: string; direct: boolean }): Promise<void> {
  for (let i = 0; i < 3; i++) await b.fire(route, fail).catch(() => undefined);
}

test('a catalog route\'s breaker outlives any number of direct routes; direct ones are bounded, oldest first', async () => {
  const b = new Breakers(cfg);
  const catalog = { id: 'groq:llama', direct: false };
  const firstDirect = { id: 'openai:gpt-x-0', direct: true };
  await open(b, catalog);
  await open(b, firstDirect);
  assert.ok(b.isOpen(catalog.id) && b.isOpen(firstDirect.id));
  // Callers may name routes without end: 1,000 more direct routes push the first one out.
  for (let i = 1; i <= 1_000; i++) await b.fire({ id: `openai:gpt-x-${i}`, direct: true }, ok);
  assert.is(b.state(firstDirect.id), 'closed');
  assert.ok(b.isOpen(catalog.id), 'the catalog route is still open');
  assert.is(b.state('openai:gpt-x-1000'), 'closed');
  b.shutdown();
});

/** Breakers on a clock the test moves. */
function clocked(o: Partial<typeof cfg> = {}): { b: Breakers; advance: (ms: number) => void } {
  let t = 1_000;
  return { b: new Breakers({ ...cfg, ...o }, () => t), advance: (ms) => { t += ms; } };
}
const route = { id: 'groq:llama', direct: false };
const down = new RouteFailure('upstream_error', 'upstream answered 500');

test('opens once the window holds volumeThreshold fires and more than the threshold of them failed', () => {
  const { b } = clocked({ volumeThreshold: 4, errorThresholdPercentage: 50 });
  const r = b.for(route);
  for (const outcome of [down, null, down]) {
    assert.ok(r.enter());
    r.settle(outcome);
  }
  assert.is(r.state, 'closed', 'three fires are under the volume threshold');
  assert.ok(r.enter());
  r.settle(null);
  assert.ok(r.enter());
  r.settle(down);
  assert.is(r.state, 'open', '3 failures of 5 fires is 60%');
  // Opossum compares with > : exactly 50% stays closed.
  const { b: b2 } = clocked({ volumeThreshold: 2, errorThresholdPercentage: 50 });
  const r2 = b2.for(route);
  r2.enter();
  r2.settle(null);
  r2.enter();
  r2.settle(down);
  assert.is(r2.state, 'closed');
  r2.enter();
  r2.settle(down);
  assert.is(r2.state, 'open');
});

test('an open circuit refuses calls, goes half-open after the reset time, and lets exactly one trial through', () => {
  const { b, advance } = clocked({ volumeThreshold: 1, resetTimeoutMs: 500 });
  const r = b.for(route);
  r.enter();
  r.settle(down);
  assert.is(r.state, 'open');
  assert.ok(b.isOpen(route.id));
  assert.not.ok(r.enter());
  advance(499);
  assert.not.ok(r.enter());
  advance(1);
  assert.is(b.state(route.id), 'half_open');
  assert.not.ok(b.isOpen(route.id));
  assert.ok(r.enter(), 'the trial');
  assert.not.ok(r.enter(), 'one trial at a time');
  r.settle(null);
  assert.is(r.state, 'closed');
  assert.ok(r.enter());
});

test('a failed trial opens the circuit again for another reset time', () => {
  const { b, advance } = clocked({ volumeThreshold: 100, resetTimeoutMs: 500 });
  const r = b.for(route);
  for (let i = 0; i < 100; i++) {
    r.enter();
    r.settle(down);
  }
  assert.is(r.state, 'open');
  advance(500);
  assert.ok(r.enter());
  r.settle(down);
  assert.is(r.state, 'open', 'half-open fails regardless of the volume threshold');
  advance(499);
  assert.not.ok(r.enter());
  advance(1);
  assert.is(r.state, 'half_open');
});

test("the caller's errors and a full connection pool do not count against the route, and close a half-open one", () => {
  const { b, advance } = clocked({ volumeThreshold: 1, resetTimeoutMs: 500 });
  const r = b.for(route);
  for (let i = 0; i < 10; i++) {
    r.enter();
    r.settle(i % 2 === 0 ? errors.badRequest('bad') : new RouteFailure(SATURATED, 'busy', 503));
  }
  assert.is(r.state, 'closed');
  r.enter();
  r.settle(down);
  assert.is(r.state, 'closed', '1 failure of 11 fires');
  for (let i = 0; i < 12; i++) {
    r.enter();
    r.settle(down);
  }
  assert.is(r.state, 'open');
  advance(500);
  r.enter();
  r.settle(errors.badRequest('bad'));
  assert.is(r.state, 'closed');
});

test('fires and failures leave the rolling window as it moves on', () => {
  const { b, advance } = clocked({ volumeThreshold: 3, rollingWindowMs: 10_000 });
  const r = b.for(route);
  for (let i = 0; i < 2; i++) {
    r.enter();
    r.settle(down);
  }
  advance(10_000);
  r.enter();
  r.settle(down);
  assert.is(r.state, 'closed', 'the first two failures left the window: one fire is under the threshold');
  advance(5_000);
  for (let i = 0; i < 2; i++) {
    r.enter();
    r.settle(down);
  }
  assert.is(r.state, 'open', 'three failures within the window');
});

test.run();
