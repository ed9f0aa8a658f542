import { LINEAR_MAX, rarestLead } from './rare-needle.js';

/** A secret shorter than this is not searched for in answers: it would match ordinary text. */
export const MIN_MASKED_SECRET = 8;
/** A secret is also found by this many leading bytes, for an upstream that echoes it cut short. */
const PROBE = 12;
const STAR = 0x2a;

/**
 * Masks a secret in an upstream answer as its bytes arrive, for a provider that echoes the key it
 * was sent inside a 200 answer (an error event mid-stream, a debug field). The bytes of the secret
 * become `*`, one for one, so lengths, JSON strings and SSE framing stay as they were. A chunk
 * whose tail could be the start of the secret keeps that tail back until the next chunk shows
 * whether it is; a match that runs to a chunk's end goes on masking into the next one.
 *
 * Cost on the stream path: a search per chunk, and a look at the chunk's last 11 bytes
 * (bench:instructions, docs/benchmarks.md). The search is for at most six bytes of the probe
 * from its byte least common in answer text (lib/rare-needle.ts), the whole probe compared
 * where they are found: from the `s` of `sk-…` it built a Boyer-Moore-Horspool table on every
 * call (bench:instructions, gateway-messages-stream: ~8.4k instructions a stream in the search,
 * twenty chunks that arrive together). Timed on twenty such chunks (3.6 KB): `sk-bench` 2.09 µs,
 * `k-bench` 0.50 µs; `sk-proj-Ab3X` 1.32 µs, `Ab3X` 0.20 µs. Tried before and slower: a
 * one-byte search for the rarest byte, then a compare, a native call per candidate (26k
 * instructions a request against ~10k).
 */
export class SecretMask {
  readonly #secret: Buffer;
  readonly #probe: Buffer;
  /** Up to LINEAR_MAX bytes of the probe from its `lead`th on: what the search looks for. */
  readonly #tail: Buffer;
  readonly #lead: number;
  readonly #first: number;
  /** Bytes of the secret matched at the end of the last chunk, still to be masked at the start of the next. */
  #into = 0;
  /** The last chunk's tail that may begin the secret, not yet handed on. */
  #carry: Buffer | null = null;

  constructor(secret: string) {
    const b = secretBytes(secret);
    this.#secret = b.secret;
    this.#probe = b.probe;
    this.#tail = b.tail;
    this.#lead = b.lead;
    this.#first = b.secret[0];
  }

  /** The bytes of `chunk` that can be handed on, masked (`chunk` is the caller's own copy and is masked in place). */
  push(chunk: Buffer): Buffer {
    let c = chunk;
    if (this.#carry !== null) {
      c = Buffer.concat([this.#carry, c]);
      this.#carry = null;
    }
    const s = this.#secret;
    let from = 0;
    if (this.#into > 0) {
      let i = 0;
      while (i < c.length && this.#into + i < s.length && c[i] === s[this.#into + i]) c[i++] = STAR;
      this.#into = i === c.length && this.#into + i < s.length ? this.#into + i : 0;
      from = i;
    }
    const probe = this.#probe;
    const tail = this.#tail;
    const lead = this.#lead;
    let t = c.indexOf(tail, from + lead);
    while (t >= 0) {
      const at = t - lead;
      let j = 0;
      while (j < probe.length && c[at + j] === probe[j]) j++;
      if (j < probe.length) {
        t = c.indexOf(tail, t + 1);
        continue;
      }
      let end = at;
      while (end < c.length && end - at < s.length && c[end] === s[end - at]) c[end++] = STAR;
      if (end === c.length && end - at < s.length) this.#into = end - at;
      from = end;
      t = c.indexOf(tail, from + lead);
    }
    // A tail shorter than the probe that matches its start may be the secret cut by the chunk's end.
    // A loop over at most 11 bytes: a second native indexOf per chunk cost more than it.
    for (let p = Math.max(from, c.length - this.#probe.length + 1); p < c.length; p++) {
      if (c[p] === this.#first && this.#probe.compare(c, p, c.length, 0, c.length - p) === 0) {
        this.#carry = c.subarray(p);
        return c.subarray(0, p);
      }
    }
    return c;
  }

  /** What was kept back at the end of the answer: never the whole probe, so never a secret. */
  end(): Buffer | null {
    const c = this.#carry;
    this.#carry = null;
    return c;
  }
}

/**
 * Platform and saved keys are few and sent on every request: their bytes, and the probe's view
 * of them, are made once (a Buffer view is a typed array, ~1.4k instructions to make).
 */
interface SecretBytes {
  secret: Buffer;
  probe: Buffer;
  tail: Buffer;
  lead: number;
}
const BYTES = new Map<string, SecretBytes>();
const BYTES_KEPT = 256;

function secretBytes(secret: string): SecretBytes {
  let b = BYTES.get(secret);
  if (b === undefined) {
    // Per-request upstream_keys would otherwise fill it: start again rather than grow.
    if (BYTES.size >= BYTES_KEPT) BYTES.clear();
    const bytes = Buffer.from(secret);
    const probe = bytes.subarray(0, Math.min(PROBE, bytes.length));
    const lead = rarestLead(probe);
    b = { secret: bytes, probe, tail: probe.subarray(lead, lead + LINEAR_MAX), lead };
    BYTES.set(secret, b);
  }
  return b;
}
