import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { checkBody, parseJsonObject } from '../../domain/json-body.js';
import type { LiteralTable } from '../../lib/json-literals.js';
import { errors } from '../../errors/catalog.js';
import { readExtensions, type Extensions } from '../../domain/extensions.js';

// What the translation relies on; the blocks' own fields are checked as they are read, with
// messages naming the block (Anthropic answers a bad body with 400 invalid_request_error too).
const Block = Type.Object({ type: Type.String({ minLength: 1 }) });
const Content = Type.Union([Type.String(), Type.Array(Block)]);
export const MessagesBodySchema = Type.Object({
  model: Type.String({ minLength: 1 }),
  max_tokens: Type.Integer({ minimum: 1 }),
  // `system` in messages: Claude Code's mid-conversation system messages (beta mid-conversation-system-2026-04-07).
  messages: Type.Array(Type.Object({ role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('system')]), content: Content }), { minItems: 1 }),
  system: Type.Optional(Type.Union([Type.String(), Type.Array(Block)])),
  stream: Type.Optional(Type.Boolean()),
  stop_sequences: Type.Optional(Type.Array(Type.String())),
  temperature: Type.Optional(Type.Number()),
  top_p: Type.Optional(Type.Number()),
  top_k: Type.Optional(Type.Integer()),
  metadata: Type.Optional(Type.Object({ user_id: Type.Optional(Type.Union([Type.String(), Type.Null()])) })),
  tools: Type.Optional(Type.Array(Type.Object({ name: Type.String({ minLength: 1 }), type: Type.Optional(Type.String()) }))),
  tool_choice: Type.Optional(Type.Object({ type: Type.String() })),
});
/** count_tokens takes the same body without max_tokens. */
export const CountTokensBodySchema = Type.Omit(MessagesBodySchema, ['max_tokens', 'stream']);

export const MESSAGES_CHECK = TypeCompiler.Compile(MessagesBodySchema);
const COUNT_CHECK = TypeCompiler.Compile(CountTokensBodySchema);

type Obj = Record<string, unknown>;
type ChatMessage = Obj & { role: string };

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * A Messages request as the data plane takes it (its InferenceBody, which this matches field for
 * field): the chat body every adapter takes, and the client's own body for an Anthropic route.
 */
export interface MessagesAsChat {
  payload: Obj;
  model: string;
  stream: boolean;
  maxTokens: number | null;
  bytes: number;
  ext: Extensions;
  raw: null;
  native: { format: 'anthropic-messages'; payload: Obj; headers: Record<string, string> } | null;
}

/** The headers of the client's that an Anthropic route is sent: its anthropic-beta header, checked (none when it sent none). */
export function betaHeaders(beta: string): Record<string, string> {
  return beta === '' ? NO_HEADERS : { 'anthropic-beta': anthropicBetaHeader(beta) };
}

/** Beta flag names, comma-separated: visible ASCII only, as it becomes a header of the upstream request. */
export function anthropicBetaHeader(v: string): string {
  const t = v.trim();
  if (!/^[\x21-\x2b\x2d-\x7e]+(?:[ \t]*,[ \t]*[\x21-\x2b\x2d-\x7e]+)*$/.test(t) || t.length > 1024) {
    throw errors.badRequest("Invalid 'anthropic-beta' header: expected comma-separated beta names");
  }
  return t;
}

/**
 * A Messages body parsed and checked (400 bad_request naming the field), its extensions read and
 * taken out, and `beta` (the client's `anthropic-beta` header, '' when absent) checked: what a
 * route whose provider speaks Messages (Anthropic) is sent, and what translateMessages turns
 * into chat completions for any other route.
 */
export interface MessagesRequest {
  body: Obj;
  ext: Extensions;
  forCount: boolean;
  /** The header a native route is sent with the body. */
  headers: Record<string, string>;
  /** What the body's placeholders stand for, when it was decoded with its long strings left as literals (lib/json-literals.ts). */
  literals: LiteralTable | null;
}

export function readMessages(raw: Buffer, forCount = false, beta = ''): MessagesRequest {
  return messagesRequest(parseJsonObject(raw.toString('utf8'), forCount ? COUNT_CHECK : MESSAGES_CHECK), forCount, beta, null);
}

/** readMessages for a body already decoded, perhaps with literals left (lib/json-literals.ts): the schema checked, extensions read. */
export function messagesRequest(body: Obj, forCount: boolean, beta: string, literals: LiteralTable | null): MessagesRequest {
  if (literals !== null) checkBody(forCount ? COUNT_CHECK : MESSAGES_CHECK, body);
  const ext = readExtensions(body);
  return { body, ext, forCount, headers: betaHeaders(beta), literals };
}

