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

/** A run for pushRuns that reads the lines starting with "run" into `seen`, up to the first that does not. */
function runLines(seen: string[]): (lines: Buffer, at: number) => number {
  return (lines, at) => {
    while (at < lines.length && lines.toString('latin1', at, at + 3) === 'run') {
      const nl = lines.indexOf(0x0a, at);
      const end = nl < 0 ? lines.length : nl;
      seen.push(`[${lines.toString('utf8', at, end)}]`);
      at = end + 1;
    }
    return at;
  };
}

test('pushRuns: a run reads the lines it can, the rest go to the span as byte text, blank lines to neither, whatever the cuts', () => {
  const text = 'run 1\nrun 2\n\nline नमस्ते\nrun 3\n\n\nline b\nrun 4\n';
  const bytes = Buffer.from(text);
  for (let size = 1; size <= bytes.length; size++) {
    const r = new LineReader();
    const seen: string[] = [];
    const run = runLines(seen);
    for (let i = 0; i < bytes.length; i += size) {
      r.pushRuns(bytes.subarray(i, i + size), (t, start, end) => seen.push(`${r.utf8(start, end)} (${end - start} bytes)`), run);
    }
    assert.equal(seen, ['[run 1]', '[run 2]', `line नमस्ते (${Buffer.byteLength('line नमस्ते')} bytes)`, '[run 3]', 'line b (6 bytes)', '[run 4]'], `cut every ${size} bytes`);
  }
});

test('pushRuns: lines far from the end come one at a time, the last ones as spans of one byte text; either way each span is its line', () => {
  // Lines of ~100 bytes and runs between them: the first lines are more than 512 bytes from the
  // chunk's end, the last ones fewer, and the cuts move that boundary through every line.
  const lines: string[] = [];
  for (let i = 0; i < 14; i++) lines.push(i % 3 === 2 ? `run ${i}` : `line ${i} ${'é'.repeat(i)} ${'x'.repeat(80 + i)}`);
  const text = `${lines.join('\n\n')}\n`;
  const bytes = Buffer.from(text);
  const want = lines.map((l) => (l.startsWith('run') ? `[${l}]` : l));
  for (const size of [1, 7, 100, 333, 512, 513, 700, bytes.length]) {
    const r = new LineReader();
    const seen: string[] = [];
    const run = runLines(seen);
    for (let i = 0; i < bytes.length; i += size) {
      r.pushRuns(bytes.subarray(i, i + size), (t, start, end) => {
        const line = r.utf8(start, end);
        // The byte text's span is the line's bytes, a character a byte, and holds no newline.
        assert.is(t.slice(start, end), Buffer.from(line).toString('latin1'));
        seen.push(line);
      }, run);
    }
    assert.equal(seen, want, `cut every ${size} bytes`);
  }
});

test('an unfinished line is its own copy: the chunk it came in may be written over once push returns', () => {
  for (const via of ['push', 'pushBytes', 'pushRuns'] as const) {
    const r = new LineReader();
    const seen: string[] = [];
    const take = (chunk: Buffer): void => {
      if (via === 'push') r.push(chunk, (l) => (seen.push(l), ''));
      else if (via === 'pushBytes') r.pushBytes(chunk, (t, a, b) => void seen.push(t.slice(a, b)));
      else r.pushRuns(chunk, (t, a, b) => void seen.push(t.slice(a, b)), (_lines, at) => at);
    };
    const first = Buffer.from('data: one\ndata: tw');
    take(first);
    first.fill(0x78);
    const whole = Buffer.from('data: no newline yet');
    take(whole);
    whole.fill(0x79);
    take(Buffer.from('o\n'));
    assert.equal(seen, ['data: one', 'data: twdata: no newline yeto'], via);
  }
});

test.run();
