import { performance } from 'node:perf_hooks';
import type { HttpResponse } from 'uWebSockets.js';
import type { AnswerMeter } from '../domain/request-meter.js';
import type { ClientReply } from '../domain/client-reply.js';
import { envelopeJson, sseErrorEvent } from '../errors/envelope.js';
import { errors } from '../errors/catalog.js';
import type { ErrorFormat } from '../errors/error-format.js';
import type { GatewayError } from '../errors/gateway-error.js';
import { nextRequestId } from '../lib/request-id.js';
import { emptyArray } from '../lib/empty-array.js';
import { requestBuffer, SLAB_MIN, type Lease } from '../lib/request-slabs.js';
import { statusText } from './status-lines.js';

const JSON_TYPE = 'application/json';
/*
 * The status line and every header of an answer go to uWS in one writeStatus: the status text
 * carries the header lines after it. uWS writes `HTTP/1.1 `, the text and a line end as given, so
 * the bytes on the wire are exactly those of writeStatus and one writeHeader per header (its own
 * Date and Content-Length still follow), and each native call left out saves ~0.6-1.4k
 * instructions (converting its arguments; bench:instructions, four headers on a JSON answer).
 */
const CONTENT_TYPE_LINE = '\r\ncontent-type: ';
// x-request-id is what the OpenAI SDKs read into `requestID` (and what proxies and log pipelines
// look for); every answer has one.
const REQUEST_ID_LINE = '\r\nx-request-id: ';
const STREAM_LINES = `\r\ncache-control: no-cache${REQUEST_ID_LINE}`;
// RFC 9110 15.5.2: a 401 names its scheme. Without it MCP clients take a 401 for an OAuth
// server's and go looking for one.
const BEARER_LINE = '\r\nwww-authenticate: Bearer realm="gw"';
/** uWS's cork buffer (LoopData::CORK_BUFFER_SIZE); see #emit. */
const CORK_ROOM = 16 * 1024;
/** A chunk's framing: CRLF, up to 8 hex digits, CRLF. */
const CHUNK_FRAMING = 12;
/** The terminating chunk's bytes. */
const END_FRAMING = 7;

/**
 * ClientReply over a uWS HttpResponse. Created synchronously in the route handler, so onAborted
 * is registered before any await; every write is corked (writes after an await must be); after
 * an abort nothing touches the response again.
 */
export class UwsReply implements ClientReply {
  aborted = false;
  readonly requestId = nextRequestId();
  #res: HttpResponse;
  #abortCallbacks: (() => void)[] | null = null;
  #started = false;
  #ended = false;
  #drain: (() => void) | null = null;
  /** Inside batch(): stream writes are collected here and written as one chunk at its end. */
  #batching = false;
  #pieces: (Buffer | string)[] = [];
  #endPending = false;
  /** A started stream's status and headers, not yet written (they go out with its first bytes). */
  #headStatus = 200;
  #headType = '';
  #headHeaders: Record<string, string> | null = null;
  #inflight: { count: number } | null;
  #bearer: boolean;
  /** The route's own error shape (RouteSpec.errorFormat); null: the spec's envelope. */
  #errors: ErrorFormat | null;
  /** The route's metrics (null when metrics are off: then nothing below is read). */
  #meter: AnswerMeter | null;
  #t0 = 0;
  #status = 0;
  #code: string | null = null;

  /**
   * `bearer`: the route takes an API key, so its 401s carry a Bearer challenge. `errors`: the
   * route's error format, for every error written here (null: the spec's envelope). `meter`: told
   * how the answer ended and how long it took, once.
   */
  constructor(res: HttpResponse, inflight: { count: number } | null = null, bearer = false, errors: ErrorFormat | null = null,
    meter: AnswerMeter | null = null) {
    this.#res = res;
    this.#inflight = inflight;
    this.#bearer = bearer;
    this.#errors = errors;
    this.#meter = meter;
    if (meter !== null) this.#t0 = performance.now();
    if (inflight) inflight.count++;
    res.onAborted(() => {
      this.aborted = true;
      this.#finish();
      const d = this.#drain;
      this.#drain = null;
      d?.();
      const cbs = this.#abortCallbacks;
      this.#abortCallbacks = null;
      if (cbs) for (const cb of cbs) cb();
    });
  }

  #finish(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#inflight) this.#inflight.count--;
    const m = this.#meter;
    if (m !== null) {
      const aborted = this.aborted;
      m.answered(aborted ? 499 : this.#status, aborted ? 'client_aborted' : this.#code, (performance.now() - this.#t0) / 1000);
    }
  }

