// One streamed request over a raw TCP socket, for the thousands-of-streams scenario
// (slow-streams.bench.ts). A node:http ClientRequest and IncomingMessage per stream would make
// the load generator, which shares the two cores with the servers it measures, the dearest
// process in the run; a socket, one data listener and a small state machine are enough to
// check an HTTP/1.1 answer to the last byte: its status, its framing (chunked or a length), the
// SSE events it carries and the `data: [DONE]` it must end with.
import { connect, type Socket } from 'node:net';

const CR = 0x0d;
const LF = 0x0a;
const HEAD_END = Buffer.from('\r\n\r\n');
const DONE_TAIL = Buffer.from('data: [DONE]\n\n');
const ERROR_EVENT = Buffer.from('{"error"');
const USAGE = Buffer.from('"usage":{');

const enum Body {
  Head,
  ChunkSize,
  ChunkData,
  ChunkEnd,
  Trailer,
  Length,
  Complete,
}

export interface StreamEvents {
  /** The first byte of the answer's body (the first SSE bytes) arrived. */
  firstByte(s: SlowStream): void;
  /** `n` SSE events (blank-line terminated) arrived in one read. */
  events(s: SlowStream, n: number): void;
  /** The stream is over, complete or not; `failure` says why when it is not a full, clean stream. */
  end(s: SlowStream, failure: string | null): void;
}

/** One request, sent whole in one write with `Connection: close`; the answer checked as it arrives. */
export class SlowStream {
  readonly startedAt = performance.now();
  firstByteAt = 0;
  status = 0;
  events = 0;
  sawUsage = false;
  readonly #socket: Socket;
  readonly #on: StreamEvents;
  #state = Body.Head;
  #head: Buffer | null = null;
  #remaining = 0;
  #size = 0;
  #lastWasLf = false;
  #tail: Buffer = Buffer.alloc(0);
  #error = false;
  #failure: string | null = null;
  #ended = false;
  #errorText = '';

  constructor(port: number, request: Buffer, on: StreamEvents) {
    this.#on = on;
    this.#socket = connect({ port, host: '127.0.0.1', noDelay: true });
    this.#socket.write(request);
    this.#socket.on('data', (b: Buffer) => this.#read(b));
    this.#socket.on('error', (e) => {
      this.#failure ??= `socket error: ${e.message}`;
    });
    this.#socket.on('close', () => this.#finish());
  }

  destroy(): void {
    this.#failure ??= 'destroyed by the bench';
    this.#socket.destroy();
  }

  #read(b: Buffer): void {
    let i = 0;
    if (this.#state === Body.Head) {
      const head = this.#head === null ? b : Buffer.concat([this.#head, b]);
      const end = head.indexOf(HEAD_END);
      if (end < 0) {
        this.#head = head;
        return;
      }
      this.#head = null;
      this.#parseHead(head.toString('latin1', 0, end));
      b = head;
      i = end + 4;
    }
    while (i < b.length) {
      switch (this.#state) {
        case Body.ChunkSize: {
          const c = b[i++];
          if (c === LF) {
            if (this.#size === 0) this.#state = Body.Trailer;
            else {
              this.#remaining = this.#size;
              this.#state = Body.ChunkData;
            }
            this.#size = 0;
          } else if (c !== CR) {
            const d = c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57;
            if (d < 0 || d > 15) return this.#fail(`bad chunk size byte 0x${c.toString(16)}`);
            this.#size = this.#size * 16 + d;
          }
          break;
        }
        case Body.ChunkData:
        case Body.Length: {
          const take = Math.min(this.#remaining, b.length - i);
          this.#payload(b.subarray(i, i + take));
          i += take;
          this.#remaining -= take;
          if (this.#remaining === 0) this.#state = this.#state === Body.Length ? Body.Complete : Body.ChunkEnd;
          break;
        }
        case Body.ChunkEnd:
          if (b[i++] === LF) this.#state = Body.ChunkSize;
          break;
        case Body.Trailer:
          // The last chunk's line is followed by an empty line (no trailers are sent here).
          if (b[i++] === LF) this.#state = Body.Complete;
          break;
        case Body.Complete:
          return this.#fail('bytes after the end of the answer');
        default:
          return;
      }
    }
    if (this.#state === Body.Length && this.#remaining === 0) this.#state = Body.Complete;
  }

  #parseHead(head: string): void {
    this.status = Number(head.slice(9, 12));
    const lower = head.toLowerCase();
    if (lower.includes('\r\ntransfer-encoding: chunked')) {
      this.#state = Body.ChunkSize;
      return;
    }
    const m = /\r\ncontent-length: *(\d+)/.exec(lower);
    if (m === null) return this.#fail(`answer ${this.status} with neither chunked framing nor a length`);
    this.#remaining = Number(m[1]);
    this.#state = this.#remaining === 0 ? Body.Complete : Body.Length;
  }

  #payload(p: Buffer): void {
    if (p.length === 0) return;
    if (this.firstByteAt === 0) {
      this.firstByteAt = performance.now();
      if (this.status === 200) this.#on.firstByte(this);
    }
    if (this.status !== 200) {
      this.#errorText = (this.#errorText + p.toString('utf8')).slice(0, 300);
      return;
    }
    // Events end with a blank line; one may straddle two reads.
    let n = this.#lastWasLf && p[0] === LF ? 1 : 0;
    for (let at = p.indexOf('\n\n'); at >= 0; at = p.indexOf('\n\n', at + 2)) n++;
    this.#lastWasLf = p[p.length - 1] === LF;
    if (n > 0) {
      this.events += n;
      this.#on.events(this, n);
    }
    if (!this.#error && p.includes(ERROR_EVENT)) this.#error = true;
    if (!this.sawUsage && p.includes(USAGE)) this.sawUsage = true;
    this.#tail = p.length >= DONE_TAIL.length ? p.subarray(p.length - DONE_TAIL.length) : Buffer.concat([this.#tail, p]).subarray(-DONE_TAIL.length);
  }

  #fail(why: string): void {
    this.#failure ??= why;
    this.#socket.destroy();
  }

  #finish(): void {
    if (this.#ended) return;
    this.#ended = true;
    let failure = this.#failure;
    if (failure === null) {
      if (this.status !== 200) failure = `status ${this.status || 'none'}${this.#errorText ? `: ${this.#errorText}` : ''}`;
      else if (this.#state !== Body.Complete) failure = `connection closed before the end of the answer (${this.events} events in)`;
      else if (this.#error) failure = 'the stream carried an error event';
      else if (!this.#tail.equals(DONE_TAIL)) failure = 'the stream did not end with data: [DONE]';
    }
    this.#on.end(this, failure);
  }
}

/** The request sent for every stream: head and body in one buffer, `Connection: close`. */
export function streamRequest(port: number, path: string, headers: Record<string, string>, body: string): Buffer {
  const bytes = Buffer.from(body);
  let head = `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: close\r\ncontent-length: ${bytes.length}\r\n`;
  for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
  return Buffer.concat([Buffer.from(head + '\r\n', 'latin1'), bytes]);
}
