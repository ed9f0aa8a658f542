import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rarestLead, TextNeedle } from '../../src/lib/rare-needle.js';

test('a needle is searched for from its byte least common in answers, leaving four bytes after it', () => {
  assert.is(rarestLead('data: [DONE]'), 7, 'the D, not the d of every event');
  assert.is(rarestLead(Buffer.from('sk-proj-Ab3XyZ')), 8, 'a capital of the random part');
  assert.is(rarestLead('AIzaSyB-12'), 0);
  assert.is(rarestLead('abc'), 0, 'a needle shorter than four bytes from its start');
  assert.is(rarestLead('xxxxxxxxA'), 0, 'never past the last place that leaves four bytes');
});

test('finds the needle where String#indexOf does, from any place, in random texts full of near-misses', () => {
  let seed = 7;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  for (const word of ['data: [DONE]', 'arguments":', 'content":', 'refusal":', 'aaaab', 'xy', 'ABAB-ABAB']) {
    const needle = new TextNeedle(word);
    const parts = [word, word.slice(1), word.slice(0, -1), word.slice(2, 6), word[0], word[word.length - 1], 'data: ', '"', '\n'];
    for (let round = 0; round < 400; round++) {
      let text = '';
      while (text.length < 60) text += parts[rnd(parts.length)];
      const from = rnd(text.length + 3);
      assert.is(needle.in(text, from), text.indexOf(word, from), `${JSON.stringify(word)} in ${JSON.stringify(text)} from ${from}`);
      assert.is(needle.in(text), text.indexOf(word));
    }
  }
});

test.run();
