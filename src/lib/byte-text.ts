import { plainJson } from './json-write.js';
import { outBuffer } from './out-slab.js';
import { emptyArray } from './empty-array.js';

// Byte text: bytes held in a string one character a byte (latin1), so that string searches and
// slices work at byte offsets and a slice is turned back into the same bytes without encoding.
// The stream translators read providers' events and write the client's this way: a text delta
// is copied from one to the other as the bytes it came as. Decoding a chunk to UTF-16 and
// encoding the translation back to UTF-8 cost ~8 instructions a byte (a 4.4 KB chat stream
// written with Buffer.from(string) 25k instructions, as latin1 14k, callgrind, issue 17).

/** Strings shorter than this are looked at character by character: a native call costs more than the loop. */
const SHORT = 32;

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}

/**
 * The byte text of `s`: its UTF-8 bytes, a character each (the same string when `s` is ASCII).
 * Best given a string that is not a concatenation: Buffer.byteLength takes V8's fast call for a
 * flat string (~20 ns for 130 characters), and the slow one, which first copies a concatenated
 * string flat, ~5,000 instructions for the same (callgrind, issue 17).
 */
export function byteText(s: string): string {
  const n = s.length;
  if (n < SHORT) {
    if (isAscii(s)) return s;
  } else if (Buffer.byteLength(s, 'utf8') === n) {
    // Every character under 0x80 is one byte, every other one more: the lengths agree only for ASCII.
    return s;
  }
  return Buffer.from(s, 'utf8').toString('latin1');
}

/** The JSON literal of `s` as byte text: JSON.stringify(s)'s bytes. */
export function jsonBytes(s: string): string {
  return plainJson(s) ? `"${byteText(s)}"` : byteText(JSON.stringify(s));
}

/**
 * `t` made flat. A string built by concatenation is a tree of its pieces, which V8 walks again
 * each time the string is copied (joined, or written into a buffer): a piece written more than
 * once is best made flat first, and then copies as one run. charCodeAt of a concatenation that
 * is not flat makes it flat in place, in both of V8's tiers; its result is compared so that the
 * call is not dropped as unused (charCodeAt is never negative).
 */
export function flat(t: string): string {
  if (t.charCodeAt(0) < 0) throw new Error('charCodeAt is never negative');
  return t;
}

/** The bytes of a byte text. */
export function textBytes(t: string): Buffer {
  const b = outBuffer(t.length);
  b.write(t, 0, 'latin1');
  return b;
}

/** A byte text's characters: its bytes decoded as UTF-8 (invalid sequences as U+FFFD, as Buffer#toString does). */
export function decodeText(t: string): string {
  // A short ASCII text (a finish reason) is its own decoding: the two native calls cost
  // 240–340 ns on the bench machine, the loop a few (node 20, scratch timing, issue 17).
  if (t.length < SHORT && isAscii(t)) return t;
  return Buffer.from(t, 'latin1').toString('utf8');
}

const EMPTY = Buffer.alloc(0);

/**
 * A translator's output as byte text, kept as pieces and joined once into the bytes to write.
 * Joining an array copies each piece once into one flat string; concatenating them (a delta's
 * event is five pieces or more) built a tree that was copied flat again before it could be
 * written, ~1,000 instructions a delta (callgrind, issue 17).
 */
export class ByteSink {
  readonly parts: string[] = [];
  /**
   * With bytes made elsewhere (lib/delta-events.ts): everything added so far in order, the
   * parts before each such run joined into one byte text. take() then writes them all into one
   * buffer: a buffer made per piece and then concatenated was a fifth of the Responses stream
   * translator's time (an allocation of more than 4 KB makes an ArrayBuffer; --cpu-prof), and
   * one buffer made it 7% quicker (issue 17, docs/benchmarks.md).
   */
  readonly #pieces: (string | Buffer)[] = [];
  #bytes = 0;

  /** Adds bytes after everything added so far; they are the sink's (take() may hand them on as they are). */
  bytes(b: Buffer): void {
    this.#flush();
    this.#pieces.push(b);
    this.#bytes += b.length;
  }

  /** The bytes of everything added since the last take(). */
  take(): Buffer {
    const pieces = this.#pieces;
    if (pieces.length > 0) {
      this.#flush();
      // A run's bytes alone (a push of nothing but deltas) are handed on, not copied again.
      if (pieces.length === 1 && typeof pieces[0] !== 'string') {
        const only = pieces.pop() as Buffer;
        this.#bytes = 0;
        return only;
      }
      const out = outBuffer(this.#bytes);
      let at = 0;
      for (let i = 0; i < pieces.length; i++) {
        const p = pieces[i];
        if (typeof p === 'string') at += out.write(p, at, 'latin1');
        else {
          out.set(p, at);
          at += p.length;
        }
      }
      emptyArray(pieces);
      this.#bytes = 0;
      return out;
    }
    const p = this.parts;
    if (p.length === 0) return EMPTY;
    const text = p.length === 1 ? p[0] : p.join('');
    emptyArray(p);
    return text.length === 0 ? EMPTY : textBytes(text);
  }

  #flush(): void {
    const p = this.parts;
    if (p.length === 0) return;
    const text = p.length === 1 ? p[0] : p.join('');
    emptyArray(p);
    if (text.length > 0) {
      this.#pieces.push(text);
      this.#bytes += text.length;
    }
  }
}
