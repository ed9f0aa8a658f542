import { writeJson } from '../../lib/json-write.js';
import type { ChatStreamTranslator, ReplyFormat } from '../reply-format.js';
import { chatTextAnswer } from '../chat-answer-in-place.js';
import { chatToMessage, textMessageJson } from './answer.js';
import { MessagesStream } from './stream.js';

const NO_ESTIMATE = (): number => 0;

/**
 * The Messages API's half of a request's answers. The request's parser fills in what the
 * answers need (the model asked for, its stop sequences, the input estimate) once the body is
 * read; an error before that (a bad body) needs none of it.
 */
export class MessagesReply implements ReplyFormat {
  model = '';
  stops: readonly string[] = [];
  /** The input tokens message_start says before the real count arrives; called only when a translated stream writes it. */
  inputEstimate: () => number = NO_ESTIMATE;
  readonly #requestId: string;

  constructor(requestId: string) {
    this.#requestId = requestId;
  }

  answer(chat: Buffer): string | Buffer {
    const text = chatTextAnswer(chat);
    if (text !== null) return textMessageJson(text, this.model, this.stops);
    return writeJson(chatToMessage(JSON.parse(chat.toString('utf8')), this.model, this.stops));
  }

  /** After an Anthropic provider's own bytes: Anthropic's error event, if the data plane ended the stream as failed. */
  failureEvent(last: Buffer | string): string {
    const text = typeof last === 'string' ? last : last.toString('utf8');
    if (!text.includes('"error"')) return '';
    const s = this.stream();
    return Buffer.concat([s.push(text), s.end()]).toString('utf8');
  }

  stream(): ChatStreamTranslator {
    return new MessagesStream({ model: this.model, stops: this.stops, inputEstimate: this.inputEstimate, requestId: this.#requestId });
  }
}
