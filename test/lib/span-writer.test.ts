// The span writer (lib/span-writer.ts, `spans` in json-skip.wat) against the plain concatenation
// of the same pieces: every length class the module copies differently (bytes, 8-byte words,
// 16-byte words with an overlapping tail, memory.copy), constants among them, the note list grown
// past its first size, and a body large enough that the module's memory must grow.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { constant, SpanWriter } from '../../src/lib/span-writer.js';
import { rng } from '../support/seeded-random.js';
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

const TEXTS = ['{"role":"user"', ',', '"', ',"content":', 'é', '{"type":"function","function":{"name":', 'x'.repeat(255)];
const CONSTANTS = TEXTS.map((t) => ({ code: constant(t), bytes: Buffer.from(t) }));

function body(r: () => number, size: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = 0x20 + Math.floor(r() * 95);
  return b;
}

function check(seed: number, size: number, pieces: number): void {
  const r = rng(seed);
  const raw = body(r, size);
  const w = new SpanWriter();
  w.begin();
  const expected: Buffer[] = [];
  for (let i = 0; i < pieces; i++) {
    if (r() < 0.3) {
      const c = CONSTANTS[Math.floor(r() * CONSTANTS.length)];
      w.put(c.code);
      expected.push(c.bytes);
    } else {
      const classes = [0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 127, 128, 129, 1000];
      const len = Math.min(size, r() < 0.5 ? classes[Math.floor(r() * classes.length)] : Math.floor(r() * 300));
      const from = Math.floor(r() * (size - len + 1));
      w.piece(from, from + len);
      expected.push(raw.subarray(from, from + len));
    }
  }
  const out = w.write(raw)!;
  const want = Buffer.concat(expected);
  assert.is(out.to - out.from, want.length, `seed ${seed}: length`);
  assert.ok(Buffer.from(out.bytes.subarray(out.from, out.to)).equals(want), `seed ${seed}: bytes`);
}

test('pieces and constants are written in order, each length class as it is', () => {
  for (let seed = 1; seed <= 300; seed++) check(seed, 2_000, 1 + (seed % 60));
});

test('the note list grows past its first size, and the memory past the body', () => {
  check(1001, 3_000, 5_000);
  check(1002, 3 * 1024 * 1024, 20_000);
});

test('a writer begun again forgets what it had', () => {
  const raw = Buffer.from('{"a":"hello"}');
  const w = new SpanWriter();
  w.begin();
  w.piece(1, 4);
  w.begin();
  w.piece(6, 11);
  w.put(CONSTANTS[1].code);
  const out = w.write(raw)!;
  assert.is(Buffer.from(out.bytes.subarray(out.from, out.to)).toString(), 'hello,');
});

test('computed bytes, short and long, go in order with the constants and the body', () => {
  const r = rng(2024);
  for (let round = 0; round < 50; round++) {
    const raw = body(r, 4_000);
    const w = new SpanWriter();
    w.begin();
    const expected: Buffer[] = [];
    for (let i = 0; i < 40; i++) {
      const k = r();
      if (k < 0.3) {
        // ASCII and not, short (copied in JavaScript while it is ASCII) and long.
        const m = Math.floor(r() * 200);
        const text = pick(r, ['ü→'.repeat(m), 'claude-x'.slice(0, m % 9), 'a'.repeat(m), `ab${'é'.repeat(m % 3)}c`, String(m), `"m/${m}"`]);
        w.text(text);
        expected.push(Buffer.from(text));
      } else if (k < 0.5) {
        const n = Math.floor(r() * 600);
        const t = w.staging(n);
        const from = t.at;
        for (let j = 0; j < n; j++) t.buf[t.at++] = 0x41 + (j % 26);
        w.staged(from, t.at);
        expected.push(Buffer.from(t.buf.subarray(from, t.at)));
      } else if (k < 0.7) {
        const c = CONSTANTS[Math.floor(r() * CONSTANTS.length)];
        w.put(c.code);
        expected.push(c.bytes);
      } else {
        const from = Math.floor(r() * 3_000);
        const to = from + Math.floor(r() * 900);
        w.piece(from, to);
        expected.push(raw.subarray(from, to));
      }
    }
    const out = w.write(raw)!;
    assert.ok(Buffer.from(out.bytes.subarray(out.from, out.to)).equals(Buffer.concat(expected)), `round ${round}`);
  }
});

test('computed bytes past what a code can place are refused, not written wrong', () => {
  const w = new SpanWriter();
  w.begin();
  w.text('x'.repeat(9 * 1024 * 1024));
  w.text('after');
  assert.is(w.write(Buffer.from('{}')), null);
});

test('a constant is 1 to 255 bytes', () => {
  assert.throws(() => constant(''));
  assert.throws(() => constant('x'.repeat(256)));
});

test.run();
