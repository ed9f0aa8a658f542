import { errors } from '../../errors/catalog.js';

/**
 * Responses input items → chat-completions messages. Items are what the Responses API keeps a
 * conversation as (messages, function calls and their outputs); stored conversations are kept
 * in this shape too, so one function reads a request's items and a previous response's alike.
 */
export type Item = Record<string, unknown>;
type Message = Record<string, unknown>;
type Part = Record<string, unknown>;

const ROLES = new Set(['user', 'assistant', 'system', 'developer']);

/** A string input is one user message, written as the item it stands for (stored conversations hold items). */
export function inputItems(input: unknown): Item[] {
  if (input === undefined || input === null) return [];
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  return input as Item[];
}

/** Appends the chat messages for `items` to `out`; `where` names the field in errors ('input', 'previous_response_id'). */
export function itemsToMessages(items: Item[], out: Message[], where: string): void {
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw errors.badRequest(`Invalid '${path(where, i)}': expected an item object`);
    const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
    if (type === 'message') out.push(message(item, where, i));
    else if (type === 'function_call') functionCall(item, out, where, i);
    else if (type === 'function_call_output') out.push(functionOutput(item, where, i));
    // Reasoning items carry a provider's own (often encrypted) reasoning: no other provider can read
    // them, and chat completions has no place for them.
    else if (type === 'reasoning') continue;
    else if (type === 'item_reference') {
      throw errors.badRequest(`Invalid '${path(where, i)}': item_reference is not supported; send the item itself, or continue with previous_response_id`);
    } else {
      throw errors.badRequest(`Invalid '${path(where, i)}': item type '${String(type)}' is not supported (message, function_call, function_call_output, reasoning)`);
    }
  }
}

/**
 * Where item `i` of `where` is, for an error. Made only when one is thrown: made for every item
 * and part up front, these names (with request.ts's REFUSED listed on every request) cost 5.8k
 * of gateway-responses' 157.2k instructions a request (callgrind, issue 17).
 */
function path(where: string, i: number): string {
  return `${where}.${i}`;
}

function message(item: Item, where: string, i: number): Message {
  const role = item.role;
  if (typeof role !== 'string' || !ROLES.has(role)) throw errors.badRequest(`Invalid '${path(where, i)}.role': expected user, assistant, system or developer`);
  // developer is system for every provider that is not OpenAI's newest models.
  const chatRole = role === 'developer' ? 'system' : role;
  const content = item.content;
  if (typeof content === 'string') return { role: chatRole, content };
  if (!Array.isArray(content)) throw errors.badRequest(`Invalid '${path(where, i)}.content': expected a string or an array of content parts`);
  const parts: Part[] = [];
  let texts = true;
  for (let j = 0; j < content.length; j++) {
    const p = part(content[j] as Part, where, i, j);
    if (p.type !== 'text') texts = false;
    parts.push(p);
  }
  // Only user messages take images; the others are plain text for every provider.
  if (chatRole !== 'user' && !texts) throw errors.badRequest(`Invalid '${path(where, i)}.content': only user messages may carry images`);
  if (texts && parts.length === 1) return { role: chatRole, content: parts[0].text as string };
  if (texts && chatRole !== 'user') return { role: chatRole, content: parts.map((p) => p.text as string).join('') };
  return { role: chatRole, content: parts };
}

/** Part `j` of item `i`'s content. */
function part(p: Part, where: string, i: number, j: number): Part {
  if (p === null || typeof p !== 'object') throw errors.badRequest(`Invalid '${partPath(where, i, j)}': expected a content part object`);
  switch (p.type) {
    case 'input_text':
    case 'output_text':
      if (typeof p.text !== 'string') throw errors.badRequest(`Invalid '${partPath(where, i, j)}.text': expected a string`);
      return { type: 'text', text: p.text };
    case 'refusal':
      if (typeof p.refusal !== 'string') throw errors.badRequest(`Invalid '${partPath(where, i, j)}.refusal': expected a string`);
      return { type: 'text', text: p.refusal };
    case 'input_image': {
      if (typeof p.image_url !== 'string' || p.image_url.length === 0) {
        throw errors.badRequest(`Invalid '${partPath(where, i, j)}': images are taken as image_url (an https or data: URL); file_id needs OpenAI's file store`);
      }
      const image: Part = { url: p.image_url };
      if (typeof p.detail === 'string') image.detail = p.detail;
      return { type: 'image_url', image_url: image };
    }
    default:
      throw errors.badRequest(`Invalid '${partPath(where, i, j)}.type': content part '${String(p.type)}' is not supported (input_text, output_text, input_image)`);
  }
}

function partPath(where: string, i: number, j: number): string {
  return `${path(where, i)}.content.${j}`;
}

// An assistant turn's function calls go on one assistant message, as chat completions writes them.
function functionCall(item: Item, out: Message[], where: string, i: number): void {
  if (typeof item.call_id !== 'string' || item.call_id.length === 0) throw errors.badRequest(`Invalid '${path(where, i)}.call_id': expected a string`);
  if (typeof item.name !== 'string' || item.name.length === 0) throw errors.badRequest(`Invalid '${path(where, i)}.name': expected a string`);
  if (typeof item.arguments !== 'string') throw errors.badRequest(`Invalid '${path(where, i)}.arguments': expected a JSON string`);
  const call = { id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } };
  const last = out[out.length - 1];
  if (last !== undefined && last.role === 'assistant') {
    ((last.tool_calls ??= []) as unknown[]).push(call);
    if (last.content === '') last.content = null;
  } else {
    out.push({ role: 'assistant', content: null, tool_calls: [call] });
  }
}

function functionOutput(item: Item, where: string, i: number): Message {
  if (typeof item.call_id !== 'string' || item.call_id.length === 0) throw errors.badRequest(`Invalid '${path(where, i)}.call_id': expected a string`);
  const output = item.output;
  let content: string;
  if (typeof output === 'string') content = output;
  else if (Array.isArray(output)) {
    content = output.map((p: Part, j) => {
      if (p?.type !== 'input_text' || typeof p.text !== 'string') {
        throw errors.badRequest(`Invalid '${path(where, i)}.output.${j}': only input_text parts are supported in a function_call_output`);
      }
      return p.text;
    }).join('');
  } else throw errors.badRequest(`Invalid '${path(where, i)}.output': expected a string`);
  return { role: 'tool', tool_call_id: item.call_id, content };
}
