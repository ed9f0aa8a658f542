import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hasBackslash, stringAt } from '../../src/formats/body-spans.js';

// hasBackslash reads short spans by a loop and long ones natively (a view of the span): on both
// sides of the switch, a backslash counts exactly when it is inside the span, never just outside it.

test('a backslash counts only inside the span, for spans on both sides of the native search', () => {
  for (const length of [0, 1, 2, 127, 128, 129, 130, 2000]) {
    const pad = 5;
    const bytes = Buffer.alloc(length + 2 * pad, 0x61);
    assert.not.ok(hasBackslash(bytes, pad, pad + length), `${length}: none`);
    // Just before and just after the span: not in it.
    bytes[pad - 1] = 0x5c;
    bytes[pad + length] = 0x5c;
    assert.not.ok(hasBackslash(bytes, pad, pad + length), `${length}: only around it`);
    for (const at of [0, Math.floor(length / 2), length - 1]) {
      if (length === 0) continue;
      const inside = Buffer.from(bytes);
      inside[pad + at] = 0x5c;
      assert.ok(hasBackslash(inside, pad, pad + length), `${length}: at ${at}`);
    }
  }
});

test('a long string member is read as JSON.parse reads it, escaped or not', () => {
  for (const text of ['plain '.repeat(100), `${'plain '.repeat(100)}"quoted"\n`, `\\${'x'.repeat(300)}`]) {
    const raw = Buffer.from(JSON.stringify({ instructions: text }));
    const start = raw.indexOf(':') + 1;
    assert.is(stringAt(raw, { key: 1, start, end: raw.length - 1 }), text);
  }
});

test.run();
