import type { Extensions } from '../domain/extensions.js';
import type { WrittenRequest } from '../formats/chat-request-bytes.js';
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

  constructor(written: WrittenRequest, readonly model: string, readonly stream: boolean,
    readonly maxTokens: number | null, readonly bytes: number, readonly ext: Extensions, payload: () => Record<string, unknown>) {
    this.usageAsked = stream;
    this.raw = writtenForward(written, model, stream);
    this.#payload = payload;
  }

  get payload(): Record<string, unknown> {
    return this.#decoded ??= this.#payload();
  }
}

/**
 * A written chat request as the data plane forwards a client's bytes: its model value, written
 * plain, swapped for a route's; usage already asked for on a stream; no extension members to cut.
 */
export function writtenForward(w: WrittenRequest, model: string, stream: boolean): ForwardBody {
  return new ForwardBody(w.bytes, {
    modelStart: w.modelStart, modelEnd: w.modelEnd, modelPlain: true, model, streamOptions: null, stream, usageAsked: stream, open: 0, cuts: [],
  }, w.lease);
}
