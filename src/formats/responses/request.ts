import { Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { errors } from '../../errors/catalog.js';
import { inputItems, itemsToMessages, type Item } from './items.js';

const Nullable = <T extends TSchema>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

/**
 * What the gateway checks of a Responses request (POST /v1/responses) before translating it;
 * fields not named here are either translated below or refused with a pointed 400.
 */
export const ResponsesBodySchema = Type.Object({
  model: Type.String({ minLength: 1 }),
  input: Type.Optional(Type.Union([Type.String(), Type.Array(Type.Object({}, { additionalProperties: true }))])),
  instructions: Nullable(Type.String()),
  max_output_tokens: Nullable(Type.Integer({ minimum: 1 })),
  temperature: Nullable(Type.Number({ minimum: 0, maximum: 2 })),
  top_p: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
  tools: Type.Optional(Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true }))),
  tool_choice: Type.Optional(Type.Union([Type.String(), Type.Object({ type: Type.String() }, { additionalProperties: true })])),
  text: Type.Optional(Type.Object({
    format: Type.Optional(Type.Object({ type: Type.String() }, { additionalProperties: true })),
  }, { additionalProperties: true })),
  metadata: Type.Optional(Type.Union([Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 512 }), { maxProperties: 16 }), Type.Null()])),
  parallel_tool_calls: Nullable(Type.Boolean()),
  user: Type.Optional(Type.String()),
  stream: Nullable(Type.Boolean()),
  store: Nullable(Type.Boolean()),
  previous_response_id: Nullable(Type.String({ minLength: 1 })),
}, { additionalProperties: true });

export const RESPONSES_CHECK = TypeCompiler.Compile(ResponsesBodySchema);

/** The `text` a response echoes when the request gave none: one object, which response-json.ts writes as a constant. */
export const DEFAULT_TEXT = Object.freeze({ format: Object.freeze({ type: 'text' }) });
/** The `metadata` a response echoes when the request gave none, also written as a constant. */
export const NO_METADATA: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** The request fields a `response` object repeats back. */
export interface ResponseEcho {
  instructions: string | null;
  max_output_tokens: number | null;
  temperature: number | null;
  top_p: number | null;
  tools: unknown[];
  tool_choice: unknown;
  text: unknown;
  metadata: Record<string, string>;
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  store: boolean;
  user?: string;
  reasoning: unknown;
}

export interface TranslatedRequest {
  chat: Record<string, unknown>;
  /** This request's own input, as items (a string input becomes one user message). */
  input: Item[];
  echo: ResponseEcho;
}

// Hosted tools run on OpenAI's side (search, files, code, computer): no other provider has them.
// Clients such as Codex send some of them on every request, so they are left out of the chat
// request rather than refused: the model answers without them. Forcing one is refused.
const CLIENT_TOOL = 'function';

// Fields that cannot be honoured on every provider and would change the answer if ignored.
const REFUSED: Record<string, string> = {
  background: 'background responses are not supported: the gateway answers while the request is open (use stream: true for long answers)',
  conversation: "conversations are not supported: continue with previous_response_id instead",
  prompt: 'stored prompt templates are not supported: send instructions and input instead',
};

/**
 * A Responses request body (extension fields already read) → the chat-completions body every
 * provider adapter takes. `history` is the stored conversation of previous_response_id.
 */
export function responsesToChat(p: Record<string, unknown>, history: Item[]): TranslatedRequest {
  refuseUnsupported(p);
  const messages: Record<string, unknown>[] = [];
  const instructions = (p.instructions ?? null) as string | null;
  if (instructions !== null && instructions !== '') messages.push({ role: 'system', content: instructions });
  itemsToMessages(history, messages, 'previous_response_id');
  const input = inputItems(p.input);
  itemsToMessages(input, messages, 'input');
  if (messages.length === 0 || messages.every((m) => m.role === 'system')) throw noMessages();
  const { options, echo } = chatOptions(p);
  return { chat: { model: p.model, messages, ...options }, input, echo };
}

/** The 400 for a request with nothing but system messages to send. */
function noMessages(): Error {
  return errors.badRequest("Invalid 'input': give at least one message (a string, or message items)");
}

/** REFUSED's pairs, listed once: Object.entries made on every request cost ~3k instructions of a 1 KB one (callgrind, issue 17). */
const REFUSED_FIELDS = Object.entries(REFUSED);

/** Refuses the fields no provider but OpenAI can honour (REFUSED), before anything else is read. */
export function refuseUnsupported(p: Record<string, unknown>): void {
  for (const [field, why] of REFUSED_FIELDS) {
    const v = p[field];
    if (v !== undefined && v !== null && v !== false) throw errors.badRequest(`Unsupported '${field}': ${why}`);
  }
}

