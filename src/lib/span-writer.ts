import { bodyMemory } from './json-scan.js';

// Bytes written in order from two sources: constants, and spans of a body the scan holds in its
// WebAssembly memory (lib/json-scan.ts). The writer only notes each piece, a word or two in an
// Int32Array; `spans` in json-skip.wat then copies them all in one call, in the module's memory,
// where the body already is. Writing the pieces in JavaScript (ByteWriter: constants a byte at a
// time, the body's literals by copyWithin after copying the body into a scratch) cost ~3,000
// instructions an item of a Codex turn, ~65 µs of writtenChat's 190 µs on the bench's 206 KB
// turn (--cpu-prof, node 20, issue 17).

/** A constant's code: ~(its offset in the table << 8 | its length). */
export type Constant = number;

let table = Buffer.alloc(0);

/** Registers `text` (UTF-8, under 256 bytes) as a constant; made once, at a writer module's load. */
export function constant(text: string): Constant {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length === 0 || bytes.length > 255) throw new Error(`a constant is 1 to 255 bytes: ${text}`);
  const at = table.length;
  table = Buffer.concat([table, bytes]);
  return ~((at << 8) | bytes.length);
}

/** The bytes a writer wrote: `bytes[from, to)`, valid until the next scan. */
export interface WrittenSpans {
  bytes: Uint8Array;
  from: number;
  to: number;
}

export class SpanWriter {
  #words = new Int32Array(4096);
  #k = 0;
  /** The bytes noted so far. */
  #length = 0;

  begin(): void {
    this.#k = 0;
    this.#length = 0;
  }

  put(c: Constant): void {
    if (this.#k + 2 > this.#words.length) this.#grow();
    this.#words[this.#k++] = c;
    this.#length += ~c & 255;
  }

  /** body[from, to), of the body the write is for (the one last scanned). */
  piece(from: number, to: number): void {
    if (this.#k + 2 > this.#words.length) this.#grow();
    const k = this.#k;
    this.#words[k] = from;
    this.#words[k + 1] = to - from;
    this.#k = k + 2;
    this.#length += to - from;
  }

  /** The pieces noted since begin(), copied out of `body` (the one the pieces are of) and the constants; null when `body` is not valid UTF-8. */
  write(body: Buffer): WrittenSpans | null {
    const k = this.#k;
    const m = bodyMemory(body, table.length + 4 * k + this.#length + 32);
    if (m === null) return null;
    const consts = m.free;
    m.bytes.set(table, consts);
    const words = (consts + table.length + 7) & ~7;
    m.words.set(this.#words.subarray(0, k), words >> 2);
    const out = (words + 4 * k + 7) & ~7;
    return { bytes: m.bytes, from: out, to: m.module.spans(words, words + 4 * k, consts, out) };
  }

  #grow(): void {
    const words = new Int32Array(this.#words.length * 2);
    words.set(this.#words);
    this.#words = words;
  }
}
