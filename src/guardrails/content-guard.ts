import type { Guard } from './guard.js';

type Obj = Record<string, unknown>;

/**
 * Where the user's text is in a request body, for each inbound shape the data plane forwards:
 * message contents as strings or as parts (`text` of a text part; a tool result's `content`,
 * which nests the same way) and the arguments of earlier tool calls (JSON text: a marker has no
 * quote or backslash, so it stays valid JSON). Everything else (images, audio, tool definitions,
 * parameters) is left as it is. Bodies are changed in place: each is the request's own decoded copy.
 */

/** Chat completions (and Responses, once translated): every message's content. */
export function guardChatBody(payload: Obj, guard: Guard): void {
  const messages = payload.messages;
  if (!Array.isArray(messages)) return;
  for (const m of messages) {
    if (!isObj(m)) continue;
    if (m.content !== undefined) m.content = guardContent(m.content, guard);
    if (Array.isArray(m.tool_calls)) guardToolCalls(m.tool_calls, guard, 'request');
  }
}

/** Chat tool calls' `function.arguments`, in a request's history or an answer. */
export function guardToolCalls(calls: unknown[], guard: Guard, where: 'request' | 'answer'): boolean {
  let changed = false;
  for (const c of calls) {
    const fn = isObj(c) ? c.function : undefined;
    if (!isObj(fn) || typeof fn.arguments !== 'string') continue;
    const checked = guard.text(fn.arguments, where);
    if (checked !== fn.arguments) {
      fn.arguments = checked;
      changed = true;
    }
  }
  return changed;
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
    // An Anthropic tool_use block in the history: its arguments as an object.
    if (part.type === 'tool_use' && isObj(part.input)) guardValues(part.input, guard);
  }
  return c;
}

/** Every string inside a JSON value, in place (the body's depth was bounded when it was read). */
function guardValues(v: Obj | unknown[], guard: Guard): void {
  const keys = Array.isArray(v) ? v.keys() : Object.keys(v);
  for (const k of keys) {
    const x = (v as Record<string | number, unknown>)[k];
    if (typeof x === 'string') (v as Record<string | number, unknown>)[k] = guard.text(x);
    else if (typeof x === 'object' && x !== null) guardValues(x as Obj | unknown[], guard);
  }
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
