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
  /**
   * The request whose input tokens message_start estimates before the real count arrives (read
   * only when a translated stream writes it); null for none.
   */
  #estimated: { inputEstimate(): number } | null = null;
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

  /**
   * A stream's message_start is to estimate its input tokens from `body`'s translation. The
   * request's parser hands the body over here rather than capturing it in a closure of its own:
   * so captured, the decoded and translated body was promoted to the old generation under a load
   * of Messages streams (1.42–1.67 KB a stream, scavenges 42.6–46.1 ms per 6,000 streams; handed
   * over, 0.01 KB and 14.8–21.4 ms; --trace-gc-nvp, one gateway, issue 17, docs/benchmarks.md).
   * What kept the closure's scope alive was not found; a closure made here, which the stream's
   * translator holds for its life, measured the same as none (0.02 KB).
   */
  estimateFrom(body: { inputEstimate(): number }): void {
    this.#estimated = body;
  }

  stream(): ChatStreamTranslator {
    const body = this.#estimated;
    const inputEstimate = body === null ? NO_ESTIMATE : (): number => body.inputEstimate();
    return new MessagesStream({ model: this.model, stops: this.stops, inputEstimate, requestId: this.#requestId });
  }
}
