import { LineReader } from '../../lib/line-reader.js';
import type { ChatStreamTranslator } from '../reply-format.js';
import {
  functionCallItem, itemId, messageItem, reasoningItem, responseObject, responseUsage, statusOf, textPart,
  type ResponseContext, type ResponseUsage,
} from './answer.js';

interface OpenText {
  index: number;
  id: string;
  text: string;
}

interface OpenCall {
  index: number;
  id: string;
  callId: string;
  name: string;
  args: string;
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

/**
 * Chat-completion SSE → the Responses API's typed event stream: response.created and
 * response.in_progress first, each output item opened (output_item.added, content_part.added),
 * filled (output_text.delta, function_call_arguments.delta) and closed (….done) in order, then
 * response.completed (response.incomplete when the model hit max_output_tokens) with usage.
 * A chat stream that ends without [DONE], or with the data plane's error event, ends with
 * `error` and response.failed instead: a cut answer never reads as a finished one.
 */
export class ResponsesStream implements ChatStreamTranslator {
  readonly #ctx: ResponseContext;
  readonly #onComplete: (response: Record<string, unknown>) => void;
  readonly #lines = new LineReader();
  readonly #onLine = (line: string): string => {
    const l = line.trimEnd();
    return l.startsWith('data:') ? this.#data(l.slice(5).trimStart()) : '';
  };
  #seq = 0;
  #started = false;
  #ended = false;
  readonly #output: Record<string, unknown>[] = [];
  #text: OpenText | null = null;
  #reasoning: OpenText | null = null;
  readonly #calls = new Map<number, OpenCall>();
  #finish: string | null = null;
  #usage: ResponseUsage | null = null;
  #error: { code: string; message: string } | null = null;
  #done = false;

  /** `onComplete` gets the final response object of a stream that finished (not of a failed one). */
  constructor(ctx: ResponseContext, onComplete: (response: Record<string, unknown>) => void) {
    this.#ctx = ctx;
    this.#onComplete = onComplete;
  }

  push(chunk: Buffer | string): string {
    let out = this.#started ? '' : this.#start();
    return out + this.#lines.push(chunk, this.#onLine);
  }

