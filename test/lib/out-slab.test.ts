// Output buffers carved from slabs (lib/out-slab.ts): each its own bytes, however many are made
// and held, small and large, across slabs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { outBuffer } from '../../src/lib/out-slab.js';
import { rng } from '../support/seeded-random.js';

test('buffers handed out never share a byte: each keeps what was written to it', () => {
  const r = rng(7);
  const held: [Buffer, number][] = [];
  for (let i = 0; i < 3000; i++) {
    const n = r() < 0.05 ? 16 * 1024 + Math.floor(r() * 40000) : Math.floor(r() * 9000);
    const b = outBuffer(n);
    assert.is(b.length, n);
    b.fill(i & 0xff);
    held.push([b, i & 0xff]);
  }
  for (const [b, v] of held) assert.ok(b.every((x) => x === v), `a buffer of ${b.length} bytes was written over`);
});

test.run();
