import { errors } from '../../errors/catalog.js';
import { toConversation } from './messages.js';

/**
 * `max_tokens` when the request gives none: Anthropic requires one, OpenAI does not. 4096 is
 * under every catalog Claude model's output limit (Claude 3.5 Haiku's is 8192, the others'
 * 32000 or more) and long enough for a full answer; a client that wants more says so.
 */
export const DEFAULT_MAX_TOKENS = 4096;

/**
 * An OpenAI chat-completions payload → the body of Anthropic's `POST /v1/messages`. Fields with
 * no Anthropic counterpart (`n` aside, refused when above 1) are left out rather than refused,
 * as OpenAI-compatible providers ignore what they do not support: penalties, `seed`, `logprobs`,
 * `logit_bias`, `response_format`, `reasoning_effort`, `stream_options` (Anthropic always reports
 * usage).
 */
export function toMessagesRequest(payload: Record<string, unknown>, upstreamModel: string): Record<string, unknown> {
  if (typeof payload.n === 'number' && payload.n > 1) throw errors.badRequest("Invalid 'n': Anthropic models give one choice per request");
  const { system, messages } = toConversation(payload.messages as unknown[]);
  const body: Record<string, unknown> = {
    model: upstreamModel,
    max_tokens: positiveInt(payload.max_completion_tokens) ?? positiveInt(payload.max_tokens) ?? DEFAULT_MAX_TOKENS,
    messages,
  };
  if (system.length > 0) body.system = system;
  const stop = stopSequences(payload.stop);
  if (stop !== null) body.stop_sequences = stop;
  for (const f of ['temperature', 'top_p', 'top_k'] as const) if (typeof payload[f] === 'number') body[f] = payload[f];
  if (payload.stream === true) body.stream = true;
  if (typeof payload.user === 'string' && payload.user !== '') body.metadata = { user_id: payload.user };
  const tools = toTools(payload.tools);
  if (tools !== null) {
    body.tools = tools;
    const choice = toToolChoice(payload.tool_choice, payload.parallel_tool_calls);
    if (choice !== null) body.tool_choice = choice;
  }
  return body;
}

export function positiveInt(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null;
}

export function stopSequences(stop: unknown): string[] | null {
  if (stop === undefined || stop === null) return null;
  const list = typeof stop === 'string' ? [stop] : stop;
  if (!Array.isArray(list) || !list.every((s) => typeof s === 'string')) throw errors.badRequest("Invalid 'stop': expected a string or an array of strings");
  return list.length === 0 ? null : list as string[];
}

function toTools(tools: unknown): Record<string, unknown>[] | null {
  if (tools === undefined || tools === null) return null;
  if (!Array.isArray(tools)) throw errors.badRequest("Invalid 'tools': expected an array");
  if (tools.length === 0) return null;
  return tools.map((t, i) => {
    const tool = t as { type?: unknown; function?: Record<string, unknown>; cache_control?: unknown } | null;
    const fn = tool?.function;
    if (tool?.type !== 'function' || typeof fn?.name !== 'string') {
      throw errors.badRequest(`Invalid 'tools[${i}]': Anthropic models take function tools ({"type":"function","function":{"name",…}})`);
    }
    const out: Record<string, unknown> = { name: fn.name };
    if (typeof fn.description === 'string') out.description = fn.description;
    // Anthropic requires a schema; OpenAI allows a function with no parameters.
    out.input_schema = fn.parameters ?? { type: 'object', properties: {} };
    if (tool.cache_control !== undefined) out.cache_control = tool.cache_control;
    return out;
  });
}

/** auto → auto, none → none, required → any, a named function → tool; `parallel_tool_calls: false` rides along. */
function toToolChoice(choice: unknown, parallel: unknown): Record<string, unknown> | null {
  let out: Record<string, unknown> | null;
  if (choice === undefined || choice === null) out = null;
  else if (choice === 'auto' || choice === 'none') out = { type: choice };
  else if (choice === 'required') out = { type: 'any' };
  else if (typeof choice === 'object' && typeof (choice as { function?: { name?: unknown } }).function?.name === 'string') {
    out = { type: 'tool', name: (choice as { function: { name: string } }).function.name };
  } else throw errors.badRequest("Invalid 'tool_choice': expected auto, none, required or {\"type\":\"function\",\"function\":{\"name\"}}");
  if (parallel === false && out?.type !== 'none') {
    out ??= { type: 'auto' };
    out.disable_parallel_tool_use = true;
  }
  return out;
}
