// Byte text (lib/byte-text.ts): a string of a character a byte, turned back into characters by
// decodeText as Buffer#toString('utf8') turns the bytes, short ASCII ones included.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { byteText, decodeText } from '../../src/lib/byte-text.js';
import { rng } from '../support/seeded-random.js';

const bytesOf = (t: string): Buffer => Buffer.from(t, 'latin1');

test('decodeText reads the bytes as UTF-8, whatever their length and content', () => {
  const r = rng(17);
  for (let i = 0; i < 20000; i++) {
    const n = Math.floor(r() * (r() < 0.8 ? 40 : 200));
    const b = Buffer.alloc(n);
    // Mostly ASCII, some bytes of multi-byte characters and some that are not UTF-8 at all.
    for (let j = 0; j < n; j++) b[j] = r() < 0.9 ? Math.floor(r() * 0x80) : 0x80 + Math.floor(r() * 0x80);
    const t = b.toString('latin1');
    assert.is(decodeText(t), b.toString('utf8'), `bytes ${b.toString('hex')}`);
  }
});

test('decodeText undoes byteText; the usual finish reasons come back as they are', () => {
  for (const s of ['stop', 'length', 'tool_calls', 'content_filter', '', 'é', 'naïve', '日本語', '🙂 ok', 'x'.repeat(31) + 'é', 'a'.repeat(40)]) {
    assert.is(decodeText(byteText(s)), s);
    assert.equal(bytesOf(byteText(s)), Buffer.from(s, 'utf8'));
  }
  // A byte of 0x80 or more in a short text is not ASCII: it is decoded, here as U+FFFD.
  assert.is(decodeText('stop\x80'), 'stop\ufffd');
});

test.run();
