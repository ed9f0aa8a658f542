import type { ClientReply } from '../domain/client-reply.js';
import type { NativeBytes } from '../domain/native-bytes.js';
import { errors } from '../errors/catalog.js';
import { sseErrorEvent } from '../errors/envelope.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { ChatStreamTranslator, ReplyFormat } from './reply-format.js';

const JSON_TYPE = 'application/json';
const EMPTY = Buffer.alloc(0);

/**
 * The client's reply for a request in another inbound format: the data plane writes OpenAI
 * chat-completion answers, errors and streams to it as to any reply, and the client receives
 * them in its own format. Statuses and headers pass unchanged.
 */
export class TranslatingReply implements ClientReply {
  readonly #inner: ClientReply;
  readonly #format: ReplyFormat;
  #stream: ChatStreamTranslator | null = null;
  #ended = false;
  #native: NativeBytes | null = null;
  /** A passed-through stream that failed before its first write: the failure event goes at its end. */
  #failure = '';

  constructor(inner: ClientReply, format: ReplyFormat) {
    this.#inner = inner;
    this.#format = format;
  }

  get aborted(): boolean {
    return this.#inner.aborted;
  }

  get requestId(): string {
    return this.#inner.requestId;
  }

  onAbort(cb: () => void): void {
    this.#inner.onAbort(cb);
  }

  passThrough(native: NativeBytes): void {
    this.#native = native;
  }

  send(status: number, contentType: string, body: Buffer | string, headers?: Record<string, string>): void {
    if (status === 200 && this.#native !== null) {
      this.#inner.send(200, contentType, this.#native.drain() ?? EMPTY, headers);
    } else if (status === 200) {
      // Whatever the provider called its answer's type, the client's format is JSON written from it.
      let out: string | Buffer;
      try {
        out = this.#format.answer(typeof body === 'string' ? Buffer.from(body) : body);
      } catch (e) {
        const why = errors.unreadableAnswer(String((e as Error).message ?? e).slice(0, 200));
        this.#inner.sendError(new GatewayError(why.status, why.type, why.code, why.message, headers));
        return;
      }
      this.#inner.send(200, JSON_TYPE, out, headers);
    } else {
      this.#inner.send(status, contentType, body, headers);
    }
  }

  sendError(e: GatewayError): void {
    if (this.#stream !== null) {
      if (!this.#ended) this.streamEnd(sseErrorEvent(e));
      return;
    }
    // The route's own error shape (RouteSpec.errorFormat) is the inner reply's to write.
    this.#inner.sendError(e);
  }

  streamStart(status: number, contentType: string, headers: Record<string, string>, first: Buffer): boolean {
    this.#stream = this.#format.stream();
    if (this.#native !== null) {
      // The chat view is still read (for a failure at the end); the client gets the provider's bytes.
      this.#failure = this.#format.failureEvent?.(first) ?? '';
      return this.#inner.streamStart(status, contentType, headers, this.#native.drain() ?? EMPTY);
    }
    return this.#inner.streamStart(status, contentType, headers, this.#stream.push(first));
  }

  streamWrite(chunk: Buffer | string): boolean {
    if (this.#native !== null) {
      const raw = this.#native.drain();
      return raw === null ? true : this.#inner.streamWrite(raw);
    }
    const out = this.#stream!.push(chunk);
    return out.length === 0 ? true : this.#inner.streamWrite(out);
  }

  drained(): Promise<void> {
    return this.#inner.drained();
  }

  streamEnd(last?: Buffer | string, failedWith?: string): void {
    this.#ended = true;
    const s = this.#stream!;
    if (this.#native !== null) {
      // A clean end is the provider's own last bytes; a failure adds the format's error event after them.
      const raw = this.#native.drain();
      const failure = (last === undefined ? '' : this.#format.failureEvent?.(last) ?? '') || this.#failure;
      this.#inner.streamEnd(raw === null ? failure : failure === '' ? raw : Buffer.concat([raw, Buffer.from(failure)]), failedWith);
      return;
    }
    const end = s.end();
    this.#inner.streamEnd(last === undefined ? end : Buffer.concat([s.push(last), end]), failedWith);
  }

  streamAbort(): void {
    this.#ended = true;
    this.#inner.streamAbort();
  }

  batch(writes: () => void): boolean {
    return this.#inner.batch(writes);
  }
}
