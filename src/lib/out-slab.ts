// Buffers for bytes on their way out (a translated stream's chunks), carved from 64 KB slabs.
// Buffer.allocUnsafe pools only allocations under 4 KB; a larger one is an ArrayBuffer of its
// own, whose creation (and later collection) was a sixth of the chat → Responses stream
// translator's time: its chunks are 5–9 KB (--cpu-prof, issue 17). A slab is never written again
// where it was handed out, so a buffer stays valid however long it is held; a slab is freed when
// nothing holds a buffer of it, and what is written goes to the socket at once.

const SLAB = 64 * 1024;
/** Larger buffers are made on their own: a slab would hold few of them. */
const MOST = SLAB / 4;

let slab = Buffer.allocUnsafeSlow(SLAB);
let at = 0;

/** A buffer of `n` bytes, not zeroed, that nothing else is handed. */
export function outBuffer(n: number): Buffer {
  if (n > MOST) return Buffer.allocUnsafeSlow(n);
  if (at + n > SLAB) {
    slab = Buffer.allocUnsafeSlow(SLAB);
    at = 0;
  }
  const b = slab.subarray(at, at + n);
  // Eight-byte aligned, as Node's pool aligns.
  at = (at + n + 7) & ~7;
  return b;
}
