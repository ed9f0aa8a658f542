import { jsonNumber, writeJson } from '../../lib/json-write.js';
import { byteText, jsonBytes } from '../../lib/byte-text.js';
import type { ResponseContext, ResponseStatus, ResponseUsage } from './answer.js';
import { DEFAULT_TEXT, NO_METADATA } from './request.js';

// The Responses API's answers as JSON text written around pieces made once per request: the
// same bytes as JSON.stringify of the objects answer.ts builds (a test holds them to it), for
// a fraction of the cost. V8 11's JSON.stringify copies a string of more than a few characters
// one character at a time through a checked append (~27 instructions a character, callgrind),
// so a response object, whose echo of the request (instructions, tools) a stream writes twice
// and whose text it writes four times, cost more than the rest of the translation; and each
// call costs ~1,500 instructions before the first character (6,000 for a three-member object).
// Everything here is byte text (lib/byte-text.ts), as the stream translators write.

/** `,` and JSON.stringify's members of `o` (keys whose value is undefined left out, as it leaves them), or '' when there are none. */
/** What the response says of reasoning when the request said nothing of it. */
const DEFAULT_REASONING = ',"reasoning":{"effort":null,"summary":null}';

/** `,"name":value` (value as JSON byte text), or '' for an undefined value, which JSON.stringify leaves out. */
function member(name: string, v: unknown): string {
  return v === undefined ? '' : `,"${name}":${small(v)}`;
}

/** A value's JSON byte text: the echo's usual values (null, booleans, numbers, strings, []) without writeJson's walk. */
function small(v: unknown): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return jsonNumber(v);
    case 'string':
      return jsonBytes(v);
    default:
      return Array.isArray(v) && v.length === 0 ? '[]' : byteText(writeJson(v));
  }
}

/** The `response` object of one request as JSON byte text: responseObject(ctx, …) serialised, its constant parts once. */
export class ResponseJson {
  readonly #open: string;
  readonly #echo: string;
  readonly #settings: string;
  readonly #close: string;

  constructor(ctx: ResponseContext) {
    const e = ctx.echo;
    // Each member as JSON.stringify writes it: left out when its value is undefined. The id
    // (itemId's prefix and hex) and the defaults are written as they are: a string's check
    // (plainJson, then its UTF-8 length) cost ~1,000 instructions each: this constructor took
    // 12.4k instructions a request with every member checked, 5.5k so (bench:instructions,
    // gateway-responses, inclusive, issue 17).
    this.#open = `{"id":"${ctx.id}","object":"response"${member('created_at', ctx.createdAt)},"status":`;
    this.#echo = `${member('instructions', e.instructions)}${member('max_output_tokens', e.max_output_tokens)}${member('model', ctx.model)},"output":`;
    this.#settings = member('parallel_tool_calls', e.parallel_tool_calls) + member('previous_response_id', e.previous_response_id) +
      (e.reasoning === undefined || e.reasoning === null ? DEFAULT_REASONING : member('reasoning', e.reasoning)) + member('store', e.store) +
      member('temperature', e.temperature) + (e.text === DEFAULT_TEXT ? ',"text":{"format":{"type":"text"}}' : member('text', e.text)) +
      (e.tool_choice === 'auto' ? ',"tool_choice":"auto"' : member('tool_choice', e.tool_choice)) + member('tools', e.tools) +
      `${member('top_p', e.top_p)},"truncation":"disabled","usage":`;
    this.#close = `${e.metadata === NO_METADATA ? ',"metadata":{}' : member('metadata', e.metadata)}${member('user', e.user)}}`;
  }

  /** `output`: the output items' JSON array (byte text). */
  write(status: ResponseStatus, output: string, usage: ResponseUsage | null, incomplete: { reason: string } | null = null,
    error: { code: string; message: string } | null = null): string {
    return `${this.#open}"${status}","background":false,"error":${error === null ? 'null' : byteText(writeJson(error))},` +
      `"incomplete_details":${incomplete === null ? 'null' : writeJson(incomplete)}${this.#echo}${output}${this.#settings}` +
      `${usage === null ? 'null' : usageJson(usage)}${this.#close}`;
  }
}

function usageJson(u: ResponseUsage): string {
  return `{"input_tokens":${jsonNumber(u.input_tokens)},"input_tokens_details":{"cached_tokens":${jsonNumber(u.input_tokens_details.cached_tokens)}},` +
    `"output_tokens":${jsonNumber(u.output_tokens)},"output_tokens_details":{"reasoning_tokens":${jsonNumber(u.output_tokens_details.reasoning_tokens)}},` +
    `"total_tokens":${jsonNumber(u.total_tokens)}}`;
}

/** `{"type":"output_text",…,"text":…}`: textPart's JSON, `text` already JSON (byte) text. */
export function textPartJson(text: string): string {
  return `{"type":"output_text","annotations":[],"logprobs":[],"text":${text}}`;
}

/** messageItem(id, text, status)'s JSON (no refusal), `text` already JSON (byte) text; ids are written as they are (prefix and hex). */
export function messageItemJson(id: string, text: string, status: 'in_progress' | 'completed' | 'incomplete'): string {
  return `{"id":"${id}","type":"message","status":"${status}","role":"assistant","content":[${textPartJson(text)}]}`;
}

/**
 * The JSON byte text of output items as answer.ts builds them (message, reasoning, function
 * call): JSON.stringify(items), written per item type around each value.
 */
export function outputJson(items: readonly Record<string, unknown>[]): string {
  let out = '[';
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ',';
    out += itemJson(items[i]);
  }
  return `${out}]`;
}

function itemJson(item: Record<string, unknown>): string {
  const id = value(item.id);
  switch (item.type) {
    case 'message': {
      let content = '';
      for (const p of item.content as Record<string, unknown>[]) {
        if (content !== '') content += ',';
        content += p.type === 'output_text' ? textPartJson(value(p.text)) : `{"type":"refusal","refusal":${value(p.refusal)}}`;
      }
      return `{"id":${id},"type":"message","status":${value(item.status)},"role":"assistant","content":[${content}]}`;
    }
    case 'reasoning': {
      const text = value((item.content as { text: unknown }[])[0].text);
      return `{"id":${id},"type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":${text}}]}`;
    }
    case 'function_call':
      return `{"id":${id},"type":"function_call","status":${value(item.status)},"arguments":${value(item.arguments)},` +
        `"call_id":${value(item.call_id)},"name":${value(item.name)}}`;
    default:
      return byteText(writeJson(item));
  }
}

/** A value as JSON byte text (undefined, which JSON.stringify leaves out of an object, does not occur here). */
function value(v: unknown): string {
  return typeof v === 'string' ? jsonBytes(v) : byteText(writeJson(v));
}
