import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonString, writeJson } from '../../src/lib/json-write.js';
import { rng } from '../support/seeded-random.js';

// writeJson against JSON.stringify on random values (a fixed seed, so a failure repeats): the
// text must be the same, character for character, whatever the strings hold.


// Characters that need escaping, that look like they might (U+010A and U+0122 end in a newline's
// and a quote's byte), surrogates paired and alone, and ordinary text of one and two bytes.
const SPECIAL = ['"', '\\', '\n', '\r', '\t', '\b', '\f', '\u0000', '\u0001', '\u001f', '\u007f', '\u0080', '\u00e9', '\u010a', '\u0122',
  '\u2028', '\u2029', '\ud83d\ude00', '\ud83d', '\ude00', 'न', '/', ' ', '<', '\u00ff', '\u0100'];

function randomString(r: () => number): string {
  const plain = r() < 0.5;
  const n = r() < 0.3 ? Math.floor(r() * 8) : r() < 0.7 ? 20 + Math.floor(r() * 40) : 200 + Math.floor(r() * 3000);
  let s = '';
  while (s.length < n) {
    if (!plain && r() < 0.05) s += SPECIAL[Math.floor(r() * SPECIAL.length)];
    else s += String.fromCharCode(0x20 + Math.floor(r() * 0x5e)).replace(/["\\]/, 'a');
  }
  // A plain long string now and then ends in one special character: the check must see the last one.
  return !plain || r() < 0.8 ? s : s + SPECIAL[Math.floor(r() * SPECIAL.length)];
}

function randomValue(r: () => number, depth: number): unknown {
  const k = r();
  if (depth > 4 || k < 0.35) return randomString(r);
  if (k < 0.45) {
    const pick = [0, -0, 1, -1.5, 1e21, 1e-7, 123456789.123, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, Math.PI];
    return pick[Math.floor(r() * pick.length)];
  }
  if (k < 0.5) return r() < 0.5;
  if (k < 0.55) return null;
  if (k < 0.6) return [undefined, () => 1, Symbol('s')][Math.floor(r() * 3)];
  if (k < 0.75) return Array.from({ length: Math.floor(r() * 5) }, () => randomValue(r, depth + 1));
  const o: Record<string, unknown> = {};
  const members = Math.floor(r() * 6);
  for (let i = 0; i < members; i++) {
    const name = r() < 0.2 ? String(Math.floor(r() * 20)) : r() < 0.2 ? randomString(r) : ['role', 'content', 'type', 'text', 'model'][Math.floor(r() * 5)];
    o[name] = randomValue(r, depth + 1);
  }
  return o;
}

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
