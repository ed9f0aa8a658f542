import type { ChatStreamTranslator, ReplyFormat } from '../reply-format.js';
import { chatToResponse, responseObject, type ResponseContext } from './answer.js';
import { ResponsesStream } from './stream.js';

type OnComplete = (response: Record<string, unknown>) => void;

/**
 * The Responses API's half of one request's answers. It exists before the request is parsed
 * (an error may come first, in the shared envelope); `begin` gives it the request's context.
 * `onComplete` receives each finished response object (whole or streamed), so that it can be
 * stored; a failed one never reaches it.
 */
export class ResponsesFormat implements ReplyFormat {
  #ctx: ResponseContext | null = null;
  #onComplete: OnComplete = () => {};

  begin(ctx: ResponseContext, onComplete: OnComplete): void {
    this.#ctx = ctx;
    this.#onComplete = onComplete;
  }

  answer(chat: Buffer): string {
    let parsed: unknown;
    try {
      parsed = JSON.parse(chat.toString('utf8'));
    } catch {
      parsed = null;
    }
    // The data plane has already billed this answer; a throw here would lose its ledger row.
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return JSON.stringify(responseObject(this.#ctx!, 'failed', [], null, null,
        { code: 'server_error', message: "The provider's answer was not a chat completion the gateway could read" }));
    }
    const response = chatToResponse(this.#ctx!, parsed as Record<string, unknown>);
    this.#onComplete(response);
    return JSON.stringify(response);
  }

  stream(): ChatStreamTranslator {
    return new ResponsesStream(this.#ctx!, this.#onComplete);
  }
}
