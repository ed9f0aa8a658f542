import type { Extensions } from '../domain/extensions.js';
import { ForwardBody } from './forward-body.js';
import type { InferenceBody } from './inference-body.js';

/**
 * A translated request the gateway wrote as chat-completions bytes (formats/responses/
 * request-bytes.ts): an OpenAI-compatible provider is sent them as a client's own bytes are
 * (ForwardBody: the model id swapped in place), and `payload`, for everything else that reads the
 * body (another provider's translation, a guardrail, an estimate), is the object translation's,
 * made on first use.
 */
export class WrittenBody implements InferenceBody {
  readonly raw: ForwardBody;
  /** A written stream always asks for usage (the translation does), so the data plane never adds it. */
  readonly usageAsked: boolean;
  readonly #payload: () => Record<string, unknown>;
  #decoded: Record<string, unknown> | null = null;

  constructor(written: Buffer, modelStart: number, modelEnd: number, readonly model: string, readonly stream: boolean,
    readonly maxTokens: number | null, readonly bytes: number, readonly ext: Extensions, payload: () => Record<string, unknown>) {
    this.usageAsked = stream;
    this.raw = new ForwardBody(written, {
      modelStart, modelEnd, modelPlain: true, model, streamOptions: null, stream, usageAsked: stream, open: 0, cuts: [],
    });
    this.#payload = payload;
  }

  get payload(): Record<string, unknown> {
    return this.#decoded ??= this.#payload();
  }
}
