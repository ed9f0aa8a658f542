import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonString, writeJson } from '../../src/lib/json-write.js';
import { randomValue, SPECIAL } from '../support/random-json.js';
import { rng } from '../support/seeded-random.js';

// writeJson against JSON.stringify on random values (a fixed seed, so a failure repeats): the
// text must be the same, character for character, whatever the strings hold.


test('writes what JSON.stringify writes, for random values', () => {
  const r = rng(17);
  for (let i = 0; i < 4000; i++) {
    const v = { value: randomValue(r, 0) };
    assert.is(writeJson(v), JSON.stringify(v), `iteration ${i}`);
  }
});

test('strings of every length around the native check, each with one special character anywhere', () => {
  for (const n of [0, 1, 30, 31, 32, 33, 100, 5000, 70_000]) {
    const base = 'x'.repeat(n);
    assert.is(jsonString(base), JSON.stringify(base));
    for (const c of SPECIAL) {
      for (const at of [0, n >> 1, n]) {
        const s = base.slice(0, at) + c + base.slice(at);
        assert.is(jsonString(s), JSON.stringify(s), `length ${n}, ${JSON.stringify(c)} at ${at}`);
      }
    }
  }
});

test('what it leaves to JSON.stringify is written as JSON.stringify writes it', () => {
  const v = { date: new Date(0), own: { toJSON: () => 'x' }, boxed: [new String('s'), new Number(1)], proto: Object.create({ inherited: 1 }),
    deep: JSON.parse('['.repeat(100) + ']'.repeat(100)) as unknown, sparse: [1, , 3], keys: { 2: 'b', 1: 'a', z: 'c' } };
  assert.is(writeJson(v), JSON.stringify(v));
  assert.throws(() => writeJson({ n: 1n }), TypeError);
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  assert.throws(() => writeJson(cycle), TypeError);
});

test.run();
