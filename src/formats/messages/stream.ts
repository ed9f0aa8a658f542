import { jsonNumber, writeJson } from '../../lib/json-write.js';
import { ByteSink, byteText, decodeText, jsonBytes } from '../../lib/byte-text.js';
import { isDataLine, isDone, literalValue } from '../../lib/json-literal.js';
import { LineReader } from '../../lib/line-reader.js';
import { ChatDeltas } from '../chat-deltas.js';
import { DeltaEvents } from '../../lib/delta-events.js';
import { errors } from '../../errors/catalog.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ChatStreamTranslator } from '../reply-format.js';
import { messageId, messagesUsage, stopReason, toolUseId } from './answer.js';
import { anthropicErrorEvent } from './error.js';

type Obj = Record<string, unknown>;

export interface MessagesStreamOptions {
  model: string;
  stops: readonly string[];
  /**
   * Input tokens for message_start, before the real count arrives with the chat stream's last
   * chunk: asked for only when message_start is written (estimating reads the whole translated
   * body, which a stream passed through from Anthropic never needs).
   */
  inputEstimate: () => number;
  requestId: string | null;
}

/**
 * Chat-completion SSE → Anthropic's event sequence: message_start, then per content block
 * content_block_start / content_block_delta (text_delta, input_json_delta) / content_block_stop,
 * then message_delta (stop_reason, usage) and message_stop once the chat stream said [DONE].
 * Usage reaches a chat stream only in its last chunk, so message_start carries an estimate of
 * the input tokens and message_delta the real counts, which the SDKs take over message_start's.
 * A stream that broke (the data plane's `data: {"error":…}`) or ended without [DONE] ends with
 * Anthropic's `event: error` and no message_stop, so no client takes it for a whole answer.
 *
 * The chat stream is read and the events written as byte text (lib/byte-text.ts): a plain text
 * delta (ChatDeltas) is matched in place and its string copied as the bytes it came as; any
 * other chunk is decoded and parsed.
 */
export class MessagesStream implements ChatStreamTranslator {
  readonly #o: MessagesStreamOptions;
  readonly #lines = new LineReader();
  readonly #deltas = new ChatDeltas();
  /** Lines after [DONE] (or a failure) are not read. */
  readonly #out = new ByteSink();
  readonly #onLine = (text: string, start: number, end: number): void => {
    if (this.#done) return;
    const s = this.#line(text, start, end);
    if (s.length > 0) this.#out.parts.push(s);
  };
  /** The open text block's deltas in the frame, a run of lines at a time (lib/delta-events.ts). */
  readonly #events = new DeltaEvents(0);
  /** The block #events has its templates for. */
  #eventsFor = -1;
  readonly #run = (lines: Buffer, at: number): number => {
    if (this.#done || this.#open !== 'text') return at;
    if (this.#eventsFor !== this.#block) {
      if (!this.#events.template(this.#deltas, '', TEXT_EVENT + this.#block + TEXT_MID, TEXT_END)) return at;
      this.#eventsFor = this.#block;
    }
    return this.#events.run(lines, at, this.#out, 0);
  };
  #started = false;
  #done = false;
  #error: GatewayError | null = null;
  /** The last content block's index, and the kind of the open one. */
  #block = -1;
  #open: 'text' | 'tool' | null = null;
  /** Chat tool_call index → its content block index. */
  readonly #tools = new Map<number, number>();
  #finish: unknown = null;
  #matched: unknown = null;
  #usage: Obj | null = null;

  constructor(o: MessagesStreamOptions) {
    this.#o = o;
  }

  push(chunk: Buffer | string): Buffer {
    if (this.#done) return EMPTY;
    this.#lines.pushRuns(chunk, this.#onLine, this.#run);
    return this.#out.take();
  }

  end(): Buffer {
    if (this.#done) return EMPTY;
    this.#done = true;
    this.#out.parts.push(this.#fail(this.#error ?? errors.streamInterrupted('the stream ended before the answer was complete')));
    return this.#out.take();
  }

  /** The line text[start, end) (byte text), translated to byte text. */
  #line(text: string, start: number, end: number): string {
    if (!isDataLine(text, start)) return '';
    const at = start + (text.charCodeAt(start + 5) === 32 ? 6 : 5);
    const d = this.#deltas;
    if (d.match(text, at, end)) {
      this.#emit(this.#start());
      if (d.litTo - d.litFrom > 2) this.#text(text.slice(d.litFrom, d.litTo));
      if (d.finFrom >= 0) {
        this.#finish = decodeText(literalValue(text, d.finFrom, d.finTo));
        this.#matched = undefined;
      }
      return '';
    }
    const done = isDone(text, at, end);
    const usage = done ? null : d.usage(text, at, end);
    if (usage !== null) {
      this.#emit(this.#start());
      this.#usage = usage;
      return '';
    }
    const data = done ? '[DONE]' : this.#lines.utf8(at, end).trimEnd();
    if (data === '[DONE]') {
      this.#done = true;
      return this.#error !== null ? this.#fail(this.#error) : this.#complete();
    }
    let ev: Obj;
    try {
      ev = JSON.parse(data) as Obj;
    } catch {
      return '';
    }
    if (ev.error !== undefined && ev.choices === undefined) {
      const e = ev.error as Obj;
      // The gateway's own overload (503) is Anthropic's overloaded_error; anything else an api_error.
      this.#error = new GatewayError(e.code === 'overloaded' ? 503 : 502, String(e.type ?? 'upstream_error'), String(e.code ?? 'stream_interrupted'), String(e.message ?? 'stream failed'));
      return '';
    }
    this.#emit(this.#start());
    if (ev.usage !== undefined && ev.usage !== null) this.#usage = ev.usage as Obj;
    const choice = (ev.choices as Obj[] | undefined)?.[0];
    if (choice === undefined) return '';
    const delta = (choice.delta ?? {}) as Obj;
    if (typeof delta.content === 'string' && delta.content.length > 0) this.#text(jsonBytes(delta.content));
    if (Array.isArray(delta.tool_calls)) for (const c of delta.tool_calls as Obj[]) this.#emit(this.#toolDelta(c));
    if (choice.finish_reason !== undefined && choice.finish_reason !== null) {
      this.#finish = choice.finish_reason;
      this.#matched = choice.stop_reason;
    }
    return '';
  }

  #emit(s: string): void {
    if (s.length > 0) this.#out.parts.push(s);
  }

  /**
   * A text delta, its JSON literal given as byte text. Written around the text, the same bytes as
   * event()'s: a stream's bulk, and an object serialised per delta cost 20x more.
   */
  #text(json: string): void {
    if (this.#open !== 'text') {
      this.#emit(this.#closeBlock());
      this.#open = 'text';
      this.#out.parts.push(TEXT_START, String(++this.#block), TEXT_START_END);
    }
    this.#out.parts.push(TEXT_EVENT, String(this.#block), TEXT_MID, json, TEXT_END);
  }

