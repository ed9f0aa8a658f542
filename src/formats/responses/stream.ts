import { writeJson } from '../../lib/json-write.js';
import { ByteSink, byteText, decodeText, flat, jsonBytes, textBytes } from '../../lib/byte-text.js';
import { isDataLine, isDone, literalValue } from '../../lib/json-literal.js';
import { LineReader } from '../../lib/line-reader.js';
import { ChatDeltas } from '../chat-deltas.js';
import { DeltaEvents, KEEP_TEXT, NUMBERED } from '../../lib/delta-events.js';
import { messageItemJson, ResponseJson, textPartJson } from './response-json.js';
import type { ChatStreamTranslator } from '../reply-format.js';
import {
  functionCallItem, itemId, messageItem, reasoningItem, responseObject, responseUsage, statusOf,
  type ResponseContext, type ResponseUsage,
} from './answer.js';

interface OpenText {
  index: number;
  id: string;
  /** The text as the inside of its JSON string (byte text), joined from the pieces' literals. */
  json: string;
  /** Whether `json` is what JSON.stringify writes for the joined text (see addText). */
  exact: boolean;
  /** A text item's delta event, after its sequence number and before the delta. */
  mid?: string;
}

/** A function call's arguments are its text. */
interface OpenCall extends OpenText {
  callId: string;
  name: string;
  done: boolean;
}

interface ChunkDelta {
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  refusal?: string | null;
  tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[];
}

interface Chunk {
  choices?: { index?: number; delta?: ChunkDelta; finish_reason?: string | null }[];
  usage?: unknown;
  error?: { message?: string; code?: string; type?: string };
}

type OnComplete = (response: Record<string, unknown>) => void;

/**
 * Chat-completion SSE → the Responses API's typed event stream: response.created and
 * response.in_progress first, each output item opened (output_item.added, content_part.added),
 * filled (output_text.delta, function_call_arguments.delta) and closed (….done) in order, then
 * response.completed (response.incomplete when the model hit max_output_tokens) with usage.
 * A chat stream that ends without [DONE], or with the data plane's error event, ends with
 * `error` and response.failed instead: a cut answer never reads as a finished one.
 *
 * The chat stream is read as byte text and the events written as byte text (lib/byte-text.ts):
 * a text delta (ChatDeltas) is matched in place and its string copied into its event as the
 * bytes it came as; any other chunk is decoded and parsed. Parsing every chunk, and serialising
 * the response objects, was most of a translated stream's cost (bench:instructions,
 * gateway-responses-stream, issue 17).
 */
