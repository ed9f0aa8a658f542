import type { UpstreamResponse } from '../providers/types.js';
import type { RequestControl, ResponseSink } from '../upstream/response-sink.js';
import { TransportError } from '../upstream/transport-error.js';
import { MIN_MASKED_SECRET, SecretMask } from '../lib/secret-mask.js';
import { errors } from '../errors/catalog.js';
import type { ByteBudget } from './byte-budget.js';
import { RouteFailure, transportFailure } from './route-failure.js';
import { emptyArray } from '../lib/empty-array.js';

/** Chunks buffered before the connection is asked to pause reading (a slow client, a fast upstream). */
const HIGH_WATER = 32;
const CANCELLED = new TransportError('aborted', 'request aborted by the client');

/**
 * One upstream exchange as the data plane consumes it: the connection pushes head, body and end
 * into it, and the response is delivered through `started` (status and headers) and then pulled
 * with next() or readAll(). No Readable stream or async iterator is created per request.
 * readAll() buffers at most `maxBytes`: past that the connection is closed and the read fails,
 * so a provider that never stops answering cannot exhaust the gateway's memory. While it
 * buffers, its bytes are reserved from the gateway-wide budget; past that, the read fails with
 * 503 overloaded (the gateway's limit, not the route's fault), and the reservation is returned
 * once the read settles either way.
 */
export class UpstreamExchange implements ResponseSink, UpstreamResponse {
  status = 0;
  contentType = 'application/json';
  /** Settles with the head; rejects, before it, with the transport's failure as a RouteFailure. */
  readonly started: Promise<UpstreamResponse>;
  control: RequestControl | null = null;
  #resolveStart!: (r: UpstreamResponse) => void;
  #rejectStart!: (e: Error) => void;
  #chunks: Buffer[] = [];
  #head = 0;
  /** Bytes in #chunks not yet taken. */
  #buffered = 0;
  /** The answer's content-length, or -1: one declared over the limit is refused unread. */
  #declared = -1;
  #ended = false;
  #error: Error | null = null;
  #cancelled = false;
  #wantAll = false;
  #limit: number;
  readonly #maxBytes: number;
  readonly #budget: ByteBudget;
  /** Bytes of this answer reserved from the budget. */
  #reserved = 0;
  #waiter: { resolve: (v: Buffer | null) => void; reject: (e: Error) => void } | null = null;

  /**
   * Masks the key sent with the call wherever a success answer echoes it; null when there is none
   * to look for, and on an error answer, whose text is scrubbed whole as it is read (route-attempts).
   */
  #mask: SecretMask | null;

  constructor(maxBytes: number, budget: ByteBudget, secret: string | null = null) {
    this.#maxBytes = maxBytes;
    this.#budget = budget;
    this.#limit = maxBytes;
    this.#mask = secret !== null && secret.length >= MIN_MASKED_SECRET ? new SecretMask(secret) : null;
    this.started = new Promise((resolve, reject) => {
      this.#resolveStart = resolve;
      this.#rejectStart = reject;
    });
  }

  onResponseHead(status: number, contentType: string | null, contentLength: number): void {
    this.status = status;
    if (status >= 400) this.#mask = null;
    this.#declared = contentLength;
    if (contentType !== null) this.contentType = contentType;
    this.#resolveStart(this);
  }

  onResponseData(view: Buffer): boolean {
    // The view points into the connection's read buffer, which the next read overwrites.
    let chunk: Buffer = Buffer.allocUnsafe(view.length);
    view.copy(chunk, 0);
    if (this.#mask !== null) {
      chunk = this.#mask.push(chunk);
      if (chunk.length === 0) return true;
    }
    return this.#accept(chunk);
  }

  #accept(chunk: Buffer): boolean {
    if (this.#waiter !== null && !this.#wantAll) {
      const w = this.#waiter;
      this.#waiter = null;
      w.resolve(chunk);
      return true;
    }
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    if (this.#wantAll) {
      if (this.#buffered > this.#limit) {
        this.#overflow();
        return false;
      }
      if (!this.#reserve(chunk.length)) return false;
    }
    return this.#wantAll || this.#chunks.length - this.#head < HIGH_WATER;
  }

