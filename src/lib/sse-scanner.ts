import { generatedTextBytes, nullValueAt } from './json-text.js';
import { TextNeedle } from './rare-needle.js';
import { scanUsageText, type TokenUsage } from './usage-scan.js';

const NL = 0x0a;
const USAGE = '"usage"';
const DONE = 'data: [DONE]';
/** Searched for from its `D`: from its `d`, every event's `data: ` (lib/rare-needle.ts). */
const DONE_NEEDLE = new TextNeedle(DONE);
/** Longest partial line kept between chunks. A usage event is a few hundred bytes; a longer
 * line is still forwarded, but not scanned, so an upstream that never ends a line cannot grow
 * the gateway's memory. */
const MAX_CARRY = 1024 * 1024;
/** doneAt when the last push did not complete the [DONE] line. */
export const DONE_NOT_HERE = -2;

/**
 * What the stream relay needs to know of the chat SSE it forwards, chunk by chunk: SseScanner
 * learns it by searching the bytes; a translated stream's watch is told by its translator
 * (dataplane/translated-watch.ts).
 */
export interface StreamWatch {
  usage: TokenUsage | null;
  done: boolean;
  /** Whether the bytes forwarded so far end on an event boundary (a blank line). */
  atEventBoundary: boolean;
  /** UTF-8 bytes of generated text seen while no usage had been (a JSON escape counts as the bytes it stands for). */
  textBytes: number;
  /** Where in the last pushed chunk the `data: [DONE]` line begins: DONE_NOT_HERE if that push did not complete it, -1 if the line began in an earlier chunk. */
  doneAt: number;
  /** Bytes at the end of the chunks pushed that form an unfinished line which may still become `data: [DONE]`. */
  readonly doneTail: number;
  /** The next chunk of the stream, before it is forwarded. */
  push(chunk: Buffer): void;
}

/**
 * Watches an SSE byte stream that is forwarded untouched: it notes the usage block and the
 * [DONE] marker by substring search over whole lines, and never re-serialises a chunk. Only a
 * trailing partial line is kept between chunks, as a list of pieces joined once its line ends
 * (upstreams usually flush whole events, so the carry is normally empty). Pushed chunks are
 * kept by reference and must not be modified afterwards.
 *
 * It also adds up the bytes of the generated text (content, reasoning and tool-call arguments)
 * so that a stream without usage can be estimated, and says where [DONE] begins so that an
 * estimated usage event can be put before it.
 */
export class SseScanner implements StreamWatch {
  usage: TokenUsage | null = null;
  done = false;
  /** Whether the bytes forwarded so far end on an event boundary (a blank line). */
  atEventBoundary = true;
  /** UTF-8 bytes of generated text seen while no usage had been (a JSON escape counts as the bytes it stands for). */
  textBytes = 0;
  /**
   * Where in the last pushed chunk the `data: [DONE]` line begins: DONE_NOT_HERE if that push
   * did not complete it, -1 if the line began in an earlier chunk.
   */
  doneAt = DONE_NOT_HERE;
  #carry: Buffer[] = [];
  #carryBytes = 0;
  /** Inside a line longer than MAX_CARRY: its remaining bytes are skipped up to its newline. */
  #skipping = false;

  push(chunk: Buffer): void {
    this.doneAt = DONE_NOT_HERE;
    if (chunk.length === 0) return;
    this.atEventBoundary = chunk.length >= 2 ? chunk[chunk.length - 1] === NL && chunk[chunk.length - 2] === NL
      : chunk[0] === NL && this.#carryBytes === 0 && !this.#skipping;
    const lastNl = chunk.lastIndexOf(NL);
    if (lastNl < 0) {
      this.#hold(chunk);
      return;
    }
    let lines: Buffer;
    // Offset of lines[0] in the chunk: negative when the lines begin with carried bytes.
    let base = 0;
    if (this.#skipping) {
      this.#skipping = false;
      base = chunk.indexOf(NL) + 1;
      lines = chunk.subarray(base, lastNl + 1);
    } else if (this.#carryBytes > 0) {
      base = -this.#carryBytes;
      this.#carry.push(chunk.subarray(0, lastNl + 1));
      lines = Buffer.concat(this.#carry, this.#carryBytes + lastNl + 1);
      this.#carry = [];
      this.#carryBytes = 0;
    } else {
      lines = lastNl === chunk.length - 1 ? chunk : chunk.subarray(0, lastNl + 1);
    }
    if (lastNl < chunk.length - 1) this.#hold(chunk.subarray(lastNl + 1));
    this.#scan(lines, base);
  }

  /**
   * Bytes at the end of the last pushed chunk (with those carried from before) that form an
   * unfinished line which may still become `data: [DONE]`; 0 almost always.
   */
  get doneTail(): number {
    const n = this.#carryBytes;
    if (n === 0 || n > DONE.length || this.done) return 0;
    let i = 0;
    for (const piece of this.#carry) {
      for (let k = 0; k < piece.length; k++) if (piece[k] !== DONE.charCodeAt(i++)) return 0;
    }
    return n;
  }

  #hold(piece: Buffer): void {
    if (this.#skipping) return;
    if (this.#carryBytes + piece.length > MAX_CARRY) {
      this.#carry = [];
      this.#carryBytes = 0;
      this.#skipping = true;
      return;
    }
    this.#carry.push(piece);
    this.#carryBytes += piece.length;
  }

  /** `lines` holds whole lines only, each ending in a newline; it starts at `base` in the chunk. */
  #scan(lines: Buffer, base: number): void {
    // One latin1 copy: a byte per character keeps offsets, and string searches cost a fraction
    // of Buffer searches, which cross into C++ each time.
    const text = lines.toString('latin1');
    const u = text.lastIndexOf(USAGE);
    // Content chunks say `"usage":null` when usage was asked for: skipped without a parse.
    if (u >= 0 && nullValueAt(text, u + USAGE.length) < 0) {
      const found = scanUsageText(text.slice(u, text.indexOf('\n', u)));
      if (found) this.usage = found;
    }
    // The text is only counted for an estimate, which reported usage makes unnecessary.
    if (this.usage === null) this.textBytes += generatedTextBytes(text);
    if (this.done) return;
    // Only at the start of a line: generated text may well contain "data: [DONE]" itself.
    for (let d = DONE_NEEDLE.in(text); d >= 0; d = DONE_NEEDLE.in(text, d + 1)) {
      if (d === 0 || text.charCodeAt(d - 1) === NL) {
        this.done = true;
        this.doneAt = base + d < 0 ? -1 : base + d;
        return;
      }
    }
  }
}
