import { randomBytes } from 'node:crypto';
import { chatUsage, type GeminiUsage } from './usage.js';

type Json = Record<string, unknown>;

/** Gemini's `GenerateContentResponse`, the fields read here. */
export interface GeminiResponse {
  candidates?: GeminiCandidate[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: GeminiUsage;
  modelVersion?: string;
  responseId?: string;
  error?: unknown;
}

export interface GeminiCandidate {
  index?: number;
  content?: { role?: string; parts?: Json[] };
  finishReason?: string;
}

/** Reasons Gemini stopped because of its content policies: OpenAI's content_filter. */
const FILTERED = new Set(['SAFETY', 'RECITATION', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'IMAGE_SAFETY', 'LANGUAGE']);

/** Gemini's finishReason as OpenAI's; a candidate that called a function finished with tool_calls. */
export function finishReason(reason: string, calledTools: boolean): string {
  if (reason === 'MAX_TOKENS') return 'length';
  if (FILTERED.has(reason)) return 'content_filter';
  return calledTools ? 'tool_calls' : 'stop';
}

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A candidate's answer text (its thoughts left out) and its function calls, with ids made here (Gemini gives none). */
export function readParts(parts: readonly Json[] | undefined): { text: string; calls: ToolCall[] } {
  let text = '';
  const calls: ToolCall[] = [];
  for (const p of parts ?? []) {
    if (typeof p.text === 'string' && p.thought !== true) text += p.text;
    const fc = p.functionCall as { name?: unknown; args?: unknown } | undefined;
    if (fc !== undefined && typeof fc.name === 'string') {
      calls.push({ id: callId(), type: 'function', function: { name: fc.name, arguments: JSON.stringify(fc.args ?? {}) } });
    }
  }
  return { text, calls };
}

export function callId(): string {
  return `call_${randomBytes(12).toString('base64url')}`;
}

export function completionId(responseId: unknown): string {
  return `chatcmpl-${typeof responseId === 'string' && responseId !== '' ? responseId : randomBytes(12).toString('base64url')}`;
}

/** Why a prompt Gemini refused outright (no candidates) produced no answer, for the message's `refusal`. */
export function blockedMessage(reason: string): string {
  return `Gemini blocked the prompt (promptFeedback.blockReason ${reason})`;
}

/**
 * A whole Gemini answer as an OpenAI `chat.completion`, usage last (the data plane finds it by
 * scanning for the last `"usage"` key). A prompt Gemini blocks has no candidates: it becomes one
 * choice with empty content, `finish_reason: "content_filter"` and the block reason in `refusal`.
 */
/** `answerModel`, when given, is the model the answer names in place of Gemini's. */
export function chatCompletion(r: GeminiResponse, model: string, answerModel?: string): Json {
  const choices: Json[] = [];
  const candidates = r.candidates ?? [];
  for (let i = 0; i < candidates.length; i++) {
    const c = candidates[i];
    const { text, calls } = readParts(c.content?.parts);
    const message: Json = { role: 'assistant', content: text === '' && calls.length > 0 ? null : text, refusal: null };
    if (calls.length > 0) message.tool_calls = calls;
    choices.push({
      index: typeof c.index === 'number' ? c.index : i, message, logprobs: null,
      finish_reason: finishReason(c.finishReason ?? 'STOP', calls.length > 0),
    });
  }
  if (choices.length === 0) {
    const reason = r.promptFeedback?.blockReason ?? 'OTHER';
    choices.push({
      index: 0, message: { role: 'assistant', content: '', refusal: blockedMessage(reason) }, logprobs: null, finish_reason: 'content_filter',
    });
  }
  // `created`: the answering side's wall time, as an OpenAI upstream stamps its own (adapters are handed no clock).
  const out: Json = {
    id: completionId(r.responseId), object: 'chat.completion', created: Math.floor(Date.now() / 1000),
    model: answerModel ?? r.modelVersion ?? model, choices,
  };
  if (r.usageMetadata !== undefined) out.usage = chatUsage(r.usageMetadata);
  return out;
}
