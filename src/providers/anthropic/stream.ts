import { canonicalStringEnd, hasAt, isDataLine, literalValue, onlySpaceFrom, smallIntEnd } from '../../lib/json-literal.js';
import { LineReader } from '../../lib/line-reader.js';
import type { StreamTranslator } from '../types.js';
import { finishReason } from './stop-reason.js';
import { canonicalUsage, emptyCounts, mergeUsage, type AnthropicUsage } from './usage.js';

const DONE = 'data: [DONE]\n\n';
// The events a stream is mostly made of, as Anthropic writes them (compact, in this key order).
const BLOCK_DELTA = '{"type":"content_block_delta","index":';
const TEXT_DELTA = ',"delta":{"type":"text_delta","text":';
const JSON_DELTA = ',"delta":{"type":"input_json_delta","partial_json":';
const BLOCK_STOP = '{"type":"content_block_stop","index":';
const PING = '{"type":"ping"}';
/** What follows a chunk's delta object: the rest of its choice, and of the chunk. */
const CHUNK_END = ',"logprobs":null,"finish_reason":null}]}\n\n';

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
 */
export class AnthropicStreamTranslator implements StreamTranslator {
  readonly #counts = emptyCounts();
  readonly #lines = new LineReader();
  /** Lines after message_stop (or an error event) are not read. */
  readonly #onLine = (text: string, start: number, end: number): string => (this.#over ? '' : this.#line(text, start, end));
  #id = 'msg';
  #model: string;
  #created: number;
  /** Anthropic content-block index → OpenAI tool_calls index. */
  readonly #tools = new Map<number, number>();
  #over = false;
  #opened = false;
  /** `data: {"id":…,"model":…,"choices":[{"index":0,"delta":{"content":` for this stream, made once its id and model are known. */
  #textPrefix: string | null = null;
  #prefix: string | null = null;
  #open: string | null = null;

  constructor(upstreamModel: string, now: number = Date.now()) {
    this.#model = upstreamModel;
    this.#created = Math.floor(now / 1000);
  }

  push(chunk: Buffer): string {
    return this.#over ? '' : this.#lines.pushSpans(chunk, this.#onLine);
  }

  end(): string {
    const rest = this.#lines.rest();
    return rest === null ? '' : this.#onLine(rest, 0, rest.length);
  }

