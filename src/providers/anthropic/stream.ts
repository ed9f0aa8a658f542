import { ByteSink, byteText, jsonBytes } from '../../lib/byte-text.js';
import { writeJson } from '../../lib/json-write.js';
import { CANONICAL_LITERAL, canonicalStringEnd, execLiterals, hasAt, isDataLine, literalValue, onlySpaceFrom, smallIntEnd } from '../../lib/json-literal.js';
import { LineReader } from '../../lib/line-reader.js';
import { DeltaEvents, EMPTY_TOO, type DeltaFrame } from '../../lib/delta-events.js';
import type { TokenUsage } from '../../lib/usage-scan.js';
import type { StreamTranslator } from '../types.js';
import { finishReason } from './stop-reason.js';
import { canonicalUsageJson, emptyCounts, mergeUsage, mergeUsageText, tokenUsage, type AnthropicUsage } from './usage.js';

const DONE = 'data: [DONE]\n\n';
// The events a stream is mostly made of, as Anthropic writes them (compact, in this key order).
const BLOCK_DELTA = '{"type":"content_block_delta","index":';
const TEXT_DELTA = ',"delta":{"type":"text_delta","text":';
const JSON_DELTA = ',"delta":{"type":"input_json_delta","partial_json":';
const BLOCK_START = '{"type":"content_block_start","index":';
const EMPTY_TEXT_BLOCK = ',"content_block":{"type":"text","text":""}}';
const BLOCK_STOP = '{"type":"content_block_stop","index":';
const MESSAGE_DELTA = '{"type":"message_delta","delta":{"stop_reason":';
const OUTPUT_TOKENS = ',"stop_sequence":null},"usage":{"output_tokens":';
const MESSAGE_STOP = '{"type":"message_stop"}';
const MESSAGE_START = '{"type":"message_start","message":{';
/**
 * message_start's members after MESSAGE_START as Anthropic writes them, in its order and
 * compact, each literal as JSON.stringify writes it; captured: the id's and the model's
 * literals, and the usage object (up to the line's last `}}`), which is parsed.
 */
const START_MEMBERS = new RegExp(String.raw`"id":(${CANONICAL_LITERAL}),"type":${CANONICAL_LITERAL},"role":${CANONICAL_LITERAL},` +
  String.raw`"model":(${CANONICAL_LITERAL}),"content":\[\],"stop_reason":(?:${CANONICAL_LITERAL}|null),` +
  String.raw`"stop_sequence":(?:${CANONICAL_LITERAL}|null),"usage":(\{[^\r\n]*\})\}\}`, 'y');
const PING = '{"type":"ping"}';
/** What follows a chunk's delta object: the rest of its choice, and of the chunk. */
const CHUNK_END = ',"logprobs":null,"finish_reason":null}]}\n\n';
/** What follows a text delta's string. */
const TEXT_END = `}${CHUNK_END}`;
const EMPTY = Buffer.alloc(0);

interface StreamEvent {
  type?: unknown;
  index?: unknown;
  message?: { id?: unknown; model?: unknown; usage?: AnthropicUsage };
  content_block?: { type?: unknown; id?: unknown; name?: unknown; text?: unknown };
  delta?: { type?: unknown; text?: unknown; partial_json?: unknown; stop_reason?: unknown };
  usage?: AnthropicUsage;
}

/**
 * Anthropic's Messages SSE → OpenAI `chat.completion.chunk` SSE. Only `data:` lines are read
 * (each names its own type). Text deltas become `content` deltas, a `tool_use` block becomes a
 * tool call (id and name first, then its `input_json_delta`s as `arguments`); thinking is left
 * out; `message_delta` gives the finish reason; `message_stop` the usage chunk and `[DONE]`.
 * An `error` event ends the translation with no `[DONE]`, so the data plane closes the stream
 * as interrupted instead of passing it off as complete.
 *
 * The events are read as byte text (lib/byte-text.ts) and the chunks written as byte text: the
 * common events (#fast) are matched in place and a delta's string is copied as the bytes it
 * came as; the others are decoded and parsed. A text block's deltas after its first are matched
 * and written in one WebAssembly call over their bytes (#run, lib/delta-events.ts).
 */
