/**
 * One inbound API format's answers, written from the OpenAI chat-completion answers the data
 * plane produces: the format's half of the translation (its request half is an InboundParser).
 * One instance serves one request, so it may keep what it needs (ids, items to store).
 */
export interface ReplyFormat {
  /** A whole `chat.completion` JSON answer (status 200) → this format's JSON answer (text, or its UTF-8 bytes). */
  answer(chat: Buffer): string | Buffer;
  /** A translator for this request's chat-completion SSE stream. */
  stream(): ChatStreamTranslator;
  /**
   * The format's error event for the data plane's end-of-stream failure (`data: {"error":…}`
   * and `[DONE]`, given as written), written after a provider's own bytes that were passed
   * through untouched; '' when `last` carries no error.
   */
  failureEvent?(last: Buffer | string): string;
}

/**
 * OpenAI chat-completion SSE (cut anywhere) → this format's SSE. The data plane ends a stream
 * that failed after it started with `data: {"error":…}` and `data: [DONE]`: that becomes the
 * format's own failure event, never a clean completion.
 */
export interface ChatStreamTranslator {
  /** Chat SSE in; the bytes of this format's events it completes (empty when none yet). */
  push(chunk: Buffer | string): Buffer;
  /** The chat stream is over: what is left to write (a failure event if it never completed). */
  end(): Buffer;
}
