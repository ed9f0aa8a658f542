import type { Guard } from './guard.js';

type Obj = Record<string, unknown>;

/**
 * Where the user's text is in a request body, for each inbound shape the data plane forwards:
 * message contents as strings or as parts (`text` of a text part; a tool result's `content`,
 * which nests the same way). Everything else (images, audio, tool definitions, parameters) is
 * left as it is. Bodies are changed in place: each is the request's own decoded copy.
 */

/** Chat completions (and Responses, once translated): every message's content. */
export function guardChatBody(payload: Obj, guard: Guard): void {
  const messages = payload.messages;
  if (!Array.isArray(messages)) return;
  for (const m of messages) if (isObj(m) && m.content !== undefined) m.content = guardContent(m.content, guard);
}

/** Embeddings: `input`, a string or an array of strings (arrays of token ids are not text). */
export function guardEmbeddingsBody(payload: Obj, guard: Guard): void {
  const input = payload.input;
  if (typeof input === 'string') payload.input = guard.text(input);
  else if (Array.isArray(input)) for (let i = 0; i < input.length; i++) if (typeof input[i] === 'string') input[i] = guard.text(input[i] as string);
}

/** Anthropic Messages, as a native route is sent it: the system prompt and every message's content. */
export function guardMessagesBody(payload: Obj, guard: Guard): void {
  if (payload.system !== undefined) payload.system = guardContent(payload.system, guard);
  guardChatBody(payload, guard);
}

/** A content value: a string, or parts whose `text` and nested `content` are text. */
function guardContent(c: unknown, guard: Guard): unknown {
  if (typeof c === 'string') return guard.text(c);
  if (!Array.isArray(c)) return c;
  for (const part of c) {
    if (!isObj(part)) continue;
    if (typeof part.text === 'string') part.text = guard.text(part.text);
    if (part.content !== undefined) part.content = guardContent(part.content, guard);
  }
  return c;
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