export class AnthropicStreamTranslator implements StreamTranslator {
  /** What the usage chunk written at message_stop carries, as the usage scan would read it (dataplane/translated-watch.ts). */
  usage: TokenUsage | null = null;
  done = false;
  readonly #counts = emptyCounts();
  readonly #lines = new LineReader();
  readonly #out = new ByteSink();
  /** Lines after message_stop (or an error event) are not read. */
  readonly #onLine = (text: string, start: number, end: number): void => {
    if (this.#over) return;
    const s = this.#line(text, start, end);
    if (s.length > 0) this.#out.parts.push(s);
  };
  /** The text block's deltas in a run of lines at a time, written in WebAssembly (lib/delta-events.ts). */
  readonly #events = new DeltaEvents(EMPTY_TOO);
  /** The frame of the text block whose delta #fastDelta read last: the run matches that block's. */
  #frame: DeltaFrame | null = null;
  /** The frame and the chunk prefix #events has its templates for. */
  #eventsFrame: DeltaFrame | null = null;
  #eventsPrefix = '';
  readonly #run = (lines: Buffer, at: number): number => {
    // Only data lines are read (#line): the others (`event:`) are passed over here, which spares
    // making each byte text of its own, and the run starts at the data line after them.
    let from = at;
    while (lines[from] !== 0x64 /* d */) {
      const nl = lines.indexOf(0x0a, from);
      if (nl < 0) return lines.length;
      from = nl + 1;
    }
    const frame = this.#frame;
    if (frame === null || this.#over || !this.#opened) return from;
    const prefix = this.#textPrefix ??= `${this.#deltaPrefix()}{"content":`;
    const e = this.#events;
    if (this.#eventsFrame !== frame || this.#eventsPrefix !== prefix) {
      e.template(frame, prefix, '', TEXT_END);
      this.#eventsFrame = frame;
      this.#eventsPrefix = prefix;
    }
    return e.run(lines, from, this.#out, 0);
  };
  /** The message's id and model as the JSON literals (byte text) every chunk names; the model written from #model when none is set. */
  #idJson = '"msg"';
  #modelJson: string | null = null;
  #model: string;
  readonly #named: boolean;
  #created: number;
  /** Anthropic content-block index → OpenAI tool_calls index. */
  readonly #tools = new Map<number, number>();
  #over = false;
  #opened = false;
  /** `data: {"id":…,"model":…,"choices":[{"index":0,"delta":{"content":` for this stream, made once its id and model are known. */
  #textPrefix: string | null = null;
  #prefix: string | null = null;
  #open: string | null = null;

  /** `answerModel`: the model every chunk names, in place of the one message_start gives. */
  constructor(upstreamModel: string, now: number, answerModel?: string) {
    this.#model = answerModel ?? upstreamModel;
    this.#named = answerModel !== undefined;
    this.#created = Math.floor(now / 1000);
  }

  push(chunk: Buffer): Buffer {
    if (this.#over) return EMPTY;
    this.#lines.pushRuns(chunk, this.#onLine, this.#run);
    return this.#out.take();
  }

  end(): Buffer {
    const rest = this.#lines.restBytes();
    if (rest !== null) this.#onLine(rest, 0, rest.length);
    return this.#out.take();
  }

  /** The line text[start, end) (byte text), translated to byte text. */
  #line(text: string, start: number, end: number): string {
    if (!isDataLine(text, start)) return '';
    const fast = this.#fast(text, start + (text.charCodeAt(start + 5) === 0x20 ? 6 : 5), end);
    if (fast !== null) return fast;
    let e: StreamEvent;
    try {
      e = JSON.parse(this.#lines.utf8(start + 5, end));
    } catch {
      return '';
    }
    switch (e?.type) {
      case 'message_start':
        return this.#start(e);
      case 'content_block_start':
        return this.#blockStart(e);
      case 'content_block_delta':
        return this.#delta(e);
      case 'message_delta':
        mergeUsage(this.#counts, e.usage);
        return e.delta?.stop_reason == null ? '' : this.#finish(e.delta.stop_reason);
      case 'message_stop':
        return this.#stop();
      case 'error':
        this.#over = true;
        return '';
      default:
        return ''; // ping, content_block_stop, and events newer than this translator
    }
  }

  /**
   * The common events read in place, without a decode and a parse: a text or tool-input delta
   * (its string copied as it came: its bytes are what JSON.stringify writes for it), a text
   * block's start and any block's stop, the final message_delta and message_stop, a ping.
   * Null for any other event, or anything unusual in these (other keys or key order, space,
   * escapes JSON.stringify writes otherwise), which #line then parses. Parsing every event was
   * most of a translated stream's cost (bench:instructions, gateway-anthropic-stream, issue 17).
   */
  #fast(line: string, at: number, n: number): string | null {
    // The event type's first letter, and for content blocks the letter after `content_block_`.
    const t = line.charCodeAt(at + 9);
    if (t === 0x63 /* c */) {
      const kind = line.charCodeAt(at + 23);
      if (kind === 0x64 /* d */ && hasAt(line, at, BLOCK_DELTA)) return this.#fastDelta(line, at, n);
      if (kind === 0x73 /* s */ && hasAt(line, at, BLOCK_STOP)) {
        const i = smallIntEnd(line, at + BLOCK_STOP.length);
        return i >= 0 && line.charCodeAt(i) === 0x7d && onlySpaceFrom(line, i + 1, n) ? '' : null;
      }
      if (kind === 0x73 && hasAt(line, at, BLOCK_START)) {
        const i = smallIntEnd(line, at + BLOCK_START.length);
        return i >= 0 && hasAt(line, i, EMPTY_TEXT_BLOCK) && onlySpaceFrom(line, i + EMPTY_TEXT_BLOCK.length, n) ? '' : null;
      }
      return null;
    }
    if (t === 0x6d /* m */) {
      if (hasAt(line, at, MESSAGE_DELTA)) return this.#fastMessageDelta(line, at + MESSAGE_DELTA.length, n);
      if (hasAt(line, at, MESSAGE_START)) return this.#fastStart(line, at + MESSAGE_START.length, n);
      return hasAt(line, at, MESSAGE_STOP) && onlySpaceFrom(line, at + MESSAGE_STOP.length, n) ? this.#stop() : null;
    }
    return t === 0x70 /* p */ && hasAt(line, at, PING) && onlySpaceFrom(line, at + PING.length, n) ? '' : null;
  }

  /** A content_block_delta whose `index` is at `at + BLOCK_DELTA.length`. */
  #fastDelta(line: string, at: number, n: number): string | null {
    const i = smallIntEnd(line, at + BLOCK_DELTA.length);
    if (i < 0) return null;
    if (hasAt(line, i, TEXT_DELTA)) {
      const from = i + TEXT_DELTA.length;
      const to = canonicalStringEnd(line, from, n);
      if (to < 0 || !closesTwice(line, to) || !onlySpaceFrom(line, to + 2, n)) return null;
      // The block's next deltas are read by the run (#run) in this frame.
      const open = line.slice(at, from);
      if (this.#frame?.open !== open) this.#frame = { open, close: '}}', obfuscated: false };
      if (!this.#opened) return this.#first(`{"content":${line.slice(from, to)}}`);
      // The stream's bulk: three pieces, joined once with the rest (ByteSink).
      this.#out.parts.push(this.#textPrefix ??= `${this.#deltaPrefix()}{"content":`, line.slice(from, to), TEXT_END);
      return '';
    }
    if (hasAt(line, i, JSON_DELTA)) {
      const from = i + JSON_DELTA.length;
      const to = canonicalStringEnd(line, from, n);
      if (to < 0 || !closesTwice(line, to) || !onlySpaceFrom(line, to + 2, n)) return null;
      const k = this.#tools.get(Number(line.slice(at + BLOCK_DELTA.length, i)));
      if (k === undefined || to - from === 2) return '';
      const delta = `{"tool_calls":[{"index":${k},"function":{"arguments":${line.slice(from, to)}}}]}`;
      return this.#opened ? `${this.#deltaPrefix()}${delta}${CHUNK_END}` : this.#first(delta);
    }
    return null;
  }

  /** A message_delta with a stop reason and the output tokens alone, its stop_reason at `at`. */
  #fastMessageDelta(line: string, at: number, n: number): string | null {
    const to = canonicalStringEnd(line, at, n);
    if (to < 0 || !hasAt(line, to, OUTPUT_TOKENS)) return null;
    const from = to + OUTPUT_TOKENS.length;
    const end = smallIntEnd(line, from);
    if (end < 0 || !closesTwice(line, end) || !onlySpaceFrom(line, end + 2, n)) return null;
    this.#counts.output = Number(line.slice(from, end));
    // A reason that is not ASCII is no reason finishReason knows, read as bytes or as characters.
    return this.#finish(literalValue(line, at, to));
  }

  /**
   * A message_start whose message members (from `at`, past its brace) are as Anthropic writes
   * them (START_MEMBERS): its id, type, role and model, `content` empty, the stop members, and
   * `usage` last, which alone is parsed. The line is then those members and the usage object
   * between fixed text, each literal JSON, so it is JSON exactly when the usage is, and means
   * what a parse of all of it would. Null for anything else, or a usage that does not parse,
   * which #line then parses whole. Its parse was ~15,600 instructions of a translated stream's
   * main thread (callgrind, gateway-anthropic-stream, issue 17). Read with its members in any
   * order, each key compared through a slice, it still cost 15,500 with its usage's parse; one
   * match of Anthropic's order costs 8,200 (gateway-anthropic-stream 209.3k → 202.4k).
   */
  #fastStart(line: string, at: number, n: number): string | null {
    START_MEMBERS.lastIndex = at;
    const m = execLiterals(START_MEMBERS, line);
    if (m === null || START_MEMBERS.lastIndex > n || !onlySpaceFrom(line, START_MEMBERS.lastIndex, n)) return null;
    if (!mergeUsageText(this.#counts, m[3])) return null;
    this.#started(m[1], m[2]);
    return '';
  }

  #start(e: StreamEvent): string {
    const m = e.message;
    this.#started(typeof m?.id === 'string' ? jsonBytes(m.id) : null, typeof m?.model === 'string' ? jsonBytes(m.model) : null);
    mergeUsage(this.#counts, m?.usage);
    return '';
  }

  /** message_start's id and model (JSON literals, byte text; null where it gave none): the chunks are written anew around them. */
  #started(id: string | null, model: string | null): void {
    if (id !== null) this.#idJson = id;
    if (model !== null && !this.#named) this.#modelJson = model;
    this.#textPrefix = null;
    this.#prefix = null;
    this.#open = null;
  }

  #blockStart(e: StreamEvent): string {
    const b = e.content_block;
    if (b?.type === 'tool_use' && typeof e.index === 'number') {
      const k = this.#tools.size;
      this.#tools.set(e.index, k);
      return this.#chunk({ tool_calls: [{ index: k, id: b.id, type: 'function', function: { name: b.name, arguments: '' } }] });
    }
    // A text block may start with text of its own (Anthropic sends it empty today).
    return b?.type === 'text' && typeof b.text === 'string' && b.text !== '' ? this.#chunk({ content: b.text }) : '';
  }

  #delta(e: StreamEvent): string {
    const d = e.delta;
    if (d?.type === 'text_delta' && typeof d.text === 'string') return this.#chunk({ content: d.text });
    if (d?.type === 'input_json_delta' && typeof d.partial_json === 'string' && d.partial_json !== '') {
      const k = this.#tools.get(e.index as number);
      return k === undefined ? '' : this.#chunk({ tool_calls: [{ index: k, function: { arguments: d.partial_json } }] });
    }
    return ''; // thinking_delta, signature_delta, citations_delta
  }

  /** The chunk with the finish reason, for a stop reason. */
  #finish(stopReason: unknown): string {
    const delta = `{},"logprobs":null,"finish_reason":${writeJson(finishReason(stopReason))}}]}\n\n`;
    return this.#opened ? `${this.#deltaPrefix()}${delta}` : `${this.#roleChunk()}${this.#deltaPrefix()}${delta}`;
  }

