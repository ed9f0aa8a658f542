import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonNestsDeeperThan } from '../../src/lib/json-depth.js';

const nest = (n: number): string => '['.repeat(n) + ']'.repeat(n);

test('counts arrays and objects together and stops at the first level past the limit', () => {
  assert.not.ok(jsonNestsDeeperThan(nest(128), 128));
  assert.ok(jsonNestsDeeperThan(nest(129), 128));
  assert.ok(jsonNestsDeeperThan('{"a":'.repeat(70) + '[' .repeat(60) + ']'.repeat(60) + '}'.repeat(70), 128));
  assert.not.ok(jsonNestsDeeperThan(`[${nest(60)},${nest(60)},${nest(60)}]`, 64), 'siblings do not add up');
});

test('brackets inside strings, escaped quotes included, are not nesting', () => {
  assert.not.ok(jsonNestsDeeperThan(JSON.stringify({ a: '['.repeat(500) }), 128));
  assert.not.ok(jsonNestsDeeperThan(JSON.stringify({ a: '\\"['.repeat(300), b: '{'.repeat(300) }), 128));
  assert.ok(jsonNestsDeeperThan(`{"a":"ends in a backslash \\\\","b":${nest(129)}}`, 128));
});
test.run();
