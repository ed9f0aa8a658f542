import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { canonicalStringEnd, hasAt, isDone, literalValue, smallIntEnd } from '../../src/lib/json-literal.js';

// canonicalStringEnd accepts a literal only when its text is exactly what JSON.stringify writes
// for the value JSON.parse reads from it: then a fast path may copy the literal as it came. It
// leaves every \u escape to the slow path, canonical or not (JSON.stringify writes \u0001 so).

const LITERALS = [
  '""', '"a"', '"token0 "', '"नमस्ते"', '"😀"', '"a\\"b"', '"a\\\\b"', '"line\\nnext"', '"\\r\\t\\b\\f"', '"\\\\"', '"\\\\\\""',
  // Valid JSON that JSON.stringify writes otherwise: left to the slow path.
  '"\\/"', '"\\u0041"', '"\\u00e9"', '"\\u0001"', '"\\ud83d\\ude00"', '"\\ud83d"',
  // Not valid JSON: refused by both.
  '"a\u0001b"', '"tab\there"', '"\\x"', '"\\', '"open', '"\\u12"',
];

test('accepts only the literals JSON.stringify would write back unchanged, and all of them without a \\u escape', () => {
  for (const lit of LITERALS) {
    const text = `{"text":${lit}}}`;
    const end = canonicalStringEnd(text, 8, text.length);
    let canonical = false;
    try {
      canonical = JSON.stringify(JSON.parse(lit)) === lit;
    } catch { /* not JSON */ }
    if (end >= 0) assert.ok(canonical, `${lit} is accepted but not canonical`);
    else if (!lit.includes('\\u')) assert.not.ok(canonical, `${lit} is canonical but refused`);
    if (end >= 0) {
      assert.is(text.slice(8, end), lit);
      assert.is(literalValue(text, 8, end), JSON.parse(lit));
    }
  }
});

test('stops at the bound it is given, and needs an opening quote', () => {
  assert.is(canonicalStringEnd('"abc"', 0, 4), -1);
  assert.is(canonicalStringEnd('"abc"', 0, 5), 5);
  assert.is(canonicalStringEnd('x"abc"', 0, 6), -1);
});

test('small integers: no sign, no leading zero, no fraction, nine digits at most', () => {
  const cases: [string, number][] = [['0,', 1], ['7}', 1], ['123,', 3], ['01,', -1], ['-1,', -1], [',', -1], ['1234567890,', -1], ['123456789}', 9]];
  for (const [s, end] of cases) assert.is(smallIntEnd(s, 0), end, s);
});

test('hasAt compares at an offset, and not past the text', () => {
  assert.ok(hasAt('data: {"type":"ping"}', 6, '{"type":"ping"}'));
  assert.not.ok(hasAt('data: {"type":"pin', 6, '{"type":"ping"}'));
  assert.not.ok(hasAt('data: {"type":"pong"}', 6, '{"type":"ping"}'));
});

test('isDone finds [DONE] only where trimming the decoded payload finds it, and leaves the rest to that trim', () => {
  const payloads = ['[DONE]', '[DONE] ', '[DONE]\t ', ' [DONE]', '[DONE]\r', '[DONE] \r\t', '[DONE]\u00a0', '[DONE', '[DONE]x', '[done]', '"[DONE]"', '{"a":1}', '', '[DONE] [DONE]'];
  for (const p of payloads) {
    const line = `data: ${Buffer.from(p, 'utf8').toString('latin1')}`;
    const found = isDone(line, 6, line.length);
    // Never a [DONE] the slow path would not take: where it says so, trimming says the same.
    if (found) assert.is(p.trim(), '[DONE]', JSON.stringify(p));
    // Payloads of [DONE] and spaces, tabs or carriage returns after it are found without decoding.
    assert.is(found, /^\[DONE\][ \t\r]*$/.test(p), JSON.stringify(p));
  }
  assert.not.ok(isDone('data: [DONE]', 6, 11), 'not past the bound it is given');
});

test.run();
