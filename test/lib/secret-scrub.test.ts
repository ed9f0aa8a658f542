import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scrubSecrets } from '../../src/lib/secret-scrub.js';

test('removes the secret sent, wherever and however often it appears', () => {
  assert.is(scrubSecrets('key plat-1234567890abcdef refused; plat-1234567890abcdef', 'plat-1234567890abcdef'),
    'key [redacted] refused; [redacted]');
});

test('removes a secret the upstream echoed cut short', () => {
  assert.is(scrubSecrets('Invalid key plat-1234567890ab…', 'plat-1234567890abcdef'), 'Invalid key [redacted]…');
});

test('removes bearer credentials and known provider key shapes it was not told of', () => {
  assert.is(scrubSecrets('got Bearer abc.def-123_x and sk-proj-AAAA1111bbbb and gsk_0123456789abc and AIzaSyA1234567890abcdefghij', null),
    'got [redacted] and [redacted] and [redacted] and [redacted]');
});

test('leaves ordinary words and short tokens alone', () => {
  const text = "task-force: the model 'gpt-4o-mini' is not sk-ready; max_tokens too large";
  assert.is(scrubSecrets(text, 'plat-1234567890abcdef'), text);
});

test.run();