/**
 * A Messages API body → the chat-completions body every provider adapter takes. Fields with no
 * chat counterpart are dropped, as docs/formats/messages.md lists: `thinking`, `top_k`,
 * `cache_control`, `service_tier`, `container`, `mcp_servers`. Throws 400 bad_request naming
 * the field for anything it cannot translate. (`output_config`, `context_management`, as Claude Code sends
 * them, are dropped too; an Anthropic route is sent the body whole.)
 */
export function translateMessages(r: MessagesRequest): Obj {
  const body = r.body;
  const messages: ChatMessage[] = [];
  const system = systemText(body);
  if (system !== null) messages.push({ role: 'system', content: system });
  (body.messages as Obj[]).forEach((m, i) => {
    if (m.role === 'assistant') messages.push(assistantMessage(m.content as string | Obj[], i, r.literals));
    else if (m.role === 'system') messages.push({ role: 'system', content: typeof m.content === 'string' ? m.content : textOf(m.content as Obj[], `messages.${i}.content`) });
    else messages.push(...userMessages(m.content as string | Obj[], i));
  });
  return { model: body.model, messages, ...chatMembers(body, r.forCount) };
}

/** The chat system message's text for `system`; null when there is none (absent or empty). */
function systemText(body: Obj): string | null {
  if (body.system === undefined) return null;
  const text = typeof body.system === 'string' ? body.system : textOf(body.system as Obj[], 'system');
  return text.length > 0 ? text : null;
}

/** The chat request's members after `model` and `messages`. */
export function chatMembers(body: Obj, forCount: boolean): Obj {
  const stream = body.stream === true;
  const chat: Obj = {};
  if (!forCount) chat.max_tokens = body.max_tokens;
  if (stream) {
    chat.stream = true;
    // Usage arrives in the chat stream's last chunk only when asked for; message_delta needs it.
    chat.stream_options = { include_usage: true };
  }
  if (body.stop_sequences !== undefined && (body.stop_sequences as string[]).length > 0) chat.stop = body.stop_sequences;
  if (body.temperature !== undefined) chat.temperature = body.temperature;
  if (body.top_p !== undefined) chat.top_p = body.top_p;
  const user = (body.metadata as { user_id?: unknown } | undefined)?.user_id;
  if (typeof user === 'string') chat.user = user;
  if (body.tools !== undefined && (body.tools as Obj[]).length > 0) chat.tools = (body.tools as Obj[]).map(tool);
  if (body.tool_choice !== undefined) Object.assign(chat, toolChoice(body.tool_choice as Obj, chat.tools !== undefined));
  return chat;
}

/** Both at once (count_tokens, which estimates on the chat body; the tests). */
export function messagesToChat(raw: Buffer, forCount = false, beta = ''): MessagesAsChat {
  const r = readMessages(raw, forCount, beta);
  const body = r.body;
  return {
    payload: translateMessages(r), model: body.model as string, stream: body.stream === true, maxTokens: forCount ? null : body.max_tokens as number,
    bytes: raw.length, ext: r.ext, raw: null,
    // An Anthropic route is sent the client's own body (extension fields already taken out).
    native: forCount ? null : { format: 'anthropic-messages', payload: body, headers: r.headers },
  };
}

/** The stop sequences asked for, to tell `stop_sequence` from `end_turn` in the answer. */
export function stopSequencesOf(chat: Obj): string[] {
  return Array.isArray(chat.stop) ? chat.stop as string[] : [];
}

function userMessages(content: string | Obj[], i: number): ChatMessage[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  // tool_result blocks become `tool` messages, which chat wants right after the assistant's
  // tool calls: they go first, and the user's other blocks follow as one user message.
  const out: ChatMessage[] = [];
  const parts: Obj[] = [];
  content.forEach((b, j) => {
    switch (b.type) {
      case 'text': parts.push({ type: 'text', text: blockString(b, 'text', i, j) }); break;
      case 'image': parts.push(imagePart(b, blockPath(i, j))); break;
      case 'tool_result': toolResult(b, i, j, out); break;
      // Reasoning of an earlier turn: chat has no place for it.
      case 'thinking': case 'redacted_thinking': break;
      default: throw unsupported(b.type, blockPath(i, j));
    }
  });
  if (parts.length > 0) out.push({ role: 'user', content: allText(parts) ? parts.map((x) => x.text).join('\n\n') : parts });
  return out;
}

function assistantMessage(content: string | Obj[], i: number, literals: LiteralTable | null): ChatMessage {
  if (typeof content === 'string') return { role: 'assistant', content };
  const texts: string[] = [];
  const calls: Obj[] = [];
  content.forEach((b, j) => {
    switch (b.type) {
      case 'text': texts.push(blockString(b, 'text', i, j)); break;
      case 'tool_use': {
        const input = b.input ?? {};
        if (typeof input !== 'object' || Array.isArray(input)) throw errors.badRequest(`Invalid '${blockPath(i, j)}.input': expected an object`);
        // The input's text, not its placeholders: within JSON text a string is escaped once more.
        const args = JSON.stringify(literals === null ? input : literals.expand(input));
        calls.push({ id: blockString(b, 'id', i, j), type: 'function', function: { name: blockString(b, 'name', i, j), arguments: args } });
        break;
      }
      case 'thinking': case 'redacted_thinking': break;
      default: throw unsupported(b.type, blockPath(i, j));
    }
  });
  const m: ChatMessage = { role: 'assistant', content: texts.length > 0 ? texts.join('') : null };
  if (calls.length > 0) m.tool_calls = calls;
  else if (m.content === null) m.content = '';
  return m;
}