/** The chat request's members after `model` and `messages`, and what the response echoes of the request. */
export function chatOptions(p: Record<string, unknown>): { options: Record<string, unknown>; echo: ResponseEcho } {
  const options: Record<string, unknown> = {};
  const instructions = (p.instructions ?? null) as string | null;
  copy(p, 'temperature', options, 'temperature');
  copy(p, 'top_p', options, 'top_p');
  copy(p, 'max_output_tokens', options, 'max_tokens');
  if (typeof p.user === 'string') options.user = p.user;
  const tools = functionTools(p.tools as Record<string, unknown>[] | undefined);
  if (tools.length > 0) {
    options.tools = tools;
    if (p.tool_choice !== undefined && p.tool_choice !== null) options.tool_choice = toolChoice(p.tool_choice);
    if (typeof p.parallel_tool_calls === 'boolean') options.parallel_tool_calls = p.parallel_tool_calls;
  } else if (p.tool_choice !== undefined && p.tool_choice !== null && p.tool_choice !== 'auto' && p.tool_choice !== 'none') {
    if (p.tool_choice === 'required' || (p.tool_choice as { type?: unknown }).type === 'function') {
      throw errors.badRequest("Invalid 'tool_choice': it requires a tool, but no function tools were given");
    }
    toolChoice(p.tool_choice);
  }
  const format = responseFormat((p.text as { format?: Record<string, unknown> } | undefined)?.format);
  if (format !== null) options.response_format = format;
  const reasoning = p.reasoning as { effort?: unknown; summary?: unknown; generate_summary?: unknown } | null | undefined;
  if (reasoning !== undefined && reasoning !== null) {
    if (typeof reasoning !== 'object') throw errors.badRequest("Invalid 'reasoning': expected an object");
    const summary = reasoning.summary ?? reasoning.generate_summary;
    if (summary === 'concise' || summary === 'detailed') {
      throw errors.badRequest(`Unsupported 'reasoning.summary': '${summary}' summaries cannot be produced from providers' chat answers; use 'auto' or leave it out`);
    }
    if (typeof reasoning.effort === 'string' && reasoning.effort !== 'none') options.reasoning_effort = reasoning.effort;
  }
  if (p.stream === true) {
    options.stream = true;
    // Usage reaches the final response.completed event only if the chat stream carries it.
    options.stream_options = { include_usage: true };
  }

  const echo: ResponseEcho = {
    instructions,
    max_output_tokens: (p.max_output_tokens ?? null) as number | null,
    temperature: (p.temperature ?? null) as number | null,
    top_p: (p.top_p ?? null) as number | null,
    tools: (p.tools ?? []) as unknown[],
    tool_choice: p.tool_choice ?? 'auto',
    text: p.text ?? DEFAULT_TEXT,
    metadata: (p.metadata ?? NO_METADATA) as Record<string, string>,
    parallel_tool_calls: p.parallel_tool_calls !== false,
    previous_response_id: (p.previous_response_id ?? null) as string | null,
    store: p.store !== false,
    reasoning: p.reasoning ?? null,
  };
  if (typeof p.user === 'string') echo.user = p.user;
  return { options, echo };
}

function copy(from: Record<string, unknown>, key: string, to: Record<string, unknown>, as: string): void {
  const v = from[key];
  if (v !== undefined && v !== null) to[as] = v;
}

/** The Responses API's flat function tools → chat's nested `function` object; hosted tools are left out. */
function functionTools(tools: Record<string, unknown>[] | undefined): unknown[] {
  if (tools === undefined) return [];
  const out: unknown[] = [];
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i];
    if (t.type !== CLIENT_TOOL) continue;
    if (typeof t.name !== 'string' || t.name.length === 0) throw errors.badRequest(`Invalid 'tools.${i}.name': expected a function name`);
    const fn: Record<string, unknown> = { name: t.name };
    if (typeof t.description === 'string') fn.description = t.description;
    if (t.parameters !== undefined && t.parameters !== null) fn.parameters = t.parameters;
    if (typeof t.strict === 'boolean') fn.strict = t.strict;
    out.push({ type: 'function', function: fn });
  }
  return out;
}

function toolChoice(c: unknown): unknown {
  if (c === 'auto' || c === 'none' || c === 'required') return c;
  const o = c as { type?: unknown; name?: unknown };
  if (typeof o === 'object' && o.type === 'function' && typeof o.name === 'string') return { type: 'function', function: { name: o.name } };
  throw errors.badRequest("Unsupported 'tool_choice': expected auto, none, required or {type: 'function', name}; hosted tools (web search, file search, code interpreter…) run only on OpenAI");
}

function responseFormat(f: Record<string, unknown> | undefined): unknown {
  if (f === undefined || f.type === 'text') return null;
  if (f.type === 'json_object') return { type: 'json_object' };
  if (f.type === 'json_schema') {
    if (typeof f.name !== 'string' || f.schema === null || typeof f.schema !== 'object') {
      throw errors.badRequest("Invalid 'text.format': a json_schema format needs a name and a schema object");
    }
    const js: Record<string, unknown> = { name: f.name, schema: f.schema };
    if (typeof f.description === 'string') js.description = f.description;
    if (typeof f.strict === 'boolean') js.strict = f.strict;
    return { type: 'json_schema', json_schema: js };
  }
  throw errors.badRequest(`Invalid 'text.format.type': '${String(f.type)}' (text, json_object or json_schema)`);
}
