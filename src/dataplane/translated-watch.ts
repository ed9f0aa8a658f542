import { generatedTextBytes } from '../lib/json-text.js';
import { DONE_NOT_HERE, type StreamWatch } from '../lib/sse-scanner.js';
import type { TokenUsage } from '../lib/usage-scan.js';
import type { StreamTranslator } from '../providers/types.js';

const NL = 0x0a;
const DONE = 'data: [DONE]';

/** A translator that says what it has written (AnthropicStreamTranslator). */
export type TellingTranslator = StreamTranslator & { readonly usage: TokenUsage | null; readonly done: boolean };

/**
 * The relay's watch over a translated stream: the usage and the end are what the translator
 * says it wrote, read after each chunk it translated, so its output is not searched for them.
 * The generated text is still counted, as SseScanner counts it, while no usage has been written
 * (for an estimate if the stream is cut). The translator writes whole events, so no line is
 * carried over between chunks. SseScanner over the benchmark's translated stream was ~14,000
 * instructions of its main thread (callgrind, gateway-anthropic-stream, issue 17).
 */
export class TranslatedWatch implements StreamWatch {
  usage: TokenUsage | null = null;
  done = false;
  atEventBoundary = true;
  textBytes = 0;
  doneAt = DONE_NOT_HERE;
  readonly doneTail = 0;
  readonly #t: TellingTranslator;

  /** `t`: the translator whose output is pushed here, each chunk once it has written it. */
  constructor(t: TellingTranslator) {
    this.#t = t;
  }

  push(chunk: Buffer): void {
    this.doneAt = DONE_NOT_HERE;
    if (chunk.length === 0) return;
    const n = chunk.length;
    this.atEventBoundary = n >= 2 ? chunk[n - 1] === NL && chunk[n - 2] === NL : chunk[0] === NL;
    const t = this.#t;
    if (this.usage === null) this.usage = t.usage;
    if (this.usage === null) this.textBytes += generatedTextBytes(chunk.toString('latin1'));
    if (!this.done && t.done) {
      this.done = true;
      // Where an estimate would go: only a stream that ends without usage needs it.
      if (this.usage === null) this.doneAt = chunk.lastIndexOf(DONE);
    }
  }
}
