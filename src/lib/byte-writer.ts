// Bytes written in order into a buffer: the request a translation writes from pieces of the
// client's body (formats/chat-request-bytes.ts and the writers it assembles). The pieces are many and small (keys, a call id: copied
// byte by byte in JavaScript, 16 ns for 20 bytes on the bench machine, where Node's string
// writers cost 47–59 ns) with a few long ones, the client's literals. Those are copied within one
// buffer, the client's body placed at its start (TypedArray#copyWithin, a builtin's memmove:
// 29 ns for 900 bytes), where Buffer#copy from the body makes a view per call (~170 ns each,
// 52 µs over the 215 literals of the bench's 206 KB Codex turn, --cpu-prof).

/** Pieces up to this long are copied byte by byte; longer ones by a builtin. */
const SHORT = 12;
/** Pieces of the body up to this long are copied byte by byte; copyWithin beats the loop past it (node 20, the bench machine). */
const PIECE = 16;
/** The most the scratch is kept at between requests (as lib/json-literals.ts's). */
const KEEP = 16 * 1024 * 1024;

let scratch: Buffer = Buffer.alloc(0);

export class ByteWriter {
  buf: Buffer = scratch;
  /** Where the next byte goes, and where this write's first one went. */
  at = 0;
  start = 0;
  /** The buffer whose bytes sit at the start of `buf` (copied from by copyWithin), if any. */
  #source: Buffer | null = null;

  /**
   * Starts a write of at most `bound` bytes in the scratch, with `source` copied in first so that
   * copySource moves its bytes within one buffer. A write past what the scratch keeps gets a
   * buffer of its own.
   */
  begin(bound: number, source: Buffer): void {
    const start = (source.length + 7) & ~7;
    const need = start + bound;
    if (scratch.length < need && need <= KEEP) scratch = Buffer.allocUnsafeSlow(Math.min(KEEP, Math.max(need, 2 * scratch.length)));
    this.buf = scratch.length >= need ? scratch : Buffer.allocUnsafeSlow(need);
    this.buf.set(source, 0);
    this.#source = source;
    this.at = this.start = start;
  }

  /** Starts a write into `buf`, sized by the caller. */
  beginIn(buf: Buffer): void {
    this.buf = buf;
    this.at = this.start = 0;
    this.#source = null;
  }

  /** Constant bytes (a key, punctuation). */
  put(bytes: Buffer): void {
    if (bytes.length > SHORT) {
      this.buf.set(bytes, this.at);
      this.at += bytes.length;
      return;
    }
    const b = this.buf;
    let w = this.at;
    for (let j = 0; j < bytes.length; j++) b[w++] = bytes[j];
    this.at = w;
  }

  /** src[from, to), short: byte by byte. */
  copy(src: Buffer, from: number, to: number): void {
    const b = this.buf;
    let w = this.at;
    for (let i = from; i < to; i++) b[w++] = src[i];
    this.at = w;
  }

  /** source[from, to), of any length: within the buffer when the source was placed in it. */
  copySource(source: Buffer, from: number, to: number): void {
    if (source === this.#source) this.buf.copyWithin(this.at, from, to);
    else source.copy(this.buf, this.at, from, to);
    this.at += to - from;
  }

  /** Whether everything written fit: the writes are not checked one by one (a typed array drops a byte written past its end). */
  fits(): boolean {
    return this.at <= this.buf.length;
  }

  /** source[from, to), a piece of the body the write began with: short ones byte by byte, longer ones within the buffer. */
  piece(source: Buffer, from: number, to: number): void {
    if (to - from > PIECE) this.copySource(source, from, to);
    else this.copy(source, from, to);
  }

  /** Text as UTF-8. */
  text(s: string): void {
    this.at += this.buf.write(s, this.at, 'utf8');
  }
}