  /** The line text[start, end). */
  #line(text: string, start: number, end: number): string {
    if (!isDataLine(text, start)) return '';
    const fast = this.#fast(text, start + (text.charCodeAt(start + 5) === 0x20 ? 6 : 5), end);
    if (fast !== null) return fast;
    let e: StreamEvent;
    try {
      e = JSON.parse(text.slice(start + 5, end));
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
        return e.delta?.stop_reason == null ? '' : this.#chunk({}, finishReason(e.delta.stop_reason));
      case 'message_stop':
        this.#over = true;
        return `${this.#headOpen()},"choices":[],"usage":${JSON.stringify(canonicalUsage(this.#counts))}}\n\n${DONE}`;
      case 'error':
        this.#over = true;
        return '';
      default:
        return ''; // ping, content_block_stop, and events newer than this translator
    }
  }

  /**
   * The common events read in place, without a parse: a text or tool-input delta whose string
   * is copied as it came (its bytes are what JSON.stringify writes for it), a block's end, a
   * ping. Null for anything else, or anything unusual in these (other keys or key order, space,
   * escapes JSON.stringify writes otherwise), which #line then parses. Parsing every event was
   * most of a translated stream's cost: 404k instructions for the benchmark's 26-event stream
   * before, 000k after (callgrind, issue 17).
   */
  #fast(line: string, at: number, n: number): string | null {
    if (hasAt(line, at, BLOCK_DELTA)) {
      const i = smallIntEnd(line, at + BLOCK_DELTA.length);
      if (i < 0) return null;
      if (hasAt(line, i, TEXT_DELTA)) {
        const from = i + TEXT_DELTA.length;
        const to = canonicalStringEnd(line, from, n);
        if (to < 0 || !closesTwice(line, to) || !onlySpaceFrom(line, to + 2, n)) return null;
        if (!this.#opened) return this.#text(literalValue(line, from, to));
        this.#textPrefix ??= `${this.#deltaPrefix()}{"content":`;
        return `${this.#textPrefix}${line.slice(from, to)}}${CHUNK_END}`;
      }
      if (hasAt(line, i, JSON_DELTA)) {
        const from = i + JSON_DELTA.length;
        const to = canonicalStringEnd(line, from, n);
        if (to < 0 || !closesTwice(line, to) || !onlySpaceFrom(line, to + 2, n)) return null;
        const k = this.#tools.get(Number(line.slice(at + BLOCK_DELTA.length, i)));
        if (k === undefined || to - from === 2) return '';
        if (!this.#opened) return this.#chunk({ tool_calls: [{ index: k, function: { arguments: literalValue(line, from, to) } }] }, null);
        return `${this.#deltaPrefix()}{"tool_calls":[{"index":${k},"function":{"arguments":${line.slice(from, to)}}}]}${CHUNK_END}`;
      }
      return null;
    }
    if (hasAt(line, at, BLOCK_STOP)) {
      const i = smallIntEnd(line, at + BLOCK_STOP.length);
      return i >= 0 && line.charCodeAt(i) === 0x7d && onlySpaceFrom(line, i + 1, n) ? '' : null;
    }
    return hasAt(line, at, PING) && onlySpaceFrom(line, at + PING.length, n) ? '' : null;
  }

  #start(e: StreamEvent): string {
    const m = e.message;
    if (typeof m?.id === 'string') this.#id = m.id;
    if (typeof m?.model === 'string') this.#model = m.model;
    this.#textPrefix = null;
    this.#prefix = null;
    this.#open = null;
    mergeUsage(this.#counts, m?.usage);
    return '';
  }

  #blockStart(e: StreamEvent): string {
    const b = e.content_block;
    if (b?.type === 'tool_use' && typeof e.index === 'number') {
      const k = this.#tools.size;
      this.#tools.set(e.index, k);
      return this.#chunk({ tool_calls: [{ index: k, id: b.id, type: 'function', function: { name: b.name, arguments: '' } }] }, null);
    }
    // A text block may start with text of its own (Anthropic sends it empty today).
    return b?.type === 'text' && typeof b.text === 'string' && b.text !== '' ? this.#chunk({ content: b.text }, null) : '';
  }

  #delta(e: StreamEvent): string {
    const d = e.delta;
    if (d?.type === 'text_delta' && typeof d.text === 'string') return this.#text(d.text);
    if (d?.type === 'input_json_delta' && typeof d.partial_json === 'string' && d.partial_json !== '') {
      const k = this.#tools.get(e.index as number);
      return k === undefined ? '' : this.#chunk({ tool_calls: [{ index: k, function: { arguments: d.partial_json } }] }, null);
    }
    return ''; // thinking_delta, signature_delta, citations_delta
  }

  /**
   * `data: {"id":…,"object":"chat.completion.chunk","created":…,"model":…`: every chunk of this
   * stream begins so (chunks are written around it: a JSON.stringify of a spread chunk object
   * cost ~15,000 instructions, callgrind, issue 17).
   */
  #headOpen(): string {
    return this.#open ??= `data: {"id":${JSON.stringify(this.#id)},"object":"chat.completion.chunk","created":${this.#created},` +
      `"model":${JSON.stringify(this.#model)}`;
  }

  /**
   * The role chunk OpenAI opens a stream with goes out just before the first real chunk, not at
   * `message_start`: a stream that fails before saying anything (an `overloaded_error` event
   * right after `message_start`) then translates to nothing, and the data plane tries the next
   * route instead of starting an answer it cannot finish.
   */
  #chunk(delta: Record<string, unknown>, finish: string | null): string {
    const first = this.#opened ? '' : `${this.#deltaPrefix()}{"role":"assistant","content":""}${CHUNK_END}`;
    this.#opened = true;
    return first + this.#event(delta, finish);
  }

  /**
   * A text delta, the stream's bulk: its chunk written around the text from a prefix made once,
   * the same bytes as #event's. Serialising the chunk object each time cost 20x more (a 1.5 µs
   * JSON.stringify of a spread object against 70 ns, measured on Node 20).
   */
  #text(text: string): string {
    if (!this.#opened) return this.#chunk({ content: text }, null);
    this.#textPrefix ??= `${this.#deltaPrefix()}{"content":`;
    return `${this.#textPrefix}${JSON.stringify(text)}}${CHUNK_END}`;
  }

  /** `data: {"id":…,"object":…,"created":…,"model":…,"choices":[{"index":0,"delta":`, as #event writes it. */
  #deltaPrefix(): string {
    return this.#prefix ??= `${this.#headOpen()},"choices":[{"index":0,"delta":`;
  }

  #event(delta: Record<string, unknown>, finish: string | null): string {
    return finish === null ? `${this.#deltaPrefix()}${JSON.stringify(delta)}${CHUNK_END}`
      : `${this.#deltaPrefix()}${JSON.stringify(delta)},"logprobs":null,"finish_reason":${JSON.stringify(finish)}}]}\n\n`;
  }
}

/** `}}` at `at`: the end of a delta event, after its string. */
function closesTwice(text: string, at: number): boolean {
  return text.charCodeAt(at) === 0x7d && text.charCodeAt(at + 1) === 0x7d;
}
