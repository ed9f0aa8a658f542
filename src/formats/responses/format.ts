import { decodeText, textBytes } from '../../lib/byte-text.js';
import { chatTextAnswer, type ChatTextAnswer } from '../chat-answer-in-place.js';
import type { ChatStreamTranslator, ReplyFormat } from '../reply-format.js';
import {
  chatToResponse, itemId, messageItem, responseObject, responseUsage, statusOf, type ResponseContext, type ResponseStatus, type ResponseUsage,
} from './answer.js';
import { messageItemJson, outputJson, ResponseJson } from './response-json.js';
import { ResponsesStream } from './stream.js';

type OnComplete = (response: Record<string, unknown>) => void;

/**
 * The Responses API's half of one request's answers. It exists before the request is parsed
 * (an error may come first, in the shared envelope); `begin` gives it the request's context.
 * `onComplete` receives each finished response object (whole or streamed), so that it can be
 * stored; a failed one never reaches it. It is null when the request is not to be stored.
 */
export class ResponsesFormat implements ReplyFormat {
  #ctx: ResponseContext | null = null;
  #onComplete: OnComplete | null = null;

  begin(ctx: ResponseContext, onComplete: OnComplete | null): void {
    this.#ctx = ctx;
    this.#onComplete = onComplete;
  }

  /** The response written as JSON around pieces made once (response-json.ts), not by serialising its object. */
  answer(chat: Buffer): Buffer {
    const text = chatTextAnswer(chat);
    if (text !== null) return this.#textAnswer(text);
    let parsed: unknown;
    try {
      parsed = JSON.parse(chat.toString('utf8'));
    } catch {
      parsed = null;
    }
    // The data plane has already billed this answer; a throw here would lose its ledger row.
    const json = new ResponseJson(this.#ctx!);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return textBytes(json.write('failed', '[]', null, null,
        { code: 'server_error', message: "The provider's answer was not a chat completion the gateway could read" }));
    }
    const response = chatToResponse(this.#ctx!, parsed as Record<string, unknown>);
    this.#onComplete?.(response);
    return textBytes(json.write(response.status as ResponseStatus, outputJson(response.output as Record<string, unknown>[]),
      response.usage as ResponseUsage | null, response.incomplete_details as { reason: string } | null));
  }

  /** A chat answer of text read in place (chat-answer-in-place.ts): chatToResponse's response, its text's literal copied. */
  #textAnswer(t: ChatTextAnswer): Buffer {
    const ctx = this.#ctx!;
    const { status, incomplete } = statusOf(t.finish);
    const id = itemId('msg');
    const itemStatus = status === 'completed' ? 'completed' : 'incomplete';
    const usage = responseUsage(t.usage);
    if (this.#onComplete !== null) {
      const text = JSON.parse(decodeText(t.content)) as string;
      this.#onComplete(responseObject(ctx, status, [messageItem(id, text, itemStatus)], usage, incomplete));
    }
    return textBytes(new ResponseJson(ctx).write(status, `[${messageItemJson(id, t.content, itemStatus)}]`, usage, incomplete));
  }

  stream(): ChatStreamTranslator {
    return new ResponsesStream(this.#ctx!, this.#onComplete);
  }
}
