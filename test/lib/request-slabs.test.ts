import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freeSlabs, leaseOf, payloadLease, requestBuffer, SLAB_MIN } from '../../src/lib/request-slabs.js';

// The slabs large written requests are lent (lib/request-slabs.ts): one comes back only when its
// last hold is given back, and is then lent again rather than allocated.

test('a small request is an ordinary buffer, with nothing to give back', () => {
  const { buf, lease } = requestBuffer(SLAB_MIN - 1);
  assert.is(buf.length, SLAB_MIN - 1);
  assert.is(lease, null);
  assert.is(leaseOf(buf), null);
});

test('a slab comes back only at its last hold, and is lent again', () => {
  const { buf, lease } = requestBuffer(200_000);
  assert.is(buf.length, 200_000);
  assert.ok(lease !== null);
  // A piece of it, however small, is found by its memory, as a request's pieces around an edited model are.
  assert.is(leaseOf(buf.subarray(5, 9)), lease);
  assert.is(payloadLease([Buffer.from('head'), buf.subarray(0, 10), Buffer.from('x')]), lease);
  assert.is(payloadLease('text'), null);
  const before = freeSlabs();
  lease!.hold(); // a socket write
  lease!.release(); // the request ended
  assert.is(freeSlabs(), before, 'not back while the write holds it');
  lease!.released(); // the write's callback
  assert.is(freeSlabs(), before + 1);
  const again = requestBuffer(150_000);
  assert.is(again.buf.buffer, buf.buffer, 'the same memory, lent again');
  assert.is(freeSlabs(), before);
  assert.is.not(again.lease, lease);
  assert.is(leaseOf(again.buf), again.lease);
  again.lease!.release();
});

test('a slab lent while another is out is never the one out', () => {
  const a = requestBuffer(100_000);
  const b = requestBuffer(100_000);
  assert.is.not(a.buf.buffer, b.buf.buffer);
  a.lease!.release();
  const c = requestBuffer(100_000);
  assert.is(c.buf.buffer, a.buf.buffer);
  assert.is.not(c.buf.buffer, b.buf.buffer);
  b.lease!.release();
  c.lease!.release();
});

test('the smallest free slab that fits is lent, and a larger request gets a larger one', () => {
  const big = requestBuffer(600_000);
  const small = requestBuffer(70_000);
  big.lease!.release();
  small.lease!.release();
  // Slabs freed by the tests before are free too: the one lent is no larger than the small one.
  const next = requestBuffer(66_000);
  assert.ok(next.buf.buffer.byteLength <= small.buf.buffer.byteLength);
  const large = requestBuffer(500_000);
  assert.is(large.buf.buffer, big.buf.buffer);
  const larger = requestBuffer(2_000_000);
  assert.ok(larger.buf.buffer.byteLength >= 2_000_000);
  for (const l of [next, large, larger]) l.lease!.release();
});

test('what very large requests took is kept only up to a bound', () => {
  const before = freeSlabs();
  const large = [requestBuffer(3_000_000), requestBuffer(3_000_000), requestBuffer(3_000_000)];
  for (const l of large) l.lease!.release();
  // Three 4 MB slabs against 8 MB kept at most (with what the tests before left free).
  assert.ok(freeSlabs() - before <= 2, `${freeSlabs() - before} kept`);
});

test.run();
