import { randomHex } from '../../lib/random-hex.js';
import { jsonBytes, textBytes } from '../../lib/byte-text.js';
import { jsonNumber } from '../../lib/json-write.js';
import type { ChatTextAnswer } from '../chat-answer-in-place.js';

type Obj = Record<string, unknown>;

/** Anthropic's usage from the canonical (OpenAI) usage: its input_tokens exclude cache reads and writes. */
export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

/** A `msg_` id, as Anthropic's, for an answer whose chat id is of another shape. */
export function messageId(): string {
  return `msg_${randomHex(12)}`;
}

/** Tool-call ids as Anthropic's clients know them (`toolu_…`); the id round-trips back as the chat tool_call id. */
export function toolUseId(id: unknown): string {
  if (typeof id !== 'string' || id.length === 0) return `toolu_${randomHex(12)}`;
  return id.startsWith('toolu_') ? id : `toolu_${id}`;
}

/**
 * The canonical usage (prompt_tokens counts every input token, cached reads and cache writes
 * included) in Anthropic's convention, where input_tokens counts only the rest.
 */
export function messagesUsage(u: Obj | null | undefined): MessagesUsage {
  const prompt = num(u?.prompt_tokens);
  const details = u?.prompt_tokens_details as Obj | null | undefined;
  const cached = num(details?.cached_tokens);
  const written = num(details?.cache_write_tokens);
  return {
    input_tokens: Math.max(0, prompt - cached - written),
    output_tokens: num(u?.completion_tokens),
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: written,
  };
}

/**
 * A chat finish_reason → Anthropic's stop_reason and stop_sequence. Chat does not say which stop
 * sequence matched; OpenAI-compatible servers that do (vLLM's `stop_reason`) are read for it.
 */
export function stopReason(finish: unknown, matched: unknown, stops: readonly string[]): { stop_reason: string; stop_sequence: string | null } {
  switch (finish) {
    case 'length': return { stop_reason: 'max_tokens', stop_sequence: null };
    case 'tool_calls': case 'function_call': return { stop_reason: 'tool_use', stop_sequence: null };
    case 'content_filter': return { stop_reason: 'refusal', stop_sequence: null };
    default:
      if (typeof matched === 'string' && stops.includes(matched)) return { stop_reason: 'stop_sequence', stop_sequence: matched };
      return { stop_reason: 'end_turn', stop_sequence: null };
  }
}

/** Parsed tool arguments; a model's malformed JSON is kept, as Anthropic's `input` must be an object. */
export function toolInput(args: unknown): Obj {
  if (typeof args !== 'string' || args.trim() === '') return {};
  try {
    const v = JSON.parse(args);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Obj : { value: v };
  } catch {
    return { _raw_arguments: args };
  }
}

/** A whole `chat.completion` → Anthropic's `message` object. `model` is the catalog id the client asked for. */
export function chatToMessage(chat: Obj, model: string, stops: readonly string[]): Obj {
  const choice = ((chat.choices as Obj[] | undefined)?.[0] ?? {}) as Obj;
  const msg = (choice.message ?? {}) as Obj;
  const content: Obj[] = [];
  const text = typeof msg.content === 'string' ? msg.content : '';
  if (text.length > 0) content.push({ type: 'text', text });
  else if (typeof msg.refusal === 'string' && msg.refusal.length > 0) content.push({ type: 'text', text: msg.refusal });
  for (const c of (msg.tool_calls as Obj[] | undefined) ?? []) {
    const fn = (c.function ?? {}) as Obj;
    content.push({ type: 'tool_use', id: toolUseId(c.id), name: fn.name, input: toolInput(fn.arguments) });
  }
  const id = typeof chat.id === 'string' && chat.id.startsWith('msg_') ? chat.id : messageId();
  const stop = stopReason(choice.finish_reason, choice.stop_reason, stops);
  // Some providers end a tool-calling turn with finish_reason "stop"; the client must still run the tools.
  if (stop.stop_reason === 'end_turn' && content.some((b) => b.type === 'tool_use')) stop.stop_reason = 'tool_use';
  return { id, type: 'message', role: 'assistant', model, content, ...stop, usage: messagesUsage(chat.usage as Obj | undefined) };
}

/**
 * chatToMessage's message for a chat answer of text read in place (chat-answer-in-place.ts), as
 * writeJson writes it, in UTF-8: the text's literal copied as it came.
 */
export function textMessageJson(t: ChatTextAnswer, model: string, stops: readonly string[]): Buffer {
  const id = t.id.startsWith('"msg_') ? t.id : `"${messageId()}"`;
  const content = t.content === '""' ? '[]' : `[{"type":"text","text":${t.content}}]`;
  // A text answer names no stop sequence (stop_reason is vLLM's member, not in the layout read).
  const stop = stopReason(t.finish, undefined, stops);
  const u = messagesUsage(t.usage);
  return textBytes(`{"id":${id},"type":"message","role":"assistant","model":${jsonBytes(model)},"content":${content},` +
    `"stop_reason":${jsonBytes(stop.stop_reason)},"stop_sequence":null,"usage":{"input_tokens":${jsonNumber(u.input_tokens)},` +
    `"output_tokens":${jsonNumber(u.output_tokens)},"cache_read_input_tokens":${jsonNumber(u.cache_read_input_tokens)},` +
    `"cache_creation_input_tokens":${jsonNumber(u.cache_creation_input_tokens)}}}`);
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}
