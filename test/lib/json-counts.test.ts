// readCounts (lib/json-counts.ts) against JSON.parse: whatever it accepts, JSON.parse reads as the
// same object; usage objects as providers write them, then random edits of them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readCounts, type Counts } from '../../src/lib/json-counts.js';
import { mutate } from '../support/json-mutate.js';
import { rng } from '../support/seeded-random.js';

const USAGES = [
  '{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29}',
  '{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":8,"audio_tokens":0},' +
    '"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}',
  '{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0,"prompt_tokens_details":null}',
  '{}',
  '{"a":{}}',
  '{"prompt_tokens":123456789012345,"x":1,"x":2}',
  // The three counts stored by name: in another order, given twice, beside keys of their lengths that are not them.
  '{"total_tokens":3,"completion_tokens":2,"prompt_tokens":1,"prompt_tokens":4}',
  '{"prompt_tokenz":1,"completion_tokenS":2,"total_tokens_":3,"total-tokens":4,"prompt_tokens":null,"total_tokens":{"a":1}}',
];

/** Reads `text` whole, as a chunk's usage is read: the object, then nothing. */
function read(text: string): Counts | null {
  const into: Counts = {};
  const end = readCounts(text, 0, into);
  return end === text.length ? into : null;
}

test('usage objects as providers write them read as JSON.parse reads them', () => {
  for (const u of USAGES) assert.equal(read(u), JSON.parse(u), u);
});

test('what it does not take: escapes, space, signs, fractions, exponents, leading zeros, long numbers, strings, deep objects, __proto__', () => {
  for (const u of ['{"a\\u0062":1}', '{ "a":1}', '{"a": 1}', '{"a":-1}', '{"a":1.5}', '{"a":1e3}', '{"a":01}', '{"a":1234567890123456}',
    '{"a":"1"}', '{"a":true}', '{"a":{"b":{}}}', '{"__proto__":1}', '{"a":1,}', '{"a":1', '{"a"1}', '{"é":1}', '{"a":nul}', '{"a":[]}',
    '{"a":{"__proto__":1}}', '{"__proto__":null}', '{"__proto__":{}}']) {
    assert.is(read(u), null, u);
  }
});

test('random edits: whatever it accepts, JSON.parse reads the same', () => {
  const r = rng(17);
  let accepted = 0;
  for (let n = 0; n < 20000; n++) {
    const src = Buffer.from(USAGES[n % USAGES.length]);
    const text = mutate(src, r, ['{"k":1}', ',"n":null', '00', '1.0', '"x"', '{', '}', '\\"']).toString('latin1');
    const got = read(text);
    if (got === null) continue;
    accepted++;
    assert.equal(got, JSON.parse(text), text);
  }
  assert.ok(accepted > 1000, `${accepted} edits accepted`);
});

test.run();
