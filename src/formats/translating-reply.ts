import type { ClientReply } from '../domain/client-reply.js';
import { sseErrorEvent } from '../errors/envelope.js';
import type { GatewayError } from '../errors/gateway-error.js';
import type { ChatStreamTranslator, ReplyFormat } from './reply-format.js';

const JSON_TYPE = 'application/json';

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

  send(status: number, contentType: string, body: Buffer | string, headers?: Record<string, string>): void {
    if (status === 200 && contentType.startsWith(JSON_TYPE)) {
      this.#inner.send(200, JSON_TYPE, this.#format.answer(typeof body === 'string' ? Buffer.from(body) : body), headers);
    } else {
      this.#inner.send(status, contentType, body, headers);
    }
  }

  sendError(e: GatewayError): void {
    if (this.#stream !== null) {
      if (!this.#ended) this.streamEnd(sseErrorEvent(e));
      return;
    }
    this.#inner.send(e.status, JSON_TYPE, this.#format.error(e), e.headers ?? undefined);
  }

  streamStart(status: number, contentType: string, headers: Record<string, string>, first: Buffer): boolean {
    this.#stream = this.#format.stream();
    return this.#inner.streamStart(status, contentType, headers, Buffer.from(this.#stream.push(first)));
  }

  streamWrite(chunk: Buffer | string): boolean {
    const out = this.#stream!.push(chunk);
    return out.length === 0 ? true : this.#inner.streamWrite(out);
  }

  drained(): Promise<void> {
    return this.#inner.drained();
  }

  streamEnd(last?: Buffer | string): void {
    this.#ended = true;
    const s = this.#stream!;
    this.#inner.streamEnd((last === undefined ? '' : s.push(last)) + s.end());
  }

  streamAbort(): void {
    this.#ended = true;
    this.#inner.streamAbort();
  }

  batch(writes: () => void): boolean {
    return this.#inner.batch(writes);
  }
}