  end(): string {
    if (this.#ended) return '';
    this.#ended = true;
    let out = this.#started ? '' : this.#start();
    const failed = this.#error !== null || !this.#done;
    out += this.#closeText(failed) + this.#closeReasoning();
    for (const c of this.#calls.values()) out += this.#closeCall(c);
    if (failed) {
      const error = this.#error ?? { code: 'stream_interrupted', message: 'The upstream stream ended before the answer was complete' };
      out += this.#event('error', { code: error.code, message: error.message, param: null });
      const response = responseObject(this.#ctx, 'failed', this.#output, this.#usage, null, error);
      return out + this.#event('response.failed', { response });
    }
    const { status, incomplete } = statusOf(this.#finish);
    const response = responseObject(this.#ctx, status, this.#output, this.#usage, incomplete);
    out += this.#event(status === 'completed' ? 'response.completed' : 'response.incomplete', { response });
    this.#onComplete(response);
    return out;
  }

  #start(): string {
    this.#started = true;
    const response = JSON.stringify(responseObject(this.#ctx, 'in_progress', [], null));
    return this.#raw('response.created', `"response":${response}`) + this.#raw('response.in_progress', `"response":${response}`);
  }

  #event(type: string, body: Record<string, unknown>): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.#seq++, ...body })}\n\n`;
  }

  /** An event from already-serialised fields: the deltas, one per chunk, are written without building objects. */
  #raw(type: string, fields: string): string {
    return `event: ${type}\ndata: {"type":"${type}","sequence_number":${this.#seq++},${fields}}\n\n`;
  }

  #data(payload: string): string {
    if (payload === '[DONE]') {
      this.#done = true;
      return '';
    }
    let chunk: Chunk;
    try {
      chunk = JSON.parse(payload) as Chunk;
    } catch {
      return '';
    }
    if (chunk.error !== undefined && chunk.error !== null) {
      this.#error = { code: chunk.error.code ?? chunk.error.type ?? 'server_error', message: chunk.error.message ?? 'The upstream stream failed' };
      return '';
    }
    if (chunk.usage !== undefined && chunk.usage !== null) this.#usage = responseUsage(chunk.usage);
    const choice = chunk.choices?.[0];
    if (choice === undefined || (choice.index !== undefined && choice.index !== 0)) return '';
    if (typeof choice.finish_reason === 'string') this.#finish = choice.finish_reason;
    const d = choice.delta;
    if (d === undefined || d === null) return '';
    let out = '';
    const reasoning = d.reasoning_content ?? d.reasoning;
    if (typeof reasoning === 'string' && reasoning.length > 0) out += this.#reasoningDelta(reasoning);
    const text = typeof d.content === 'string' ? d.content : typeof d.refusal === 'string' ? d.refusal : '';
    if (text.length > 0) out += this.#textDelta(text);
    if (Array.isArray(d.tool_calls)) for (const c of d.tool_calls) out += this.#callDelta(c);
    return out;
  }

  #reasoningDelta(delta: string): string {
    let out = '';
    if (this.#reasoning === null) {
      this.#reasoning = { index: this.#output.length, id: itemId('rs'), text: '' };
      const item = { id: this.#reasoning.id, type: 'reasoning', summary: [], content: [] };
      this.#output.push(item);
      out += this.#event('response.output_item.added', { output_index: this.#reasoning.index, item });
    }
    const r = this.#reasoning;
    r.text += delta;
    return out + this.#event('response.reasoning_text.delta', { item_id: r.id, output_index: r.index, content_index: 0, delta });
  }

  #closeReasoning(): string {
    const r = this.#reasoning;
    if (r === null) return '';
    this.#reasoning = null;
    const item = reasoningItem(r.id, r.text);
    this.#output[r.index] = item;
    return this.#event('response.reasoning_text.done', { item_id: r.id, output_index: r.index, content_index: 0, text: r.text }) +
      this.#event('response.output_item.done', { output_index: r.index, item });
  }

  #textDelta(delta: string): string {
    let out = this.#closeReasoning();
    if (this.#text === null) {
      this.#text = { index: this.#output.length, id: itemId('msg'), text: '' };
      const item = { id: this.#text.id, type: 'message', status: 'in_progress', role: 'assistant', content: [] };
      this.#output.push(item);
      out += this.#event('response.output_item.added', { output_index: this.#text.index, item }) +
        this.#event('response.content_part.added', { item_id: this.#text.id, output_index: this.#text.index, content_index: 0, part: textPart('') });
    }
    const t = this.#text;
    t.text += delta;
    return out + this.#raw('response.output_text.delta',
      `"item_id":"${t.id}","output_index":${t.index},"content_index":0,"delta":${JSON.stringify(delta)},"logprobs":[]`);
  }

  #closeText(failed: boolean): string {
    const t = this.#text;
    if (t === null) return '';
    this.#text = null;
    const base = { item_id: t.id, output_index: t.index, content_index: 0 };
    const item = messageItem(t.id, t.text, failed || statusOf(this.#finish).status !== 'completed' ? 'incomplete' : 'completed');
    this.#output[t.index] = item;
    return this.#event('response.output_text.done', { ...base, text: t.text, logprobs: [] }) +
      this.#event('response.content_part.done', { ...base, part: textPart(t.text) }) +
      this.#event('response.output_item.done', { output_index: t.index, item });
  }

  #callDelta(c: { index?: number; id?: string; function?: { name?: string; arguments?: string } }): string {
    const key = typeof c.index === 'number' ? c.index : 0;
    let out = '';
    let call = this.#calls.get(key);
    if (call === undefined) {
      out += this.#closeText(false) + this.#closeReasoning();
      call = { index: this.#output.length, id: itemId('fc'), callId: c.id ?? itemId('call'), name: c.function?.name ?? '', args: '', done: false };
      this.#calls.set(key, call);
      const item = functionCallItem(call.id, call.callId, call.name, '', 'in_progress');
      this.#output.push(item);
      out += this.#event('response.output_item.added', { output_index: call.index, item });
    } else if (typeof c.function?.name === 'string' && call.name === '') {
      call.name = c.function.name;
    }
    const delta = c.function?.arguments;
    if (typeof delta === 'string' && delta.length > 0) {
      call.args += delta;
      out += this.#raw('response.function_call_arguments.delta', `"item_id":"${call.id}","output_index":${call.index},"delta":${JSON.stringify(delta)}`);
    }
    return out;
  }

  #closeCall(c: OpenCall): string {
    if (c.done) return '';
    c.done = true;
    const item = functionCallItem(c.id, c.callId, c.name, c.args, 'completed');
    this.#output[c.index] = item;
    return this.#event('response.function_call_arguments.done', { item_id: c.id, output_index: c.index, name: c.name, arguments: c.args }) +
      this.#event('response.output_item.done', { output_index: c.index, item });
  }
}
