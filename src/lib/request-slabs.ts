// Reused buffers for large requests: a client's body as the inference routes read it (http/
// uws-reply.ts, given back once the route's handler has settled, http/route-pipeline.ts), and the
// requests the gateway writes itself (a translated agent turn's chat request, formats/
// chat-request-bytes.ts, given back once the request has ended, InferenceBody.release). A fresh
// 200 KB Buffer each turn costs more than the bytes copied into it: on this VM, 205 KB allocated
// and filled took 15–25 µs, the same bytes copied into a buffer used before 2 µs (20,000 copies,
// three rounds): its pages fault in, glibc trims and maps them again, and V8 counts the memory as
// external pressure: with both lent, an agent turn's scavenges (gc-promotion.bench.js, 2,000
// turns) went from 13–15 to 2–3, their pause from 14–20 to 0.6–2.6 µs a turn, and the gateway's
// page faults from 1.7–4.9 to 0.2–0.9 a turn (docs/benchmarks.md). A slab is lent for one
// request and comes back only once nothing can read it: its first hold (the route's or the
// request's) and one hold for each exchange and socket write that carries it (upstream/
// connection.ts, upstream/h2-origin.ts). A hold never given back leaves the slab to the garbage
// collector, never to another request: a slab reused while a socket still writes it would send
// a provider another request's bytes.

/** Requests smaller than this are allocated as usual (Node's pool and malloc's heap serve them cheaply). */
export const SLAB_MIN = 64 * 1024;
/** Requests larger than this are allocated as usual: a slab kept this large would hold its memory for every later one. */
const SLAB_MAX = 8 * 1024 * 1024;
/** Free slabs kept, and their most bytes together: what one very large request took is not kept for every later one. */
const KEEP = 16;
const KEEP_BYTES = 8 * 1024 * 1024;

/** One slab lent out, with the holds on it. */
export class Lease {
  #holds = 1;
  readonly slab: Buffer;

  constructor(slab: Buffer) {
    this.slab = slab;
  }

  hold(): void {
    this.#holds++;
  }

  /** Gives back one hold; the last returns the slab to the free ones. */
  release(): void {
    if (--this.#holds !== 0) return;
    const slab = this.slab;
    if (free.length < KEEP && freeBytes + slab.length <= KEEP_BYTES) {
      free.push(slab);
      freeBytes += slab.length;
    } else {
      leases.delete(slab.buffer);
    }
  }

  /** A write's hold given back when its callback runs (a socket's write callback gets an error argument). */
  readonly released = (): void => this.release();
}

const free: Buffer[] = [];
let freeBytes = 0;
const leases = new WeakMap<ArrayBufferLike, Lease>();

/**
 * `size` bytes for a request, and its lease when they are a slab's (null: an ordinary buffer,
 * nothing to give back). The caller holds the lease's first hold.
 */
export function requestBuffer(size: number): { buf: Buffer; lease: Lease | null } {
  if (size < SLAB_MIN || size > SLAB_MAX) return { buf: Buffer.allocUnsafe(size), lease: null };
  let best = -1;
  for (let i = 0; i < free.length; i++) {
    if (free[i].length >= size && (best < 0 || free[i].length < free[best].length)) best = i;
  }
  let slab: Buffer;
  if (best >= 0) {
    slab = free[best];
    free[best] = free[free.length - 1];
    free.pop();
    freeBytes -= slab.length;
  } else {
    // A power of two, so that a slab fits the next turns of a conversation that grows.
    let n = SLAB_MIN;
    while (n < size) n *= 2;
    slab = Buffer.allocUnsafeSlow(n);
  }
  const lease = new Lease(slab);
  leases.set(slab.buffer, lease);
  return { buf: slab.subarray(0, size), lease };
}

/** The lease on the slab `b` is a view of, if any: any piece of a request, however small, is found by its memory. */
export function leaseOf(b: Buffer): Lease | null {
  const memory = b.buffer;
  // Every slab's memory is SLAB_MIN bytes or more; Node's 8 KB pool, that of most small buffers, is never looked up.
  return memory.byteLength < SLAB_MIN ? null : leases.get(memory) ?? null;
}

/** The lease on any piece of a payload (a request's pieces all come from one body). */
export function payloadLease(payload: string | Buffer | readonly Buffer[]): Lease | null {
  if (typeof payload === 'string') return null;
  if (Buffer.isBuffer(payload)) return leaseOf(payload);
  for (const piece of payload) {
    const l = leaseOf(piece);
    if (l !== null) return l;
  }
  return null;
}

/** Free slabs now, for tests. */
export function freeSlabs(): number {
  return free.length;
}
