import type { NativeBytes } from '../domain/native-bytes.js';
import type { StreamWatch } from '../lib/sse-scanner.js';
import type { TokenUsage } from '../lib/usage-scan.js';
import type { ProviderAdapter, StreamTranslator, TokenEndpoint, UpstreamResponse } from '../providers/types.js';
import { TranslatedWatch, type TellingTranslator } from './translated-watch.js';

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
  readonly named: boolean;
  readonly #res: UpstreamResponse;
  readonly #adapter: ProviderAdapter;
  readonly #endpoint: TokenEndpoint;
  readonly #stream: StreamTranslator | null;
  readonly #upstreamModel: string;
  readonly #format: string;
  readonly #answerModel: string | undefined;
  /** Translated output not yet handed out; the translator's end() once the provider's stream is over. */
  #ended = false;
  #pending: Buffer | null = null;
  readonly #native: NativeBytes | null;
  usage: TokenUsage | undefined = undefined;

  /**
   * `format`: what the client asked the answer's encoding to be (embeddings' encoding_format), else ''.
   * `native`: also keeps the provider's bytes as they came, for a client in the provider's own format.
   * `answerModel`: for chat, the model the client asked for when the provider's id differs; the
   * translation names it, so the data plane need not rename the answer afterwards (which, on a
   * stream, is an edit of every chunk: ~150k instructions for the benchmark's Anthropic stream,
   * bench:instructions, issue 17).
   */
  constructor(res: UpstreamResponse, adapter: ProviderAdapter, endpoint: TokenEndpoint, upstreamModel: string, format = '',
    native: NativeBytes | null = null, answerModel?: string) {
    this.#res = res;
    this.#answerModel = endpoint === 'chat' ? answerModel : undefined;
    this.#upstreamModel = upstreamModel;
    this.#format = format;
    this.#native = native;
    this.#adapter = adapter;
    this.#endpoint = endpoint;
    this.status = res.status;
    const streamed = res.contentType.startsWith('text/event-stream');
    this.#stream = streamed ? adapter.streamTranslator!(endpoint, upstreamModel, this.#answerModel) : null;
    // An error answer is not translated (readAll), and so names nothing.
    this.named = this.#answerModel !== undefined && (streamed || (adapter.readAnswer !== undefined && res.status < 400));
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
    return this.#answer(await this.#res.readAll(maxBytes));
  }

  /**
   * The translated answer if the provider's has all arrived, as UpstreamResponse.arrived() says;
   * else null. A small answer usually has: its translation then costs no promise and no
   * microtask turn of its own (gateway-anthropic 144.3k → 141.5k instructions a request, main thread, bench:instructions).
   */
  arrived(): Buffer | null {
    if (this.#stream !== null) return null;
    const body = this.#res.arrived?.() ?? null;
    return body === null ? null : this.#answer(body);
  }

  /** The provider's whole answer, translated (an error answer as it came). */
  #answer(body: Buffer): Buffer {
    this.#native?.add(body);
    if (this.status >= 400 || this.#adapter.readAnswer === undefined) return body;
    const answer = this.#adapter.readAnswer(this.#endpoint, body, this.#res.contentType, this.#format, this.#upstreamModel, this.#answerModel);
    this.usage = answer.usage;
    const out = answer.body;
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
    let out = this.#pending;
    this.#pending = null;
    if (!this.#ended) {
      for (let c = this.#res.take(); c !== null; c = this.#res.take()) out = joined(out, this.#push(c));
      if (this.#res.finished) out = joined(out, this.#finish());
    }
    return out === null || out.length === 0 ? null : out;
  }

  get finished(): boolean {
    return this.#ended && this.#pending === null;
  }

  cancel(): void {
    this.#res.cancel();
  }

  /** The stream's watch, told by its translator where that one keeps its usage; else null (the relay scans the output). */
  watch(): StreamWatch | null {
    const t = this.#stream;
    return t !== null && t.usage !== undefined && t.done !== undefined ? new TranslatedWatch(t as TellingTranslator) : null;
  }

  #push(c: Buffer): Buffer {
    this.#native?.add(c);
    return this.#stream!.push(c);
  }

  #finish(): Buffer | null {
    if (this.#ended) return null;
    this.#ended = true;
    return this.#stream!.end();
  }
}

function joined(a: Buffer | null, b: Buffer | null): Buffer | null {
  if (a === null || a.length === 0) return b;
  return b === null || b.length === 0 ? a : Buffer.concat([a, b]);
}
