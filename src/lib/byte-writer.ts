// Bytes written in order into a buffer sized by the caller: the chat request a translation
// assembles around the messages a SpanWriter wrote (formats/chat-request-bytes.ts). The pieces
// are few: keys and punctuation (short ones copied byte by byte: 16 ns for 20 bytes on the bench
// machine, where Node's string writers cost 47–59 ns), the model's name, and the messages and the
// system prompt copied whole.

/** Pieces up to this long are copied byte by byte; longer ones by a builtin. */
const SHORT = 12;

export class ByteWriter {
  buf: Buffer = Buffer.alloc(0);
  /** Where the next byte goes. */
  at = 0;

  /** Starts a write into `buf`. */
  beginIn(buf: Buffer): void {
    this.buf = buf;
    this.at = 0;
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

  /** src[from, to), copied whole. */
  bytes(src: Uint8Array, from: number, to: number): void {
    this.buf.set(src.subarray(from, to), this.at);
    this.at += to - from;
  }

  /** Text as UTF-8. */
  text(s: string): void {
    this.at += this.buf.write(s, this.at, 'utf8');
  }
}