  /** message_stop: the usage chunk and [DONE]. */
  #stop(): string {
    this.#over = true;
    this.usage = tokenUsage(this.#counts);
    this.done = true;
    return `${this.#headOpen()},"choices":[],"usage":${canonicalUsageJson(this.#counts)}}\n\n${DONE}`;
  }

  /**
   * `data: {"id":…,"object":"chat.completion.chunk","created":…,"model":…`: every chunk of this
   * stream begins so (chunks are written around it: a JSON.stringify of a spread chunk object
   * cost ~15,000 instructions, callgrind, issue 17).
   */
  #headOpen(): string {
    return this.#open ??= `data: {"id":${this.#idJson},"object":"chat.completion.chunk","created":${this.#created},` +
      `"model":${this.#modelJson ??= jsonBytes(this.#model)}`;
  }

  /** `data: {"id":…,"object":…,"created":…,"model":…,"choices":[{"index":0,"delta":`, as every chunk with a choice begins. */
  #deltaPrefix(): string {
    return this.#prefix ??= `${this.#headOpen()},"choices":[{"index":0,"delta":`;
  }

  /**
   * The role chunk OpenAI opens a stream with goes out just before the first real chunk, not at
   * `message_start`: a stream that fails before saying anything (an `overloaded_error` event
   * right after `message_start`) then translates to nothing, and the data plane tries the next
   * route instead of starting an answer it cannot finish.
   */
  #roleChunk(): string {
    this.#opened = true;
    return `${this.#deltaPrefix()}{"role":"assistant","content":""}${CHUNK_END}`;
  }

  /** The first chunk with a delta (byte text), after the role chunk. */
  #first(delta: string): string {
    return `${this.#roleChunk()}${this.#deltaPrefix()}${delta}${CHUNK_END}`;
  }

  /** A chunk with `delta` (decoded values), written as the fast paths write theirs. */
  #chunk(delta: Record<string, unknown>): string {
    const json = byteText(writeJson(delta));
    return this.#opened ? `${this.#deltaPrefix()}${json}${CHUNK_END}` : this.#first(json);
  }
}

/** `}}` at `at`: the end of a delta event, after its string. */
function closesTwice(text: string, at: number): boolean {
  return text.charCodeAt(at) === 0x7d && text.charCodeAt(at + 1) === 0x7d;
}
