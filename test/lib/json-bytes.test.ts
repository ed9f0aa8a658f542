import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeJsonBytes } from '../../src/lib/json-bytes.js';
import { randomValue, SPECIAL } from '../support/random-json.js';
import { rng } from '../support/seeded-random.js';

// writeJsonBytes against JSON.stringify on random values (a fixed seed, so a failure repeats):
// the bytes must be JSON.stringify's text as UTF-8, byte for byte, whatever the strings hold.

const same = (v: unknown, what: string): void => {
  const want = Buffer.from(JSON.stringify(v), 'utf8');
  const got = writeJsonBytes(v);
  if (!got.equals(want)) assert.fixture(got.toString('utf8'), want.toString('utf8'), what);
};

test('writes what JSON.stringify writes, for random values', () => {
  const r = rng(23);
  for (let i = 0; i < 4000; i++) same({ value: randomValue(r, 0) }, `iteration ${i}`);
});

test('strings of every length around the sixteen-byte steps, each with one special character anywhere', () => {
  for (const n of [0, 1, 15, 16, 17, 30, 31, 32, 33, 47, 48, 100, 5000, 70_000]) {
    const base = 'x'.repeat(n);
    same(base, `length ${n}`);
    for (const c of SPECIAL) {
      for (const at of [0, 1, n >> 1, Math.max(0, n - 1), n]) same(base.slice(0, at) + c + base.slice(at), `length ${n}, ${JSON.stringify(c)} at ${at}`);
    }
  }
});

test('every byte below 0x20, runs of escapes, and a literal six times its bytes (every byte a \\u00xx)', () => {
  let all = '';
  for (let c = 0; c < 0x80; c++) all += String.fromCharCode(c);
  same(all, 'the ASCII range');
  same('"\\'.repeat(5000), 'quotes and backslashes only');
  same('\u0001'.repeat(100_000), 'controls only: the literal grows the memory past the bytes');
  same(`${'a\n'.repeat(50_000)}é${'"'.repeat(17)}`, 'an agent\'s code: an escape every other byte');
});

test('large bodies in a row: the memory grows, and each body is its own copy', () => {
  const first = writeJsonBytes({ content: 'y'.repeat(3 * 1024 * 1024) });
  const second = writeJsonBytes({ content: 'z\n'.repeat(100) });
  assert.is(first.length, 3 * 1024 * 1024 + 14);
  assert.is(first.toString('latin1', 0, 12), '{"content":"');
  assert.is(second.toString(), JSON.stringify({ content: 'z\n'.repeat(100) }));
});

test('what it leaves to JSON.stringify is written as JSON.stringify writes it', () => {
  const v = { date: new Date(0), own: { toJSON: () => 'x' }, boxed: [new String('s'), new Number(1)], proto: Object.create({ inherited: 1 }),
    deep: JSON.parse('['.repeat(100) + ']'.repeat(100)) as unknown, sparse: [1, , 3], keys: { 2: 'b', 1: 'a', z: 'c' }, lone: '\ud800x', nan: Number.NaN };
  same(v, 'the odd values');
  assert.throws(() => writeJsonBytes({ n: 1n }), TypeError);
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  assert.throws(() => writeJsonBytes(cycle), TypeError);
});

test.run();
