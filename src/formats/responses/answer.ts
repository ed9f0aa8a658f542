import { randomHex } from '../../lib/random-hex.js';
import type { ResponseEcho } from './request.js';

/** What one Responses request's answers share: its id, creation time and the fields it echoes. */
export interface ResponseContext {
  id: string;
  /** Unix seconds. */
  createdAt: number;
  /** The catalog id the client asked for. */
  model: string;
  echo: ResponseEcho;
}

/** OpenAI's ids are a prefix and 48 hex digits (`resp_…`, `msg_…`, `fc_…`). */
export function itemId(prefix: string): string {
  return `${prefix}_${randomHex(24)}`;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/**
 * Chat usage → Responses usage. Both follow OpenAI's convention, which is the gateway's
 * canonical one: input counts cached tokens, output counts reasoning tokens.
 */
export function responseUsage(u: unknown): ResponseUsage | null {
  if (u === null || typeof u !== 'object') return null;
  const c = u as {
    prompt_tokens?: number; completion_tokens?: number; total_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number } | null; completion_tokens_details?: { reasoning_tokens?: number } | null;
  };
  const input = num(c.prompt_tokens);
  const output = num(c.completion_tokens);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: num(c.prompt_tokens_details?.cached_tokens) },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: num(c.completion_tokens_details?.reasoning_tokens) },
    total_tokens: typeof c.total_tokens === 'number' ? c.total_tokens : input + output,
  };
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/** finish_reason → the response's status and why it is incomplete. */
export function statusOf(finish: unknown): { status: ResponseStatus; incomplete: { reason: string } | null } {
  if (finish === 'length') return { status: 'incomplete', incomplete: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter') return { status: 'incomplete', incomplete: { reason: 'content_filter' } };
  return { status: 'completed', incomplete: null };
}

/** A `response` object in the order OpenAI writes its fields. */
export function responseObject(ctx: ResponseContext, status: ResponseStatus, output: unknown[], usage: ResponseUsage | null,
  incomplete: { reason: string } | null = null, error: { code: string; message: string } | null = null): Record<string, unknown> {
  const e = ctx.echo;
  const r: Record<string, unknown> = {
    id: ctx.id, object: 'response', created_at: ctx.createdAt, status, background: false, error, incomplete_details: incomplete,
    instructions: e.instructions, max_output_tokens: e.max_output_tokens, model: ctx.model, output,
    parallel_tool_calls: e.parallel_tool_calls, previous_response_id: e.previous_response_id,
    reasoning: e.reasoning ?? { effort: null, summary: null }, store: e.store, temperature: e.temperature, text: e.text,
    tool_choice: e.tool_choice, tools: e.tools, top_p: e.top_p, truncation: 'disabled', usage, metadata: e.metadata,
  };
  if (e.user !== undefined) r.user = e.user;
  return r;
}

export function messageItem(id: string, text: string, status: 'in_progress' | 'completed' | 'incomplete', refusal: string | null = null): Record<string, unknown> {
  const content: unknown[] = [];
  if (text.length > 0 || refusal === null) content.push(textPart(text));
  if (refusal !== null) content.push({ type: 'refusal', refusal });
  return { id, type: 'message', status, role: 'assistant', content };
}

export function textPart(text: string): Record<string, unknown> {
  return { type: 'output_text', annotations: [], logprobs: [], text };
}

export function functionCallItem(id: string, callId: string, name: string, args: string, status: 'in_progress' | 'completed'): Record<string, unknown> {
  return { id, type: 'function_call', status, arguments: args, call_id: callId, name };
}

export function reasoningItem(id: string, text: string): Record<string, unknown> {
  return { id, type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text }] };
}

interface ChatMessage {
  content?: string | null;
  refusal?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[];
}

/** A whole `chat.completion` (parsed) → the `response` object. */
export function chatToResponse(ctx: ResponseContext, chat: Record<string, unknown>): Record<string, unknown> {
  const choice = (Array.isArray(chat.choices) ? chat.choices[0] : undefined) as { message?: ChatMessage; finish_reason?: unknown } | undefined;
  const m = choice?.message ?? {};
  const { status, incomplete } = statusOf(choice?.finish_reason);
  const output: unknown[] = [];
  const reasoning = m.reasoning_content ?? m.reasoning;
  if (typeof reasoning === 'string' && reasoning.length > 0) output.push(reasoningItem(itemId('rs'), reasoning));
  const text = typeof m.content === 'string' ? m.content : '';
  const refusal = typeof m.refusal === 'string' && m.refusal.length > 0 ? m.refusal : null;
  const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
  if (text.length > 0 || refusal !== null || calls.length === 0) {
    output.push(messageItem(itemId('msg'), text, status === 'completed' ? 'completed' : 'incomplete', refusal));
  }
  for (const c of calls) {
    output.push(functionCallItem(itemId('fc'), c.id ?? itemId('call'), c.function?.name ?? '', c.function?.arguments ?? '', 'completed'));
  }
  return responseObject(ctx, status, output, responseUsage(chat.usage), incomplete);
}
