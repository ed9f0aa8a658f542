import { bodyMemory } from './json-scan.js';

// Bytes written in order from three sources: constants, spans of a body the scan holds in its
// WebAssembly memory (lib/json-scan.ts), and bytes computed on the way (a tool call's input made a
// string). The writer only notes each piece, a word or two in an Int32Array; `spans` in
// json-skip.wat then copies them all in one call, in the module's memory, where the body already
// is. Writing the pieces in JavaScript (constants a byte at a time, the body's literals by
// copyWithin after copying the body into a scratch) cost ~3,000 instructions an item of a Codex
// turn, ~65 µs of writtenChat's 190 µs on the bench's 206 KB turn (--cpu-prof, node 20, issue 17).

/** A constant's code: ~(its offset in the table << 8 | its length). */
export type Constant = number;

/** Where computed bytes are written before they are noted (lib/json-in-string.ts writes there). */
export interface ByteTarget {
  buf: Buffer;
  at: number;
}

/** Offsets past the constants this large do not fit a code: the write is then refused. */
const MAX_OFFSET = 1 << 23;
/** Strings up to this long are tried as ASCII, copied in JavaScript (SpanWriter#text). */
const SHORT_TEXT = 64;
/** Words noted from elsewhere (SpanWriter#noted) copied one by one up to this many, beyond it by a builtin. */
const NOTED_ONE_BY_ONE = 64;
/** The most a writer keeps between requests, for its notes and for its computed bytes. */
const KEEP = 4 * 1024 * 1024;

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
  /** Computed bytes (a tool call's input made a string, say), copied in after the constants. */
  readonly #staged: ByteTarget = { buf: Buffer.allocUnsafe(4096), at: 0 };
  #overflow = false;

  begin(): void {
    this.#k = 0;
    this.#length = 0;
    this.#staged.at = 0;
    this.#overflow = false;
    // What one very large request grew is not kept for every later one.
    if (this.#staged.buf.length > KEEP) this.#staged.buf = Buffer.allocUnsafe(4096);
    if (4 * this.#words.length > KEEP) this.#words = new Int32Array(4096);
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

  /**
   * body[from, to), a JSON value, written as a JSON string's literal: `adds` is what that adds to
   * its bytes (inStringAdds in lib/json-in-string.ts, which checked it); `spans` escapes as it copies.
   */
  inString(from: number, to: number, adds: number): void {
    if (this.#k + 2 > this.#words.length) this.#grow();
    const k = this.#k;
    this.#words[k] = from;
    this.#words[k + 1] = ~(to - from);
    this.#k = k + 2;
    this.#length += to - from + adds;
  }

  /**
   * Notes `words[from, to)`, pieces and constants as this writer notes them but made elsewhere
   * (the module's walk of a Messages conversation, formats/messages/content-bytes.ts), standing
   * for `length` bytes. A few are copied one by one: a subarray to copy them from cost ~1,100
   * instructions (callgrind, the bench's 1 KB Messages request).
   */
  noted(words: Int32Array, from: number, to: number, length: number): void {
    const n = to - from;
    while (this.#k + n + 2 > this.#words.length) this.#grow();
    const mine = this.#words;
    const k = this.#k;
    if (n <= NOTED_ONE_BY_ONE) for (let i = 0; i < n; i++) mine[k + i] = words[from + i];
    else mine.set(words.subarray(from, to), k);
    this.#k = k + n;
    this.#length += length;
  }

  /** Room for `n` computed bytes from the returned target's `at`; note what is written there with staged(). */
  staging(n: number): ByteTarget {
    const s = this.#staged;
    if (s.at + n > s.buf.length) {
      const buf = Buffer.allocUnsafe(Math.max(2 * s.buf.length, s.at + n));
      s.buf.copy(buf, 0, 0, s.at);
      s.buf = buf;
    }
    return s;
  }

  /** The computed bytes staging(…)[from, to), in order with the rest. */
  staged(from: number, to: number): void {
    if (to === from) return;
    const at = table.length + from;
    if (at >= MAX_OFFSET) this.#overflow = true;
    if (this.#k + 2 > this.#words.length) this.#grow();
    const k = this.#k;
    this.#words[k] = ~(at << 8);
    this.#words[k + 1] = to - from;
    this.#k = k + 2;
    this.#length += to - from;
  }

  /**
   * A string's UTF-8 bytes, computed. A short ASCII one (a model id, a number) is copied a
   * character at a time: Buffer#write's call into C++ cost ~700 instructions a string
   * (callgrind: SpanWriter#text 2.2k a request for gateway-anthropic's three strings; with the
   * model's literal kept, request-bytes.ts, gateway-anthropic 141.2k → 140.0k a request).
   */
  text(s: string): void {
    const t = this.staging(3 * s.length);
    const from = t.at;
    const n = s.length;
    if (n <= SHORT_TEXT) {
      const b = t.buf;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        b[from + i] = c;
      }
      if (i === n) {
        t.at = from + n;
        this.staged(from, t.at);
        return;
      }
    }
    t.at += t.buf.write(s, from, 'utf8');
    this.staged(from, t.at);
  }

  /**
   * The pieces noted since begin(), copied out of `body` (the one the pieces are of) and the
   * constants; null when `body` is not valid UTF-8. Called after the walk: it may grow the
   * module's memory, after which records read in place (scanRecords') are no longer valid.
   */
  write(body: Buffer): WrittenSpans | null {
    if (this.#overflow) return null;
    const k = this.#k;
    const staged = this.#staged.at;
    const m = bodyMemory(body, table.length + staged + 4 * k + this.#length + 32);
    if (m === null) return null;
    const consts = m.free;
    m.bytes.set(table, consts);
    if (staged > 0) m.bytes.set(this.#staged.buf.subarray(0, staged), consts + table.length);
    const words = (consts + table.length + staged + 7) & ~7;
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
