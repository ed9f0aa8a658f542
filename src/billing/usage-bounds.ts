import type { TokenUsage } from '../lib/usage-scan.js';
import type { TokenEndpoint } from '../providers/types.js';

/**
 * Tokens a provider may count beyond the bytes sent: chat-template framing (a few per message,
 * which the JSON around each message outweighs in bytes already) and a system prompt the
 * provider adds itself, such as a tool-use preamble (a few hundred tokens).
 */
export const PROMPT_ALLOWANCE = 1024;

/** What the request sent and asked for: the ceiling on what a provider may report for it. */
export interface UsageRequest {
  endpoint: TokenEndpoint;
  /** The request as an object, read only when a prompt is over its byte bound (a getter on a scanned body, decoded then). */
  request: { readonly payload: Record<string, unknown> };
  /** The request body's size in bytes. */
  bytes: number;
  maxTokens: number | null;
  /** The route's context window in tokens. */
  contextLength: number;
}

/**
 * Usage as reported, cut to what the request could have used; null when it is within bounds
 * (nearly always, and then nothing is allocated).
 *
 * - Prompt: at most the context window. A text-only request also at most its body's bytes plus
 *   PROMPT_ALLOWANCE, since every token stands for at least one byte of text sent. A request with
 *   an image, audio or file part is bounded by the context window alone: a short URL can stand for
 *   thousands of tokens.
 * - Completion: at most max_tokens (or max_completion_tokens) when given, and at most the context
 *   window; embeddings generate nothing.
 *
 * - Parts: cached reads plus cache writes at most the prompt, reasoning at most the completion
 *   (a provider bug otherwise, which would bill negative uncached input). Cache reads are kept
 *   first, so the cheaper class is the one believed.
 *
 * Every bound is an integer, so the cost of clamped usage is a few billion micro-rupees at most,
 * far inside the integers a double holds exactly.
 */
export function clampUsage(u: TokenUsage, r: UsageRequest): TokenUsage | null {
  const ctx = r.contextLength;
  const completionCap = r.endpoint === 'embeddings' ? 0 : r.maxTokens !== null && r.maxTokens < ctx ? r.maxTokens : ctx;
  const textCap = r.bytes + PROMPT_ALLOWANCE;
  const promptOk = u.promptTokens <= ctx && u.promptTokens <= textCap;
  const completionOk = u.completionTokens <= completionCap;
  if (promptOk && completionOk && u.cachedTokens + u.cacheWriteTokens <= u.promptTokens && u.reasoningTokens <= u.completionTokens) {
    return null;
  }
  let prompt = u.promptTokens;
  if (!promptOk) {
    const cap = textCap < ctx && !hasMedia(r.endpoint, r.request.payload) ? textCap : ctx;
    if (prompt > cap) prompt = cap;
  }
  const completion = completionOk ? u.completionTokens : completionCap;
  const cached = u.cachedTokens < prompt ? u.cachedTokens : prompt;
  const write = u.cacheWriteTokens < prompt - cached ? u.cacheWriteTokens : prompt - cached;
  const reasoning = u.reasoningTokens < completion ? u.reasoningTokens : completion;
  if (prompt === u.promptTokens && completion === u.completionTokens && cached === u.cachedTokens && write === u.cacheWriteTokens
    && reasoning === u.reasoningTokens) return null;
  return { promptTokens: prompt, completionTokens: completion, cachedTokens: cached, cacheWriteTokens: write, reasoningTokens: reasoning };
}

/** Whether a chat request has a content part other than text (image, audio, file). */
function hasMedia(endpoint: TokenEndpoint, payload: Record<string, unknown>): boolean {
  if (endpoint !== 'chat') return false;
  const messages = payload.messages;
  if (!Array.isArray(messages)) return false;
  for (const m of messages) {
    const content = (m as { content?: unknown } | null)?.content;
    if (!Array.isArray(content)) continue;
    for (const part of content) {
      if (part === null || typeof part !== 'object' || typeof (part as { text?: unknown }).text !== 'string') return true;
    }
  }
  return false;
}