  #toolDelta(c: Obj): string {
    const n = typeof c.index === 'number' ? c.index : 0;
    const fn = (c.function ?? {}) as Obj;
    let out = '';
    let index = this.#tools.get(n);
    if (index === undefined) {
      out += this.#openBlock('tool', { type: 'tool_use', id: toolUseId(c.id), name: fn.name ?? '', input: {} });
      index = this.#block;
      this.#tools.set(n, index);
    }
    // Deltas of an earlier call, interleaved after a later one started, go to that call's own
    // block by index, which is how the SDKs assemble them.
    if (typeof fn.arguments === 'string' && fn.arguments.length > 0) {
      out += event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: fn.arguments } });
    }
    return out;
  }

  #openBlock(kind: 'text' | 'tool', block: Obj): string {
    const out = this.#closeBlock();
    this.#block++;
    this.#open = kind;
    return out + event('content_block_start', { type: 'content_block_start', index: this.#block, content_block: block });
  }

  // The events every stream has are written as templates, the same bytes as event()'s: as
  // objects serialised and made byte text they were 45k of the bench's 348k instructions a
  // stream (gateway-messages-stream, bench:instructions, issue 17).
  #closeBlock(): string {
    if (this.#open === null) return '';
    this.#open = null;
    return `event: content_block_stop\ndata: {"type":"content_block_stop","index":${this.#block}}\n\n`;
  }

  #start(): string {
    if (this.#started) return '';
    this.#started = true;
    const o = this.#o;
    return `event: message_start\ndata: {"type":"message_start","message":{"id":"${messageId()}","type":"message","role":"assistant",` +
      `"model":${jsonBytes(o.model)},"content":[],"stop_reason":null,"stop_sequence":null,` +
      `"usage":{"input_tokens":${jsonNumber(o.inputEstimate())},"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}}\n\n`;
  }

  #complete(): string {
    let out = this.#start() + this.#closeBlock();
    const stop = stopReason(this.#finish, this.#matched, this.#o.stops);
    if (stop.stop_reason === 'end_turn' && this.#tools.size > 0) stop.stop_reason = 'tool_use';
    const u = messagesUsage(this.#usage);
    out += `event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":${jsonBytes(stop.stop_reason)},` +
      `"stop_sequence":${stop.stop_sequence === null ? 'null' : jsonBytes(stop.stop_sequence)}},` +
      `"usage":{"input_tokens":${u.input_tokens},"output_tokens":${u.output_tokens},` +
      `"cache_read_input_tokens":${u.cache_read_input_tokens},"cache_creation_input_tokens":${u.cache_creation_input_tokens}}}\n\n`;
    return out + MESSAGE_STOP;
  }

  #fail(e: GatewayError): string {
    return byteText(anthropicErrorEvent(e, this.#o.requestId));
  }
}

const EMPTY = Buffer.alloc(0);
const TEXT_START = 'event: content_block_start\ndata: {"type":"content_block_start","index":';
const TEXT_START_END = ',"content_block":{"type":"text","text":""}}\n\n';
const MESSAGE_STOP = 'event: message_stop\ndata: {"type":"message_stop"}\n\n';
const TEXT_EVENT = 'event: content_block_delta\ndata: {"type":"content_block_delta","index":';
const TEXT_MID = ',"delta":{"type":"text_delta","text":';
const TEXT_END = '}}\n\n';

/** An event as byte text. */
function event(type: string, data: Obj): string {
  return `event: ${type}\ndata: ${byteText(writeJson(data))}\n\n`;
}