export class ResponsesStream implements ChatStreamTranslator {
  readonly #ctx: ResponseContext;
  readonly #onComplete: OnComplete | null;
  readonly #lines = new LineReader();
  readonly #deltas = new ChatDeltas();
  readonly #out = new ByteSink();
  readonly #onLine = (text: string, start: number, end: number): void => {
    if (!isDataLine(text, start)) return;
    const at = start + (text.charCodeAt(start + 5) === 0x20 ? 6 : 5);
    const d = this.#deltas;
    if (d.match(text, at, end)) {
      if (d.finFrom >= 0) this.#finish = decodeText(literalValue(text, d.finFrom, d.finTo));
      if (d.litTo - d.litFrom > 2) this.#textDelta(text.slice(d.litFrom, d.litTo), true);
      return;
    }
    if (isDone(text, at, end)) {
      this.#done = true;
      return;
    }
    const usage = d.usage(text, at, end);
    if (usage !== null) this.#usage = responseUsage(usage);
    else this.#data(this.#lines.utf8(start + 5, end).trim(), text, at, end);
  };
  /** The text item's deltas in the frame, a run of lines at a time (lib/delta-events.ts). */
  readonly #events = new DeltaEvents(NUMBERED | KEEP_TEXT);
  /** The text item #events has its templates for. */
  #eventsFor: OpenText | null = null;
  readonly #run = (lines: Buffer, at: number): number => {
    const t = this.#text;
    if (t === null || t.mid === undefined || this.#reasoning !== null) return at;
    const e = this.#events;
    if (this.#eventsFor !== t) {
      if (!e.template(this.#deltas, TEXT_DELTA, t.mid, DELTA_END)) return at;
      this.#eventsFor = t;
    }
    const stop = e.run(lines, at, this.#out, this.#seq);
    this.#seq = e.seq;
    // The run's literals are canonical (no \u escape): joined as they are.
    t.json += e.text;
    return stop;
  };
  #seq = 0;
  #started = false;
  #ended = false;
  /** The output items as objects (only when a finished response is stored) and as JSON byte text. */
  readonly #output: Record<string, unknown>[] = [];
  readonly #outputJson: string[] = [];
  readonly #json: ResponseJson;
  #text: OpenText | null = null;
  #reasoning: OpenText | null = null;
  readonly #calls = new Map<number, OpenCall>();
  #finish: string | null = null;
  #usage: ResponseUsage | null = null;
  #error: { code: string; message: string } | null = null;
  #done = false;

  /** `onComplete` gets the final response object of a stream that finished (not of a failed one); null when none is kept. */
  constructor(ctx: ResponseContext, onComplete: OnComplete | null) {
    this.#ctx = ctx;
    this.#onComplete = onComplete;
    this.#json = new ResponseJson(ctx);
  }

  push(chunk: Buffer | string): Buffer {
    if (!this.#started) this.#out.parts.push(this.#start());
    this.#lines.pushRuns(chunk, this.#onLine, this.#run);
    return this.#out.take();
  }

  end(): Buffer {
    if (this.#ended) return EMPTY;
    this.#ended = true;
    let out = this.#started ? '' : this.#start();
    const failed = this.#error !== null || !this.#done;
    out += this.#closeText(failed) + this.#closeReasoning();
    for (const c of this.#calls.values()) out += this.#closeCall(c);
    const output = `[${this.#outputJson.join(',')}]`;
    if (failed) {
      const error = this.#error ?? { code: 'stream_interrupted', message: 'The upstream stream ended before the answer was complete' };
      out += this.#event('error', { code: error.code, message: error.message, param: null });
      return textBytes(out + this.#raw('response.failed', `"response":${this.#json.write('failed', output, this.#usage, null, error)}`));
    }
    const { status, incomplete } = statusOf(this.#finish);
    out += this.#raw(status === 'completed' ? 'response.completed' : 'response.incomplete',
      `"response":${this.#json.write(status, output, this.#usage, incomplete)}`);
    this.#onComplete?.(responseObject(this.#ctx, status, this.#output, this.#usage, incomplete));
    return textBytes(out);
  }

  #start(): string {
    this.#started = true;
    // Written twice, and the text below four times: made flat once, the translator alone took
    // 98.9k → 96.0k instructions a stream (callgrind, 5,000 of the bench's 20-chunk streams after
    // 20,000, two runs a build; issue 17). ResponseJson's own pieces, used twice a stream, made
    // flat as well cost more than they saved (97.0k).
    const response = flat(this.#json.write('in_progress', '[]', null));
    return this.#raw('response.created', `"response":${response}`) + this.#raw('response.in_progress', `"response":${response}`);
  }

  /** Output item `index` as JSON byte text, and (only when it is to be stored) as an object, made by `item` on demand. */
  #setItem(index: number, json: string, item: () => Record<string, unknown>): void {
    this.#outputJson[index] = json;
    if (this.#onComplete !== null) this.#output[index] = item();
  }

  #event(type: string, body: Record<string, unknown>): string {
    return `event: ${type}\ndata: ${byteText(writeJson({ type, sequence_number: this.#seq++, ...body }))}\n\n`;
  }

  /** An event from already-serialised fields (byte text): the deltas, one per chunk, are written without building objects. */
  #raw(type: string, fields: string): string {
    return `event: ${type}\ndata: {"type":"${type}","sequence_number":${this.#seq++},${fields}}\n\n`;
  }

  /** A chunk that is not a plain text delta, decoded (`payload`) and at text[at, end) as byte text. */
  #data(payload: string, text: string, at: number, end: number): void {
    if (payload === '[DONE]') {
      this.#done = true;
      return;
    }
    let chunk: Chunk;
    try {
      chunk = JSON.parse(payload) as Chunk;
    } catch {
      return;
    }
    if (chunk.error !== undefined && chunk.error !== null) {
      this.#error = { code: chunk.error.code ?? chunk.error.type ?? 'server_error', message: chunk.error.message ?? 'The upstream stream failed' };
      return;
    }
    if (chunk.usage !== undefined && chunk.usage !== null) this.#usage = responseUsage(chunk.usage);
    const choice = chunk.choices?.[0];
    if (choice === undefined || (choice.index !== undefined && choice.index !== 0)) return;
    if (typeof choice.finish_reason === 'string') this.#finish = choice.finish_reason;
    const d = choice.delta;
    if (d === undefined || d === null) return;
    const reasoning = d.reasoning_content ?? d.reasoning;
    if (typeof reasoning === 'string' && reasoning.length > 0) this.#emit(this.#reasoningDelta(reasoning));
    const content = typeof d.content === 'string' ? d.content : typeof d.refusal === 'string' ? d.refusal : '';
    if (content.length > 0) this.#textDelta(literal(content));
    if (Array.isArray(d.tool_calls)) for (const c of d.tool_calls) this.#emit(this.#callDelta(c));
  }

  #emit(s: string): void {
    if (s.length > 0) this.#out.parts.push(s);
  }

  #reasoningDelta(delta: string): string {
    let out = '';
    if (this.#reasoning === null) {
      const r = this.#reasoning = openText(this.#output.length, itemId('rs'));
      this.#setItem(r.index, `{"id":"${r.id}","type":"reasoning","summary":[],"content":[]}`,
        () => ({ id: r.id, type: 'reasoning', summary: [], content: [] }));
      out += this.#raw('response.output_item.added', `"output_index":${r.index},"item":${this.#outputJson[r.index]}`);
    }
    const r = this.#reasoning;
    const json = literal(delta);
    addText(r, json);
    return out + this.#raw('response.reasoning_text.delta', `"item_id":"${r.id}","output_index":${r.index},"content_index":0,"delta":${json}`);
  }

  #closeReasoning(): string {
    const r = this.#reasoning;
    if (r === null) return '';
    this.#reasoning = null;
    const text = textJson(r);
    const json = `{"id":"${r.id}","type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":${text}}]}`;
    this.#setItem(r.index, json, () => reasoningItem(r.id, textValue(r)));
    return this.#raw('response.reasoning_text.done', `"item_id":"${r.id}","output_index":${r.index},"content_index":0,"text":${text}`) +
      this.#raw('response.output_item.done', `"output_index":${r.index},"item":${json}`);
  }

  /** A text delta, given as its JSON literal (byte text); `canonical` when it is known to hold no \u escape (a fast path's). */
  #textDelta(json: string, canonical = false): void {
    let out = this.#closeReasoning();
    if (this.#text === null) {
      const t = this.#text = openText(this.#output.length, itemId('msg'));
      this.#setItem(t.index, `{"id":"${t.id}","type":"message","status":"in_progress","role":"assistant","content":[]}`,
        () => ({ id: t.id, type: 'message', status: 'in_progress', role: 'assistant', content: [] }));
      out += this.#raw('response.output_item.added', `"output_index":${t.index},"item":${this.#outputJson[t.index]}`) +
        this.#raw('response.content_part.added', `"item_id":"${t.id}","output_index":${t.index},"content_index":0,"part":${textPartJson('""')}`);
    }
    const t = this.#text;
    addText(t, json, canonical);
    // The stream's bulk: written in few pieces (#raw's, with the item's part made once), joined once (ByteSink).
    t.mid ??= `,"item_id":"${t.id}","output_index":${t.index},"content_index":0,"delta":`;
    this.#emit(out);
    this.#out.parts.push(TEXT_DELTA, String(this.#seq++), t.mid, json, DELTA_END);
  }

  #closeText(failed: boolean): string {
    const t = this.#text;
    if (t === null) return '';
    this.#text = null;
    const text = flat(textJson(t));
    const status = failed || statusOf(this.#finish).status !== 'completed' ? 'incomplete' : 'completed';
    const json = messageItemJson(t.id, text, status);
    this.#setItem(t.index, json, () => messageItem(t.id, textValue(t), status));
    const base = `"item_id":"${t.id}","output_index":${t.index},"content_index":0`;
    return this.#raw('response.output_text.done', `${base},"text":${text},"logprobs":[]`) +
      this.#raw('response.content_part.done', `${base},"part":${textPartJson(text)}`) +
      this.#raw('response.output_item.done', `"output_index":${t.index},"item":${json}`);
  }

  #callDelta(c: { index?: number; id?: string; function?: { name?: string; arguments?: string } }): string {
    const key = typeof c.index === 'number' ? c.index : 0;
    let out = '';
    let call = this.#calls.get(key);
    if (call === undefined) {
      out += this.#closeText(false) + this.#closeReasoning();
      const opened: OpenCall = call = { ...openText(this.#output.length, itemId('fc')), callId: c.id ?? itemId('call'), name: c.function?.name ?? '', done: false };
      this.#calls.set(key, call);
      const item = functionCallItem(call.id, call.callId, call.name, '', 'in_progress');
      this.#setItem(call.index, byteText(writeJson(item)), () => item);
      out += this.#raw('response.output_item.added', `"output_index":${opened.index},"item":${this.#outputJson[opened.index]}`);
    } else if (typeof c.function?.name === 'string' && call.name === '') {
      call.name = c.function.name;
    }
    const delta = c.function?.arguments;
    if (typeof delta === 'string' && delta.length > 0) {
      const json = literal(delta);
      addText(call, json);
      out += this.#raw('response.function_call_arguments.delta', `"item_id":"${call.id}","output_index":${call.index},"delta":${json}`);
    }
    return out;
  }

  #closeCall(c: OpenCall): string {
    if (c.done) return '';
    c.done = true;
    const args = textJson(c);
    const name = literal(c.name);
    const json = `{"id":"${c.id}","type":"function_call","status":"completed","arguments":${args},"call_id":${typeof c.callId === 'string' ? jsonBytes(c.callId) : byteText(writeJson(c.callId))},"name":${name}}`;
    this.#setItem(c.index, json, () => functionCallItem(c.id, c.callId, c.name, textValue(c), 'completed'));
    return this.#raw('response.function_call_arguments.done', `"item_id":"${c.id}","output_index":${c.index},"name":${name},"arguments":${args}`) +
      this.#raw('response.output_item.done', `"output_index":${c.index},"item":${json}`);
  }
}

const EMPTY = Buffer.alloc(0);
const TEXT_DELTA = 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":';
const DELTA_END = ',"logprobs":[]}\n\n';

/** A decoded string's JSON literal as byte text. */
function literal(s: string): string {
  return jsonBytes(s);
}

function openText(index: number, id: string): OpenText {
  return { index, id, json: '', exact: true };
}

/**
 * Adds a piece of text given as its JSON literal (byte text). The literals' insides are joined
 * as they are, which is what JSON.stringify writes for the joined text, escapes and all, unless
 * a piece ends or begins with half of a surrogate pair (written as a lone `\ud800`–`\udfff` escape): then the joined
 * text is serialised again at the end.
 */
function addText(t: OpenText, json: string, canonical = false): void {
  t.json += json.slice(1, -1);
  if (!canonical && t.exact && json.indexOf('\\ud') >= 0) t.exact = false;
}

/** The joined text, decoded (for the stored response). */
function textValue(t: OpenText): string {
  return JSON.parse(decodeText(`"${t.json}"`)) as string;
}

/** The JSON string of an item's whole text, as byte text. */
function textJson(t: OpenText): string {
  return t.exact ? `"${t.json}"` : literal(textValue(t));
}
