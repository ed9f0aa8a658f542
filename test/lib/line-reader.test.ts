import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LineReader } from '../../src/lib/line-reader.js';

const collect = (r: LineReader, chunk: Buffer | string, seen: string[]): string => r.push(chunk, (l) => {
  seen.push(l);
  return `<${l}>`;
});

test('lines come out whole whatever the cuts, a multi-byte character cut in two included', () => {
  const text = 'data: नमस्ते\n\ndata: [DONE]\n';
  const bytes = Buffer.from(text);
  for (let size = 1; size <= bytes.length; size++) {
    const r = new LineReader();
    const seen: string[] = [];
    let out = '';
    for (let i = 0; i < bytes.length; i += size) out += collect(r, bytes.subarray(i, i + size), seen);
    assert.equal(seen, ['data: नमस्ते', '', 'data: [DONE]'], `cut every ${size} bytes`);
    assert.is(out, '<data: नमस्ते><><data: [DONE]>');
    assert.is(r.rest(), null);
  }
});

test('an unfinished last line waits, and rest() gives it once; strings are read as UTF-8 too', () => {
  const r = new LineReader();
  const seen: string[] = [];
  assert.is(collect(r, 'data: a\r\ndata: b', seen), '<data: a\r>');
  assert.is(r.rest(), 'data: b');
  assert.is(r.rest(), null);
  assert.equal(seen, ['data: a\r']);
});

test.run();
