import type { ResponseSink } from '../../src/upstream/response-sink.js';
import type { TransportError } from '../../src/upstream/transport-error.js';

// What an upstream client (the HTTP/1.1 pool, the HTTP/2 sessions) reported for one exchange.

export interface Result {
  status: number;
  contentType: string | null;
  body: string;
  error: TransportError | null;
}

/** A sink that collects everything; `pauseAfter` pauses once that many chunks arrived. */
export class Collector implements ResponseSink {
  status = 0;
  contentType: string | null = null;
  chunks: Buffer[] = [];
  error: TransportError | null = null;
  readonly done: Promise<Result>;
  #resolve!: (r: Result) => void;

  constructor(readonly pauseAfter = Infinity) {
    this.done = new Promise((r) => { this.#resolve = r; });
  }

  onResponseHead(status: number, contentType: string | null): void {
    this.status = status;
    this.contentType = contentType;
  }

  onResponseData(view: Buffer): boolean {
    this.chunks.push(Buffer.from(view));
    return this.chunks.length !== this.pauseAfter;
  }

  onResponseEnd(): void {
    this.#finish();
  }

  onResponseError(err: TransportError): void {
    this.error = err;
    this.#finish();
  }

  #finish(): void {
    this.#resolve({ status: this.status, contentType: this.contentType, body: Buffer.concat(this.chunks).toString(), error: this.error });
  }
}
