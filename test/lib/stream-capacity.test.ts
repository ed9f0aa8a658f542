import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultConnectionsPerOrigin, HELD_STREAM_BYTES, openFileLimit } from '../../src/lib/stream-capacity.js';

const GiB = 1024 ** 3;

test('two descriptors per held stream: the open-file limit, less a reserve, halved', () => {
  assert.is(defaultConnectionsPerOrigin(1024, 64 * GiB), 384);
  assert.is(defaultConnectionsPerOrigin(65_536, 64 * GiB), 32_640);
});

test('a quarter of memory bounds it when descriptors are plentiful', () => {
  assert.is(defaultConnectionsPerOrigin(1_048_576, 1 * GiB), Math.floor(GiB / 4 / HELD_STREAM_BYTES));
});

test('never below a small floor, whatever the box', () => {
  assert.is(defaultConnectionsPerOrigin(256, 1024), 16);
});

test('reads this process\'s soft limit on open files', () => {
  const limit = openFileLimit();
  if (process.platform === 'linux') assert.ok(limit !== null && limit > 0);
});

test.run();
