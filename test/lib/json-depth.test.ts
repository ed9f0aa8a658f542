import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonNestsDeeperThan } from '../../src/lib/json-depth.js';

const nest = (n: number): unknown => JSON.parse('['.repeat(n) + ']'.repeat(n));

test('counts arrays and objects together and stops at the first level past the limit', () => {
  assert.not.ok(jsonNestsDeeperThan(nest(128), 128));
  assert.ok(jsonNestsDeeperThan(nest(129), 128));
  assert.ok(jsonNestsDeeperThan(JSON.parse('{"a":'.repeat(70) + '['.repeat(60) + ']'.repeat(60) + '}'.repeat(70)), 128));
  assert.not.ok(jsonNestsDeeperThan([nest(60), nest(60), { a: nest(60) }], 64), 'siblings do not add up');
  assert.ok(jsonNestsDeeperThan([1, 'x', null, { a: [nest(64)] }], 64), 'found past shallow siblings');
});

test('scalars and strings are leaves, whatever they contain', () => {
  for (const v of [null, 1, 'x', true]) assert.not.ok(jsonNestsDeeperThan(v, 0));
  assert.not.ok(jsonNestsDeeperThan({ a: '['.repeat(500) }, 1));
  assert.ok(jsonNestsDeeperThan({ a: {} }, 1));
});

test('a million levels are found without overflowing the stack', () => {
  assert.ok(jsonNestsDeeperThan(nest(1_000_000), 128));
});

test.run();
