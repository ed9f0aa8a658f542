import { scanUsage, type TokenUsage } from './usage-scan.js';

const NL = 0x0a;
const USAGE = Buffer.from('"usage"');
const DONE = Buffer.from('data: [DONE]');

/**
 * Watches an SSE byte stream that is forwarded untouched: it notes the usage block and the
 * [DONE] marker by substring search over whole lines, and never re-serialises a chunk. Only a
 * trailing partial line is kept between chunks (upstreams usually flush whole events, so the
 * carry is normally empty).
 */
export class SseScanner {
  usage: TokenUsage | null = null;
  done = false;
  /** Whether the bytes forwarded so far end on an event boundary (a blank line). */
  atEventBoundary = true;
  #carry: Buffer | null = null;

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.atEventBoundary = chunk.length >= 2 ? chunk[chunk.length - 1] === NL && chunk[chunk.length - 2] === NL
      : chunk[0] === NL && this.#carry === null;
    let buf = chunk;
    if (this.#carry) {
      buf = Buffer.concat([this.#carry, chunk]);
      this.#carry = null;
    }
    const lastNl = buf.lastIndexOf(NL);
    if (lastNl < 0) {
      this.#carry = Buffer.from(buf);
      return;
    }
    if (lastNl < buf.length - 1) this.#carry = Buffer.from(buf.subarray(lastNl + 1));
    const lines = lastNl === buf.length - 1 ? buf : buf.subarray(0, lastNl + 1);
    const u = lines.lastIndexOf(USAGE);
    if (u >= 0) {
      const lineStart = lines.lastIndexOf(NL, u) + 1;
      const found = scanUsage(lines.subarray(lineStart, lines.indexOf(NL, u)));
      if (found) this.usage = found;
    }
    if (!this.done && lines.indexOf(DONE) >= 0) this.done = true;
  }
}
