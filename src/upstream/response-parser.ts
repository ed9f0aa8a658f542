import { TransportError } from './transport-error.js';

/** What the parser reports; body views point into the caller's buffer and must be copied to be kept. */
export interface ResponseEvents {
  onHead(head: ResponseHead): void;
  onBody(view: Buffer): void;
  onComplete(): void;
}

export interface ResponseHead {
  status: number;
  contentType: string | null;
  /** The connection may carry another request after this response. */
  keepAlive: boolean;
  /** The server's `Keep-Alive: timeout=N`, in ms; null when it gave none. */
  keepAliveMs: number | null;
  /** The body length when `content-length` frames it, else -1 (chunked, or until close). */
  contentLength: number;
}

const MAX_HEAD_BYTES = 64 * 1024;
const MAX_CHUNK_SIZE = 2 ** 40;
const CR = 13;
const LF = 10;
const HEAD_END = Buffer.from('\r\n\r\n');

const enum State {
  Head,
  Length,
  ChunkSize,
  ChunkExt,
  ChunkSizeLf,
  ChunkData,
  ChunkDataCr,
  ChunkDataLf,
  TrailerStart,
  Trailer,
  TrailerEndLf,
  UntilClose,
  Done,
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

function protocolError(detail: string): TransportError {
  return new TransportError('protocol_error', `upstream sent an invalid HTTP response (${detail})`);
}

/**
 * An HTTP/1.1 response parser for one message at a time: status line, the few headers that
 * frame the body, then the body by content-length, chunked coding, or until close. It walks
 * bytes without allocating except for the head text; everything else is a view of the input.
 * Only what a proxy needs is parsed: other headers are skipped, not collected.
 */
export class ResponseParser {
  #events: ResponseEvents;
  #state = State.Done;
  #pendingHead: Buffer | null = null;
  #remaining = 0;
  #chunkSize = 0;
  #chunkDigits = 0;
  /** The request was not a HEAD and expects a body unless the status says none. */
  #keepAlive = false;
  /** Bytes arrived after the message ended: the connection cannot be trusted with another request. */
  trailingGarbage = false;

  constructor(events: ResponseEvents) {
    this.#events = events;
  }

  /** Prepares for the response to the request just sent. */
  expect(): void {
    this.#state = State.Head;
    this.#pendingHead = null;
    this.trailingGarbage = false;
  }

  get done(): boolean {
    return this.#state === State.Done;
  }

  /** The message is framed by the connection closing, so EOF completes it. */
  get untilClose(): boolean {
    return this.#state === State.UntilClose;
  }

  /** True until the head has been parsed. */
  get awaitingHead(): boolean {
    return this.#state === State.Head;
  }

  get keepAlive(): boolean {
    return this.#keepAlive && !this.trailingGarbage;
  }

  /** Feeds `buf[start, end)`; throws TransportError on a malformed message. */
  execute(buf: Buffer, start: number, end: number): void {
    let i = start;
    while (i < end) {
      switch (this.#state) {
        case State.Head:
          i = this.#head(buf, i, end);
          break;
        case State.Length: {
          const n = Math.min(this.#remaining, end - i);
          this.#events.onBody(buf.subarray(i, i + n));
          i += n;
          this.#remaining -= n;
          if (this.#remaining === 0) this.#complete();
          break;
        }
        case State.UntilClose:
          this.#events.onBody(buf.subarray(i, end));
          i = end;
          break;
        case State.ChunkData: {
          const n = Math.min(this.#remaining, end - i);
          this.#events.onBody(buf.subarray(i, i + n));
          i += n;
          this.#remaining -= n;
          if (this.#remaining === 0) this.#state = State.ChunkDataCr;
          break;
        }
        case State.Done:
          // A server may not send more than it was asked for; the connection is retired.
          this.trailingGarbage = true;
          return;
        default:
          this.#chunkByte(buf[i++]);
      }
    }
  }

  /** The server closed the connection; completes a close-delimited body, else throws. */
  finish(): void {
    if (this.#state === State.UntilClose) {
      this.#complete();
      return;
    }
    if (this.#state === State.Done) return;
    if (this.#state === State.Head && this.#pendingHead === null) {
      throw new TransportError('connection_reset', 'upstream closed the connection');
    }
    throw new TransportError('connection_reset', 'upstream closed the connection mid-response');
  }

  #complete(): void {
    this.#state = State.Done;
    this.#events.onComplete();
  }

  #head(buf: Buffer, start: number, end: number): number {
    let src = buf;
    let from = start;
    let stop = end;
    if (this.#pendingHead !== null) {
      src = Buffer.concat([this.#pendingHead, buf.subarray(start, end)]);
      from = 0;
      stop = src.length;
    }
    // A header end split across reads is found again from a little before the new bytes.
    const searchFrom = this.#pendingHead === null ? from : Math.max(0, this.#pendingHead.length - 3);
    const at = src.indexOf(HEAD_END, searchFrom);
    if (at < 0 || at + 4 > stop) {
      if (stop - from > MAX_HEAD_BYTES) throw protocolError('head larger than 64 KiB');
      this.#pendingHead = Buffer.from(src.subarray(from, stop));
      return end;
    }
    const consumed = at + 4 - from - (this.#pendingHead === null ? 0 : this.#pendingHead.length);
    this.#pendingHead = null;
    const head = this.#parseHead(src.toString('latin1', from, at));
    if (head !== null) this.#events.onHead(head);
    return start + consumed;
  }

  /** Returns null for an interim (1xx) response, which is skipped. */
  #parseHead(text: string): ResponseHead | null {
    if (!text.startsWith('HTTP/1.') || text.length < 12 || text.charCodeAt(8) !== 32) throw protocolError('bad status line');
    const minor = text.charCodeAt(7) - 48;
    const status = Number(text.slice(9, 12));
    if (!(minor === 0 || minor === 1) || !Number.isInteger(status) || status < 100) throw protocolError('bad status line');
    if (status < 200) {
      if (status === 101) throw protocolError('unexpected protocol switch');
      this.#state = State.Head;
      return null;
    }
    let contentType: string | null = null;
    let length = -1;
    let chunked = false;
    let transferEncoded = false;
    let close = false;
    let keepAliveToken = false;
    let keepAliveMs: number | null = null;
    let lineStart = text.indexOf('\r\n') + 2;
    // Names are compared in place and values sliced only when kept: the usual head (type, length,
    // date, connection, keep-alive) costs no string but the content type.
    while (lineStart > 1 && lineStart < text.length) {
      let lineEnd = text.indexOf('\r\n', lineStart);
      if (lineEnd < 0) lineEnd = text.length;
      const colon = text.indexOf(':', lineStart);
      if (colon > lineStart && colon < lineEnd) {
        const name = framingHeader(text, lineStart, colon);
        if (name !== null) {
          let from = colon + 1;
          let to = lineEnd;
          while (from < to && isBlank(text.charCodeAt(from))) from++;
          while (to > from && isBlank(text.charCodeAt(to - 1))) to--;
          if (name === 'content-type') contentType = text.slice(from, to);
          else if (name === 'content-length') length = parseLength(text, from, to, length);
          else if (name === 'transfer-encoding') {
            transferEncoded = true;
            chunked = sameName(text, from, 'chunked', to) || /(?:^|,)\s*chunked\s*$/i.test(text.slice(from, to));
          } else if (name === 'connection') {
            if (sameName(text, from, 'keep-alive', to)) keepAliveToken = true;
            else if (sameName(text, from, 'close', to)) close = true;
            else {
              const tokens = text.slice(from, to).toLowerCase();
              close = close || hasToken(tokens, 'close');
              keepAliveToken = keepAliveToken || hasToken(tokens, 'keep-alive');
            }
          } else keepAliveMs = keepAliveTimeout(text.slice(from, to)) ?? keepAliveMs;
        }
      }
      lineStart = lineEnd + 2;
    }
    let keepAlive = minor === 1 ? !close : keepAliveToken;
    // A message with both framings is a smuggling risk: chunked wins and the connection is retired.
    if (transferEncoded && length >= 0) keepAlive = false;
    if (status === 204 || status === 304) this.#state = State.Done;
    else if (transferEncoded) {
      if (chunked) this.#startChunk();
      else {
        this.#state = State.UntilClose;
        keepAlive = false;
      }
    } else if (length >= 0) {
      this.#remaining = length;
      this.#state = length === 0 ? State.Done : State.Length;
    } else {
      this.#state = State.UntilClose;
      keepAlive = false;
    }
    this.#keepAlive = keepAlive;
    const head = { status, contentType, keepAlive, keepAliveMs, contentLength: this.#state === State.Length ? length : this.#state === State.Done ? 0 : -1 };
    if (this.#state === State.Done) {
      this.#events.onHead(head);
      this.#events.onComplete();
      return null;
    }
    return head;
  }

  #startChunk(): void {
    this.#state = State.ChunkSize;
    this.#chunkSize = 0;
    this.#chunkDigits = 0;
  }

  #chunkByte(c: number): void {
    switch (this.#state) {
      case State.ChunkSize: {
        const v = hexValue(c);
        if (v >= 0) {
          this.#chunkSize = this.#chunkSize * 16 + v;
          if (++this.#chunkDigits > 11 || this.#chunkSize > MAX_CHUNK_SIZE) throw protocolError('chunk too large');
          return;
        }
        if (this.#chunkDigits === 0) throw protocolError('bad chunk size');
        if (c === CR) this.#state = State.ChunkSizeLf;
        else if (c === LF) this.#endSizeLine();
        else if (c === 59 /* ; */ || c === 32 || c === 9) this.#state = State.ChunkExt;
        else throw protocolError('bad chunk size');
        return;
      }
      case State.ChunkExt:
        if (c === LF) this.#endSizeLine();
        else if (c === CR) this.#state = State.ChunkSizeLf;
        return;
      case State.ChunkSizeLf:
        if (c !== LF) throw protocolError('bad chunk size line');
        this.#endSizeLine();
        return;
      case State.ChunkDataCr:
        if (c === CR) this.#state = State.ChunkDataLf;
        else if (c === LF) this.#startChunk();
        else throw protocolError('chunk longer than its size');
        return;
      case State.ChunkDataLf:
        if (c !== LF) throw protocolError('chunk longer than its size');
        this.#startChunk();
        return;
      case State.TrailerStart:
        if (c === CR) this.#state = State.TrailerEndLf;
        else if (c === LF) this.#complete();
        else this.#state = State.Trailer;
        return;
      case State.Trailer:
        if (c === LF) this.#state = State.TrailerStart;
        return;
      case State.TrailerEndLf:
        if (c !== LF) throw protocolError('bad trailer');
        this.#complete();
        return;
    }
  }

  #endSizeLine(): void {
    if (this.#chunkSize === 0) this.#state = State.TrailerStart;
    else {
      this.#remaining = this.#chunkSize;
      this.#state = State.ChunkData;
    }
  }
}

type FramingHeader = 'content-type' | 'content-length' | 'transfer-encoding' | 'connection' | 'keep-alive';

/** The header named by text[start, colon) if it is one that frames the response; null for the rest. */
function framingHeader(text: string, start: number, colon: number): FramingHeader | null {
  switch (colon - start) {
    case 12: return sameName(text, start, 'content-type') ? 'content-type' : null;
    case 14: return sameName(text, start, 'content-length') ? 'content-length' : null;
    case 17: return sameName(text, start, 'transfer-encoding') ? 'transfer-encoding' : null;
    case 10: return sameName(text, start, 'connection') ? 'connection' : sameName(text, start, 'keep-alive') ? 'keep-alive' : null;
    default: return null;
  }
}

/** Whether text[at, end) is `lower` (a lower-case name or token), letters compared without case. */
function sameName(text: string, at: number, lower: string, end = at + lower.length): boolean {
  if (end - at !== lower.length) return false;
  for (let i = 0; i < lower.length; i++) {
    const c = text.charCodeAt(at + i);
    const l = lower.charCodeAt(i);
    if (c !== l && !(l >= 97 && l <= 122 && (c | 0x20) === l)) return false;
  }
  return true;
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9;
}

// A server sends the same Keep-Alive value on every answer: it is read once, not per answer.
let lastKeepAlive = '';
let lastKeepAliveMs: number | null = null;

/** `timeout=N` of a Keep-Alive value, in ms; null when it has none. */
function keepAliveTimeout(value: string): number | null {
  if (value !== lastKeepAlive) {
    const m = /timeout\s*=\s*(\d+)/i.exec(value);
    lastKeepAlive = value;
    lastKeepAliveMs = m ? Number(m[1]) * 1000 : null;
  }
  return lastKeepAliveMs;
}

function hasToken(list: string, token: string): boolean {
  for (const part of list.split(',')) if (part.trim() === token) return true;
  return false;
}

// Repeated lengths are allowed only when they agree (RFC 9112 §6.3): "42" and "42, 42" but
// not "42, 7", "4 2" or "-1". Reads text[from, to).
function parseLength(text: string, from: number, to: number, previous: number): number {
  let length = previous;
  let n = 0;
  let digits = 0;
  let sealed = false;
  for (let i = from; i <= to; i++) {
    const c = i < to ? text.charCodeAt(i) : 44;
    if (c >= 48 && c <= 57) {
      if (sealed || ++digits > 15) throw protocolError('bad content-length');
      n = n * 10 + (c - 48);
    } else if (c === 44) {
      if (digits === 0) throw protocolError('bad content-length');
      if (length >= 0 && n !== length) throw protocolError('conflicting content-length');
      length = n;
      n = 0;
      digits = 0;
      sealed = false;
    } else if (c === 32 || c === 9) sealed = digits > 0;
    else throw protocolError('bad content-length');
  }
  return length;
}
