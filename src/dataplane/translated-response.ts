import type { NativeBytes } from '../domain/native-bytes.js';
import type { ProviderAdapter, StreamTranslator, TokenEndpoint, UpstreamResponse } from '../providers/types.js';

const SSE = 'text/event-stream; charset=utf-8';
const JSON_TYPE = 'application/json';

/**
 * A provider's answer in its own format, read as the OpenAI chat-completion answer the rest of
 * the data plane handles: whole answers through the adapter's `readAnswer`, streams chunk by
 * chunk through its StreamTranslator. Only routes whose adapter has a translator pay for this.
 */
export class TranslatedResponse implements UpstreamResponse {
  readonly status: number;
  readonly contentType: string;
  readonly #res: UpstreamResponse;
  readonly #adapter: ProviderAdapter;
  readonly #endpoint: TokenEndpoint;
  readonly #stream: StreamTranslator | null;
  readonly #upstreamModel: string;
  readonly #format: string;
  /** Translated output not yet handed out; the translator's end() once the provider's stream is over. */
  #ended = false;
  #pending: string | null = null;
  readonly #native: NativeBytes | null;

  /**
   * `format`: what the client asked the answer's encoding to be (embeddings' encoding_format), else ''.
   * `native`: also keeps the provider's bytes as they came, for a client in the provider's own format.
   */
  constructor(res: UpstreamResponse, adapter: ProviderAdapter, endpoint: TokenEndpoint, upstreamModel: string, format = '',
    native: NativeBytes | null = null) {
    this.#res = res;
    this.#upstreamModel = upstreamModel;
    this.#format = format;
    this.#native = native;
    this.#adapter = adapter;
    this.#endpoint = endpoint;
    this.status = res.status;
    const streamed = res.contentType.startsWith('text/event-stream');
    this.#stream = streamed ? adapter.streamTranslator!(endpoint, upstreamModel) : null;
    this.contentType = streamed ? SSE : res.contentType.startsWith(JSON_TYPE) ? JSON_TYPE : res.contentType;
  }

  get queueMs(): number {
    return this.#res.queueMs;
  }

  async readAll(maxBytes?: number): Promise<Buffer> {
    if (this.#stream !== null) {
      const parts: Buffer[] = [];
      for (let c = await this.next(); c !== null; c = await this.next()) parts.push(c);
      return Buffer.concat(parts);
    }
    const body = await this.#res.readAll(maxBytes);
    this.#native?.add(body);
    if (this.status >= 400 || this.#adapter.readAnswer === undefined) return body;
    const out = this.#adapter.readAnswer(this.#endpoint, body, this.#res.contentType, this.#format, this.#upstreamModel).body;
    return typeof out === 'string' ? Buffer.from(out) : out;
  }

  /** The next non-empty translated chunk; the provider's chunks that translate to nothing (pings) are read past. */
  async next(): Promise<Buffer | null> {
    for (;;) {
      const ready = this.take();
      if (ready !== null || this.#ended) return ready;
      const c = await this.#res.next();
      this.#pending = c === null ? this.#finish() : this.#push(c);
    }
  }

  take(): Buffer | null {
    if (this.#stream === null) return null;
    let out = this.#pending ?? '';
    this.#pending = null;
    if (!this.#ended) {
      for (let c = this.#res.take(); c !== null; c = this.#res.take()) out += this.#push(c);
      if (this.#res.finished) out += this.#finish();
    }
    return out.length === 0 ? null : Buffer.from(out);
  }

  get finished(): boolean {
    return this.#ended && this.#pending === null;
  }

  cancel(): void {
    this.#res.cancel();
  }

  #push(c: Buffer): string {
    this.#native?.add(c);
    return this.#stream!.push(c);
  }

  #finish(): string {
    if (this.#ended) return '';
    this.#ended = true;
    return this.#stream!.end();
  }
}
