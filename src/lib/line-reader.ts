import { isUtf8 } from 'node:buffer';

const NL = 0x0a;
const NO_BYTES = Buffer.alloc(0);
/**
 * pushRuns makes the lines left after this many bytes or fewer byte text at once, not a line at
 * a time: a decode is a call into C++ of ~850 instructions (callgrind), and a stream's last three
 * lines (finish, usage, `[DONE]`) are ~450 bytes. bench:instructions, paired, main thread:
 * gateway-messages-stream 201.8k → 200.8k and 197.8k → 194.1k, gateway-responses-stream
 * 239.2k → 225.6k (a target whose count moves ~8k between runs of one build; docs/benchmarks.md).
 */
const TAIL = 512;

/** A line as a span of a decoded text: text.slice(start, end), without its newline, not sliced out. */
export type LineSpan = (text: string, start: number, end: number) => string;
/** A line of byte text, for a reader that writes its output elsewhere. */
export type ByteLine = (text: string, start: number, end: number) => void;

/**
 * Whole lines out of a stream read chunk by chunk (an SSE stream, cut anywhere by the network).
 * Lines are split at 0x0a, which never falls inside a UTF-8 character, so each line decodes
 * whole; an unfinished line waits for the chunk that completes it. Every stream translator
 * (provider → chat, chat → the client's format) reads its input through one.
 */
export class LineReader {
  #rest: Buffer | null = null;
  /** The bytes behind the byte text pushBytes() or pushRuns() is reading (let go when it returns), or restBytes() gave. */
  #bytes: Buffer = Buffer.alloc(0);
  /** Where in #bytes the byte text given to a span begins (pushRuns gives a line, or the last lines, at a time). */
  #base = 0;
  /** Where the complete lines of the buffer #join() last gave end. */
  #end = 0;

