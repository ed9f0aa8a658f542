const NL = 0x0a;

/**
 * Whole lines out of a stream read chunk by chunk (an SSE stream, cut anywhere by the network).
 * Lines are split at 0x0a, which never falls inside a UTF-8 character, so each line decodes
 * whole; an unfinished line waits for the chunk that completes it. Every stream translator
 * (provider → chat, chat → the client's format) reads its input through one.
 */
export class LineReader {
  #rest: Buffer | null = null;

  /** Calls `line` for each line `chunk` completes (without its newline) and joins what they return. */
  push(chunk: Buffer | string, line: (text: string) => string): string {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const buf = this.#rest === null ? bytes : Buffer.concat([this.#rest, bytes]);
    const last = buf.lastIndexOf(NL);
    if (last < 0) {
      this.#rest = buf.length === 0 ? null : buf;
      return '';
    }
    this.#rest = last + 1 < buf.length ? buf.subarray(last + 1) : null;
    let out = '';
    for (let start = 0; start <= last;) {
      const nl = buf.indexOf(NL, start);
      out += line(buf.toString('utf8', start, nl));
      start = nl + 1;
    }
    return out;
  }

  /** The last line, when the stream ended without its newline (null when there is none); forgotten once read. */
  rest(): string | null {
    const r = this.#rest;
    this.#rest = null;
    return r === null ? null : r.toString('utf8');
  }
}