/**
 * One tool_result → a `tool` message with its text. Chat has no error flag, so an error result
 * says so in words; images in a result (a `tool` message cannot carry them) follow as a user message.
 */
function toolResult(b: Obj, i: number, j: number, out: ChatMessage[]): void {
  const id = blockString(b, 'tool_use_id', i, j);
  let text = '';
  const images: Obj[] = [];
  if (typeof b.content === 'string') text = b.content;
  else if (Array.isArray(b.content)) {
    const texts: string[] = [];
    (b.content as Obj[]).forEach((c, k) => {
      if (c?.type === 'text') texts.push(blockString(c, 'text', i, j, k));
      else if (c?.type === 'image') images.push(imagePart(c, blockPath(i, j, k)));
      else throw unsupported(c?.type, blockPath(i, j, k));
    });
    text = texts.join('\n\n');
  } else if (b.content !== undefined) throw errors.badRequest(`Invalid '${blockPath(i, j)}.content': expected a string or an array of blocks`);
  if (b.is_error === true) text = `Error: ${text}`;
  out.push({ role: 'tool', tool_call_id: id, content: text });
  if (images.length > 0) out.push({ role: 'user', content: images });
}

function imagePart(b: Obj, where: string): Obj {
  const s = b.source as Obj | undefined;
  if (s?.type === 'base64') {
    return { type: 'image_url', image_url: { url: `data:${str(s.media_type, `${where}.source.media_type`)};base64,${str(s.data, `${where}.source.data`)}` } };
  }
  if (s?.type === 'url') return { type: 'image_url', image_url: { url: str(s.url, `${where}.source.url`) } };
  throw errors.badRequest(`Invalid '${where}.source': images are supported as base64 or url sources`);
}

function tool(t: Obj, i: number): Obj {
  // Anthropic's server tools (web_search_…, bash_…, text_editor_…) run at Anthropic; no other provider has them.
  if (t.type !== undefined && t.type !== 'custom') throw unsupported(t.type, `tools.${i}`, 'tool type');
  const fn: Obj = { name: t.name, parameters: t.input_schema ?? { type: 'object', properties: {} } };
  if (typeof t.description === 'string') fn.description = t.description;
  return { type: 'function', function: fn };
}

function toolChoice(c: Obj, hasTools: boolean): Obj {
  const out: Obj = {};
  switch (c.type) {
    case 'auto': out.tool_choice = 'auto'; break;
    case 'any': out.tool_choice = 'required'; break;
    case 'none': out.tool_choice = 'none'; break;
    case 'tool': out.tool_choice = { type: 'function', function: { name: str(c.name, 'tool_choice.name') } }; break;
    default: throw errors.badRequest("Invalid 'tool_choice.type': expected auto, any, tool or none");
  }
  if (!hasTools) return {};
  if (c.disable_parallel_tool_use === true && c.type !== 'none') out.parallel_tool_calls = false;
  return out;
}

function textOf(blocks: Obj[], where: string): string {
  return blocks.map((b, j) => {
    if (b.type !== 'text') throw unsupported(b.type, `${where}.${j}`);
    return str(b.text, `${where}.${j}.text`);
  }).join('\n\n');
}

function allText(parts: Obj[]): boolean {
  for (const p of parts) if (p.type !== 'text') return false;
  return true;
}

/**
 * Where block j of message i is (block k of its content, for a tool_result's): made only for an
 * error. Made for every block, these paths cost about a seventh of translating an agent's turn
 * (translateMessages on the bench's 200 KB Messages turn 47 → 40–45 µs, node).
 */
function blockPath(i: number, j: number, k = -1): string {
  return k < 0 ? `messages.${i}.content.${j}` : `messages.${i}.content.${j}.content.${k}`;
}

/** A block's string member, or a 400 saying where it is. */
function blockString(b: Obj, key: string, i: number, j: number, k = -1): string {
  const v = b[key];
  if (typeof v !== 'string') throw errors.badRequest(`Invalid '${blockPath(i, j, k)}.${key}': expected a string`);
  return v;
}

function str(v: unknown, where: string): string {
  if (typeof v !== 'string') throw errors.badRequest(`Invalid '${where}': expected a string`);
  return v;
}

function unsupported(type: unknown, where: string, what = 'content block type'): Error {
  return errors.badRequest(`Unsupported ${what} '${String(type)}' at '${where}': the gateway translates text, image, tool_use and tool_result (docs/formats/messages.md)`);
}
