import { estimateCompletionTokens, estimatePromptTokens, tokensForBytes } from '../billing/token-estimate.js';
import type { TokenUsage } from '../lib/usage-scan.js';
import type { Endpoint } from '../providers/types.js';
import type { InferenceBody } from './inference-body.js';

/** The marker on an answer whose usage the gateway estimated (Groq's `x_groq` is the precedent). */
export const ESTIMATED_MARK = { usage_estimated: true } as const;
export const ESTIMATED_HEADER = 'x-gw-usage';

/**
 * Usage for an answer whose provider reported none, from the request and the text generated.
 * Output never exceeds the request's max_tokens, which the provider would not have exceeded.
 */
export function estimateUsage(endpoint: Endpoint, body: InferenceBody, textBytes: number): TokenUsage {
  return usageOf(endpoint, body, tokensForBytes(textBytes));
}

function usageOf(endpoint: Endpoint, body: InferenceBody, completion: number): TokenUsage {
  const cap = body.maxTokens;
  return {
    promptTokens: estimatePromptTokens(endpoint, body.payload),
    completionTokens: endpoint === 'embeddings' ? 0 : cap !== null && completion > cap ? cap : completion,
  };
}

/**
 * A whole answer without usage: the estimate, and the answer with a `usage` block (and the
 * marker) added so clients see what was billed. An answer that is not a JSON object is left
 * as it is and its bytes are counted as output.
 */
export function withEstimatedUsage(endpoint: Endpoint, body: InferenceBody, answer: Buffer): { usage: TokenUsage; answer: Buffer } {
  let doc: unknown;
  try {
    doc = JSON.parse(answer.toString('utf8'));
  } catch {
    doc = null;
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return { usage: estimateUsage(endpoint, body, answer.length), answer };
  const o = doc as Record<string, unknown>;
  const usage = usageOf(endpoint, body, endpoint === 'chat' ? estimateCompletionTokens(o) : 0);
  o.usage = usageJson(endpoint, usage);
  o.x_gw = ESTIMATED_MARK;
  return { usage, answer: Buffer.from(JSON.stringify(o)) };
}

function usageJson(endpoint: Endpoint, u: TokenUsage): Record<string, number> {
  return endpoint === 'chat'
    ? { prompt_tokens: u.promptTokens, completion_tokens: u.completionTokens, total_tokens: u.promptTokens + u.completionTokens }
    : { prompt_tokens: u.promptTokens, total_tokens: u.promptTokens };
}

const DATA = Buffer.from('data: {');

/**
 * The SSE event carrying an estimated usage, shaped like OpenAI's final usage chunk: same id,
 * created and model as the stream's first event, no choices.
 */
export function usageEvent(first: Buffer, usage: TokenUsage): string {
  let head: Record<string, unknown> = {};
  const at = first.indexOf(DATA);
  if (at === 0 || (at > 0 && first[at - 1] === 0x0a)) {
    const nl = first.indexOf(0x0a, at);
    try {
      head = JSON.parse(first.toString('utf8', at + 6, nl < 0 ? first.length : nl)) as Record<string, unknown>;
    } catch {
      head = {};
    }
  }
  const chunk = {
    id: head.id, object: 'chat.completion.chunk', created: head.created, model: head.model,
    choices: [], usage: usageJson('chat', usage), x_gw: ESTIMATED_MARK,
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}