  onResponseEnd(): void {
    const kept = this.#mask?.end() ?? null;
    if (kept !== null && this.#error === null) this.#accept(kept);
    this.#ended = true;
    const w = this.#waiter;
    if (w === null) return;
    this.#waiter = null;
    if (this.#wantAll) {
      const all = this.#concat();
      this.#release();
      w.resolve(all);
    } else {
      w.resolve(null);
    }
  }

  onResponseError(err: TransportError): void {
    if (this.#error !== null) return;
    this.#error = this.#cancelled ? CANCELLED : err;
    this.#release();
    const failure = transportFailure(this.#error);
    // A request that waited its bound for a connection says how long, for the ledger.
    if (this.control !== null) failure.queueMs = this.control.queueMs;
    this.#rejectStart(failure);
    const w = this.#waiter;
    this.#waiter = null;
    w?.reject(this.#error);
  }

  readAll(maxBytes = this.#maxBytes): Promise<Buffer> {
    this.#limit = maxBytes;
    if (this.#error === null && (this.#buffered > maxBytes || this.#declared > maxBytes)) this.#overflow();
    if (this.#error) return Promise.reject(this.#error);
    if (this.#ended) return Promise.resolve(this.#concat());
    this.#wantAll = true;
    if (!this.#reserve(this.#buffered)) return Promise.reject(this.#error!);
    this.control?.resume();
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve: resolve as (v: Buffer | null) => void, reject };
    });
  }

  arrived(): Buffer | null {
    if (!this.#ended || this.#error !== null || this.#buffered > this.#maxBytes || this.#declared > this.#maxBytes) return null;
    return this.#concat();
  }

  next(): Promise<Buffer | null> {
    const c = this.take();
    if (c !== null) return Promise.resolve(c);
    if (this.#error) return Promise.reject(this.#error);
    if (this.#ended) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
  }

  take(): Buffer | null {
    if (this.#head >= this.#chunks.length) return null;
    const c = this.#chunks[this.#head++];
    this.#buffered -= c.length;
    if (this.#head === this.#chunks.length) {
      emptyArray(this.#chunks);
      this.#head = 0;
      this.control?.resume();
    }
    return c;
  }

  get queueMs(): number {
    return this.control === null ? 0 : this.control.queueMs;
  }

  get finished(): boolean {
    return this.#ended && this.#error === null && this.#head >= this.#chunks.length;
  }

  cancel(): void {
    if (this.#cancelled || this.#ended) return;
    this.#cancelled = true;
    this.control?.abort();
  }

  /** Reserves n more bytes from the budget; when it is spent, fails the read instead. */
  #reserve(n: number): boolean {
    if (this.#budget.take(n)) {
      this.#reserved += n;
      return true;
    }
    this.#fail(errors.answersOverBudget());
    return false;
  }

  #release(): void {
    this.#budget.give(this.#reserved);
    this.#reserved = 0;
  }

  /** Fails the read with a route failure and closes the connection (the rest is never read). */
  #overflow(): void {
    this.#fail(new RouteFailure('upstream_response_too_large', `upstream answer is larger than ${this.#limit} bytes`));
  }

  #fail(error: Error): void {
    this.#error = error;
    this.#release();
    this.#chunks.length = 0;
    this.#head = 0;
    this.#buffered = 0;
    this.#rejectStart(this.#error);
    const w = this.#waiter;
    this.#waiter = null;
    w?.reject(this.#error);
    if (!this.#ended) this.control?.abort();
  }

  #concat(): Buffer {
    const rest = this.#head === 0 ? this.#chunks : this.#chunks.slice(this.#head);
    return rest.length === 1 ? rest[0] : Buffer.concat(rest, this.#buffered);
  }
}
