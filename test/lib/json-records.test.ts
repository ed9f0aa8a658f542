// valueIs (lib/json-records.ts): four bytes a load, the last word overlapping; held to a plain
// comparison of the bytes on random values, at every offset and length, in bodies that are
// slices of larger buffers (a DataView over the body must start at its own first byte).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { literalBytes, tokenBytes, valueIs } from '../../src/lib/json-records.js';
import { rng } from '../support/seeded-random.js';

const ALPHABET = 'ab"\\_é日\u0000x';

function randomText(r: () => number, max: number): string {
  let s = '';
  const n = Math.floor(r() * max);
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(r() * ALPHABET.length)];
  return s;
}

test('valueIs says what comparing the bytes says, for literals of every length, at every offset of a sliced body', () => {
  const r = rng(4242);
  let equal = 0;
  for (let c = 0; c < 3000; c++) {
    const word = r() < 0.1 ? tokenBytes(['true', 'null', 'false', '1'][Math.floor(r() * 4)]) : literalBytes(randomText(r, 12));
    const w = word.bytes;
    // The body: the word, or a near miss (one byte changed, or cut), between random bytes, inside a larger buffer.
    let value = Buffer.from(w);
    const k = r();
    if (k < 0.3 && value.length > 0) value[Math.floor(r() * value.length)] ^= 1 << Math.floor(r() * 8);
    else if (k < 0.4) value = value.subarray(0, Math.floor(r() * value.length));
    const prefix = Buffer.from(randomText(r, 5));
    const before = Buffer.from(randomText(r, 9));
    const outer = Buffer.concat([prefix, before, value, Buffer.from(randomText(r, 9))]);
    // The body is a view of `outer` from a random offset, as a pooled Buffer is.
    const skip = Math.floor(r() * (prefix.length + 1));
    const body = outer.subarray(skip);
    const at = prefix.length - skip + before.length;
    const to = at + value.length;
    const want = value.length === w.length && value.equals(w);
    if (want) equal++;
    assert.is(valueIs(body, at, to, word), want, `case ${c}: ${JSON.stringify(value.toString('latin1'))} against ${JSON.stringify(w.toString('latin1'))} at ${at}`);
  }
  assert.ok(equal > 1500, `${equal} equal cases`);
});

test('two bodies in turn: the view of the first is not read for the second', () => {
  const word = literalBytes('function_call_output');
  const a = Buffer.from(`[${JSON.stringify('function_call_output')}]`);
  const b = Buffer.from(`[${JSON.stringify('function_call_outpux')}]`);
  assert.ok(valueIs(a, 1, a.length - 1, word));
  assert.not.ok(valueIs(b, 1, b.length - 1, word));
  assert.ok(valueIs(a, 1, a.length - 1, word));
});

test.run();
