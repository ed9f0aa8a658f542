import { scanUsage, type TokenUsage } from './usage-scan.js';

const NL = 0x0a;
const USAGE = Buffer.from('"usage"');
const DONE = Buffer.from('data: [DONE]');
/** Longest partial line kept between chunks. A usage event is a few hundred bytes; a longer
 * line is still forwarded, but not scanned, so an upstream that never ends a line cannot grow
 * the gateway's memory. */
const MAX_CARRY = 1024 * 1024;

/**
 * Watches an SSE byte stream that is forwarded untouched: it notes the usage block and the
 * [DONE] marker by substring search over whole lines, and never re-serialises a chunk. Only a
 * trailing partial line is kept between chunks, as a list of pieces joined once its line ends
 * (upstreams usually flush whole events, so the carry is normally empty). Pushed chunks are
 * kept by reference and must not be modified afterwards.
 */
export class SseScanner {
  usage: TokenUsage | null = null;
  done = false;
  /** Whether the bytes forwarded so far end on an event boundary (a blank line). */
  atEventBoundary = true;
  #carry: Buffer[] = [];
  #carryBytes = 0;
  /** Inside a line longer than MAX_CARRY: its remaining bytes are skipped up to its newline. */
  #skipping = false;

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.atEventBoundary = chunk.length >= 2 ? chunk[chunk.length - 1] === NL && chunk[chunk.length - 2] === NL
      : chunk[0] === NL && this.#carryBytes === 0 && !this.#skipping;
    const lastNl = chunk.lastIndexOf(NL);
    if (lastNl < 0) {
      this.#hold(chunk);
      return;
    }
    let lines: Buffer;
    if (this.#skipping) {
      this.#skipping = false;
      lines = chunk.subarray(chunk.indexOf(NL) + 1, lastNl + 1);
    } else if (this.#carryBytes > 0) {
      this.#carry.push(chunk.subarray(0, lastNl + 1));
      lines = Buffer.concat(this.#carry, this.#carryBytes + lastNl + 1);
      this.#carry = [];
      this.#carryBytes = 0;
    } else {
      lines = lastNl === chunk.length - 1 ? chunk : chunk.subarray(0, lastNl + 1);
    }
    if (lastNl < chunk.length - 1) this.#hold(chunk.subarray(lastNl + 1));
    this.#scan(lines);
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

  /** `lines` holds whole lines only, each ending in a newline. */
  #scan(lines: Buffer): void {
    const u = lines.lastIndexOf(USAGE);
    if (u >= 0) {
      const lineStart = lines.lastIndexOf(NL, u) + 1;
      const found = scanUsage(lines.subarray(lineStart, lines.indexOf(NL, u)));
      if (found) this.usage = found;
    }
    if (!this.done && lines.indexOf(DONE) >= 0) this.done = true;
  }
}
