// generatedTextBytes (lib/json-text.ts) against the strings it counts, on chunks of many events
// as fast providers send them: texts with and without escapes, in every order, each counted as
// its UTF-8 bytes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generatedTextBytes } from '../../src/lib/json-text.js';
import { rng } from '../support/seeded-random.js';

const PIECES = ['a', 'tok ', 'é', 'नम', '😀', '"', '\\', '\n', '\t', '\u0001', '\u007f', 'content":', '\\"'];

test('a chunk of many events counts each text as its UTF-8 bytes, escapes or none, wherever they are', () => {
  const r = rng(7);
  for (let n = 0; n < 300; n++) {
    let chunk = '';
    let expected = 0;
    const events = 1 + Math.floor(r() * 60);
    for (let e = 0; e < events; e++) {
      let s = '';
      // Most texts plain, as most deltas are: the escapes come in a few.
      const plain = r() < 0.8;
      for (let k = Math.floor(r() * 6); k > 0; k--) s += plain ? PIECES[Math.floor(r() * 5)] : PIECES[Math.floor(r() * PIECES.length)];
      const delta = r() < 0.7 ? { content: s } : r() < 0.5 ? { reasoning_content: s } : { tool_calls: [{ index: 0, function: { arguments: s } }] };
      chunk += `data: ${JSON.stringify({ id: 'c', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
      expected += Buffer.byteLength(s);
    }
    assert.is(generatedTextBytes(Buffer.from(chunk).toString('latin1')), expected, chunk);
  }
});

test('a refusal, and keys spaced from their values', () => {
  const text = Buffer.from('{"refusal": "no \\"way\\""}\n{"content" :"x"}\n{"content": "दो"}').toString('latin1');
  assert.is(generatedTextBytes(text), Buffer.byteLength('no "way"') + Buffer.byteLength('दो'));
});

test.run();