  /** Calls `line` for each line `chunk` completes (without its newline) and joins what they return. */
  push(chunk: Buffer | string, line: (text: string) => string): string {
    const text = this.#text(chunk);
    if (text === null) return '';
    let out = '';
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      out += line(text.slice(start, nl));
      start = nl + 1;
    }
    return out + line(start === 0 ? text : text.slice(start));
  }

  /**
   * push() for fast paths that read lines in place: `span` gets the decoded text and each line's
   * bounds. Matching a line with startsWith at an offset of the whole text keeps V8's fast
   * path; on a sliced-out line (an indirect string) each startsWith is a runtime call, which
   * cost a text delta's translation ~4,000 instructions (callgrind, issue 17).
   */
  pushSpans(chunk: Buffer | string, span: LineSpan): string {
    const text = this.#text(chunk);
    if (text === null) return '';
    let out = '';
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      out += span(text, start, nl);
      start = nl + 1;
    }
    return out + span(text, start, text.length);
  }

  /**
   * pushSpans() over the lines' bytes as byte text (lib/byte-text.ts: a character a byte, offsets
   * are byte offsets): a fast path copies a slice of it to its output as the bytes it stands for.
   * Bytes that are not valid UTF-8 are first replaced as a UTF-8 decode replaces them, so that
   * what is copied is what decoding the line would have read. `utf8()` decodes a line for a
   * full parse. `span` writes its translation itself (to a ByteSink): nothing is joined here.
   */
  pushBytes(chunk: Buffer | string, span: ByteLine): void {
    const lines = this.#lineBytes(chunk);
    if (lines === null) return;
    const text = lines.toString('latin1');
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      span(text, start, nl);
      start = nl + 1;
    }
    span(text, start, text.length);
    this.#bytes = NO_BYTES;
  }

  /**
   * pushBytes() for a reader that translates runs of lines on their bytes itself
   * (lib/delta-events.ts): before each line, `run(lines, at)` may read lines from byte `at`
   * and says where it stopped (`at` when it read none; past the end when it read them all). Each
   * line it leaves goes to `span` as byte text, except blank ones, which no SSE reader reads. A
   * line at a time (a line's offsets from 0): making a chunk of 200 deltas byte text whole for its
   * first line, which the run does not read, cost ~400 instructions a delta (bench:instructions,
   * BENCH_IR_CHUNKS=200, gateway-messages-stream). Once no more than TAIL bytes are left (a
   * stream's finish, usage and `[DONE]`, which the run does not read either), they are made byte
   * text at once and each line is a span of it, as pushBytes gives them.
   */
  pushRuns(chunk: Buffer | string, span: ByteLine, run: (lines: Buffer, at: number) => number): void {
    const lines = this.#lineBytes(chunk);
    if (lines === null) return;
    const n = lines.length;
    // The lines from `textAt` on as one byte text, once no more than TAIL bytes are left.
    let text = '';
    let textAt = n + 1;
    let at = 0;
    for (;;) {
      // SSE's blank lines between events: no reader reads them, and a run for one is a call for nothing.
      while (at < n && lines[at] === NL) at++;
      if (at >= n) break;
      at = run(lines, at);
      while (at < n && lines[at] === NL) at++;
      if (at >= n) break;
      if (at < textAt && n - at <= TAIL) {
        text = lines.toString('latin1', at, n);
        textAt = at;
      }
      if (at >= textAt) {
        const nl = text.indexOf('\n', at - textAt);
        const end = nl < 0 ? n - textAt : nl;
        this.#base = textAt;
        span(text, at - textAt, end);
        at = textAt + end + 1;
      } else {
        const nl = lines.indexOf(NL, at);
        const end = nl < 0 ? n : nl;
        this.#base = at;
        span(lines.toString('latin1', at, end), 0, end - at);
        at = end + 1;
      }
    }
    this.#bytes = NO_BYTES;
  }

  /** The complete lines the stream now holds, as valid UTF-8 (the last one's newline left out), or null if none. */
  #lineBytes(chunk: Buffer | string): Buffer | null {
    const buf = this.#join(chunk);
    if (buf === null) return null;
    let lines = buf.subarray(0, this.#end);
    if (!isUtf8(lines)) lines = Buffer.from(lines.toString('utf8'));
    this.#bytes = lines;
    this.#base = 0;
    return lines;
  }

  /** The line [start, end) of the byte text pushBytes() or pushRuns() last gave, decoded. */
  utf8(start: number, end: number): string {
    return this.#bytes.toString('utf8', this.#base + start, this.#base + end);
  }

  /** The last line as byte text (see rest()). */
  restBytes(): string | null {
    const r = this.#rest;
    this.#rest = null;
    if (r === null) return null;
    this.#bytes = isUtf8(r) ? r : Buffer.from(r.toString('utf8'));
    this.#base = 0;
    return this.#bytes.toString('latin1');
  }

  /**
   * The complete lines the stream now holds, decoded at once (the last one's newline left out),
   * or null if it holds none yet. One decode for all the lines: a decode per line (a call into
   * C++ each, blank lines and `event:` lines included) cost more than translating a text delta
   * (bench:instructions, issue 17). A newline never falls inside a UTF-8 character, so the
   * lines are the ones a per-line decode gives.
   */
  #text(chunk: Buffer | string): string | null {
    const buf = this.#join(chunk);
    return buf === null ? null : buf.toString('utf8', 0, this.#end);
  }

  /**
   * `chunk` after the unfinished line the last one left, or null when it completes no line;
   * its complete lines end at #end. The unfinished line now left is kept as a copy, not a view of
   * the chunk: a chunk may be a slice of a larger allocation (lib/out-slab.ts) that a view would
   * keep alive while the stream waits.
   */
  #join(chunk: Buffer | string): Buffer | null {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const buf = this.#rest === null ? bytes : Buffer.concat([this.#rest, bytes]);
    const last = buf.lastIndexOf(NL);
    if (last < 0) {
      this.#rest = buf.length === 0 ? null : buf === bytes ? Buffer.from(buf) : buf;
      return null;
    }
    this.#rest = last + 1 < buf.length ? Buffer.from(buf.subarray(last + 1)) : null;
    this.#end = last;
    return buf;
  }

  /** The last line, when the stream ended without its newline (null when there is none); forgotten once read. */
  rest(): string | null {
    const r = this.#rest;
    this.#rest = null;
    return r === null ? null : r.toString('utf8');
  }
}