  onAbort(cb: () => void): void {
    if (this.aborted) {
      cb();
      return;
    }
    (this.#abortCallbacks ??= []).push(cb);
  }

  /**
   * Reads the whole request body, copying uWS's transient chunks, and refuses past `limit` bytes
   * with 413, at once when Content-Length already says so. Must be called synchronously in the
   * handler. `done` gets the body inside uWS's data callback, with no promise in between, and
   * must not throw; it is never called when the body was refused or the client went away. With
   * `lend`, a large body with its length declared is read into a lent slab (lib/request-slabs.ts)
   * and `done` gets its lease, for the caller to give back.
   */
  readBody(limit: number, declaredLength: number, done: (body: Buffer, lease: Lease | null) => void, lend = false): void {
    if (declaredLength > limit) {
      // The connection stays open and uWS discards the rest of the body: closing while the
      // client is still uploading made it fail on a reset (EPIPE) before reading the 413.
      this.sendError(errors.payloadTooLarge(limit));
      return;
    }
    let chunks: Buffer[] | null = null;
    let size = 0;
    let refused = false;
    // With its length declared, a body arriving in pieces is copied once into one buffer of that
    // size, not copied per piece and joined (a second copy of an agent's 200 KB, and another
    // allocation whose pages fault in).
    let whole: Buffer | null = null;
    // An agent's turn (SLAB_MIN and more) goes into memory an ended request gave back: a fresh
    // 200 KB buffer a turn made V8 scavenge for its external memory every ~150 turns
    // (gc-promotion.bench.js, 2,000 turns: 13–15 scavenges → 2–3, 14–20 → 0.6–2.6 µs of pause a
    // turn on every path; lib/request-slabs.ts).
    let lease: Lease | null = null;
    this.#res.onData((ab, isLast) => {
      if (refused || this.aborted) return;
      const at = size;
      size += ab.byteLength;
      if (size > limit) {
        refused = true;
        this.sendError(errors.payloadTooLarge(limit));
        return;
      }
      if (at === 0 && declaredLength >= SLAB_MIN && lend) ({ buf: whole, lease } = requestBuffer(declaredLength));
      else if (at === 0 && !isLast && declaredLength > size) whole = Buffer.allocUnsafe(declaredLength);
      if (whole !== null) {
        if (size <= whole.length) {
          whole.set(new Uint8Array(ab), at);
          if (isLast) done(size === whole.length ? whole : whole.subarray(0, size), lease);
          return;
        }
        // More than declared (uWS frames by the length, so never in practice): pieces from here.
        chunks = [Buffer.from(whole.subarray(0, at))];
        whole = null;
        lease?.release();
        lease = null;
      }
      const copy = Buffer.copyBytesFrom(new Uint8Array(ab));
      if (!isLast) (chunks ??= []).push(copy);
      else if (chunks === null) done(copy, null);
      else {
        chunks.push(copy);
        done(Buffer.concat(chunks, size), null);
      }
    });
  }

  send(status: number, contentType: string, body: Buffer | string, headers?: Record<string, string | readonly string[]>, close = false): void {
    if (this.aborted || this.#ended) return;
    const res = this.#res;
    let lines = `${statusText(status)}${CONTENT_TYPE_LINE}${contentType}${REQUEST_ID_LINE}${this.requestId}`;
    if (status === 401 && this.#bearer) lines += BEARER_LINE;
    if (headers) {
      for (const k in headers) {
        const v = headers[k];
        if (typeof v === 'string') lines += `\r\n${k}: ${v}`;
        else for (const item of v) lines += `\r\n${k}: ${item}`;
      }
    }
    res.cork(() => {
      res.writeStatus(lines);
      res.end(body, close);
    });
    this.#status = status;
    this.#finish();
  }

  sendJson(status: number, json: string, headers?: Record<string, string | readonly string[]>): void {
    this.send(status, JSON_TYPE, json, headers);
  }

  sendError(e: GatewayError, close = false): void {
    const f = this.#errors;
    this.#code = e.code;
    if (this.#started) {
      this.streamEnd(f === null ? sseErrorEvent(e) : f.event(e, this.requestId));
      return;
    }
    this.send(e.status, JSON_TYPE, f === null ? envelopeJson(e) : f.body(e, this.requestId), e.headers ?? undefined, close);
  }

  streamStart(status: number, contentType: string, headers: Record<string, string>, first: Buffer): boolean {
    if (this.aborted || this.#ended) return false;
    this.#started = true;
    this.#headStatus = status;
    this.#status = status;
    this.#headType = contentType;
    this.#headHeaders = headers;
    if (this.#batching) {
      this.#pieces.push(first);
      return true;
    }
    return this.#emit(first, false);
  }

  streamWrite(chunk: Buffer | string): boolean {
    if (this.aborted || this.#ended) return false;
    if (this.#batching) {
      this.#pieces.push(chunk);
      return true;
    }
    return this.#emit(chunk, false);
  }

  drained(): Promise<void> {
    if (this.aborted || this.#ended) return Promise.resolve();
    return new Promise((resolve) => {
      this.#drain = resolve;
      this.#res.onWritable(() => {
        const d = this.#drain;
        this.#drain = null;
        d?.();
        return true;
      });
    });
  }

  batch(writes: () => void): boolean {
    if (this.aborted || this.#ended || this.#batching) {
      writes();
      return !this.aborted;
    }
    this.#batching = true;
    try {
      writes();
    } finally {
      this.#batching = false;
    }
    const pieces = this.#pieces;
    const end = this.#endPending;
    this.#endPending = false;
    if (pieces.length === 0 && !end && this.#headHeaders === null) return true;
    if (this.aborted || this.#ended) {
      emptyArray(pieces);
      return false;
    }
    if (pieces.length < 2) {
      const data = pieces.length === 0 ? null : pieces.pop()!;
      return this.#emit(data, end);
    }
    const ok = this.#emitPieces(pieces, end);
    emptyArray(pieces);
    return ok;
  }

  /**
   * Writes the pending status and headers (if the stream has not started yet), `data` as one
   * chunk, and the end if `end`. uWS copies corked writes into a 16 KB cork buffer; a write that
   * does not fit makes it flush the buffer first, and when that flush meets a full socket,
   * uWS v20.30 (AsyncSocket::uncork) returns without writing the new bytes at all: the chunk's
   * size line has gone out and its data never does, and the client's parser fails (HPE_STRICT,
   * seen under an endless upstream flood to a slow reader). So a cork is only ever given what
   * fits; bigger data is written uncorked, where uWS buffers what the socket does not take, in
   * order.
   */
  #emit(data: Buffer | string | null, end: boolean): boolean {
    const res = this.#res;
    const headers = this.#headHeaders;
    this.#headHeaders = null;
    const size = data === null ? 0 : typeof data === 'string' ? Buffer.byteLength(data) : data.length;
    const fits = this.#fitsCork(size + CHUNK_FRAMING, headers);
    let ok = true;
    res.cork(() => {
      if (headers !== null) this.#writeHead(headers);
      if (!fits) return;
      if (end) {
        if (data === null) res.end();
        else res.end(data);
      } else if (data !== null && size > 0) {
        ok = res.write(data);
      }
    });
    if (!fits) {
      // Headers alone past the cork's room (no data) still end the answer.
      if (data !== null) ok = res.write(data);
      if (end) res.cork(() => res.end());
    }
    if (end) this.#finish();
    return ok;
  }

  /**
   * #emit for a batch of several pieces (a translated stream's events and its end): each is
   * written as a chunk of its own into the same cork, so they still leave in one packet, and
   * nothing is joined first. Joining them (Buffer.concat) made a buffer of its own for each
   * stream (past Node's 4 KB pool), and it and its copy were 5.5 µs of a chat → Responses
   * stream's main-thread time (--cpu-prof of one gateway under streams of each kind, issue 17,
   * docs/benchmarks.md). Pieces past the cork's room are joined and written as #emit writes
   * them: uncorked one by one, each would be a send of its own.
   */
  #emitPieces(pieces: readonly (Buffer | string)[], end: boolean): boolean {
    const headers = this.#headHeaders;
    let size = 0;
    for (let i = 0; i < pieces.length; i++) {
      const p = pieces[i];
      size += (typeof p === 'string' ? Buffer.byteLength(p) : p.length) + CHUNK_FRAMING;
    }
    if (!this.#fitsCork(size, headers)) {
      return this.#emit(Buffer.concat(pieces.map(bytesOf)), end);
    }
    this.#headHeaders = null;
    const res = this.#res;
    let ok = true;
    res.cork(() => {
      if (headers !== null) this.#writeHead(headers);
      for (let i = 0; i < pieces.length; i++) if (pieces[i].length > 0) ok = res.write(pieces[i]);
      if (end) res.end();
    });
    if (end) this.#finish();
    return ok;
  }

  /** Whether `chunks` (the chunks' bytes with their framing), the end and the pending headers fit the cork (see #emit). */
  #fitsCork(chunks: number, headers: Record<string, string> | null): boolean {
    return chunks + END_FRAMING + (headers === null ? 0 : headBytes(this.#headType, headers)) <= CORK_ROOM;
  }

  /** The stream's status line and headers, in one writeStatus (see CONTENT_TYPE_LINE). */
  #writeHead(headers: Record<string, string>): void {
    let lines = `${statusText(this.#headStatus)}${CONTENT_TYPE_LINE}${this.#headType}${STREAM_LINES}${this.requestId}`;
    for (const k in headers) lines += `\r\n${k}: ${headers[k]}`;
    this.#res.writeStatus(lines);
  }

  streamAbort(): void {
    if (this.aborted || this.#ended) return;
    this.#code = 'stream_interrupted';
    this.#finish();
    this.#res.close();
  }

  streamEnd(last?: Buffer | string, failedWith?: string): void {
    if (this.aborted || this.#ended) return;
    if (failedWith !== undefined) this.#code = failedWith;
    if (this.#batching) {
      if (last !== undefined) this.#pieces.push(last);
      this.#endPending = true;
      return;
    }
    this.#emit(last ?? null, true);
  }
}

function bytesOf(piece: Buffer | string): Buffer {
  return typeof piece === 'string' ? Buffer.from(piece) : piece;
}

/**
 * The status line and headers of a stream as uWS writes them: ours, with room for the status
 * line, content-type and cache-control names, and those uWS adds (Date, its mark, Transfer-Encoding).
 */
function headBytes(contentType: string, headers: Record<string, string>): number {
  // Status line, date, server name, cache-control, x-request-id, the transfer encoding: under 256.
  let n = 256 + contentType.length;
  for (const k in headers) n += k.length + headers[k].length + 4;
  return n;
}
