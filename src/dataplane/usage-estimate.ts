import { estimatePromptTokens, tokensForBytes } from '../billing/token-estimate.js';
import { generatedTextBytes, nullValueAt } from '../lib/json-text.js';
import type { TokenUsage } from '../lib/usage-scan.js';
import type { TokenEndpoint } from '../providers/types.js';
import type { InferenceBody } from './inference-body.js';

/** The marker on an answer whose usage the gateway estimated (Groq's `x_groq` is the precedent). */
const ESTIMATED_MARK = { usage_estimated: true } as const;
export const ESTIMATED_HEADER = 'x-gw-usage';

/**
 * Usage for an answer whose provider reported none, from the request and the text generated.
 * Output never exceeds the request's max_tokens, which the provider would not have exceeded.
 */
export function estimateUsage(endpoint: TokenEndpoint, body: InferenceBody, textBytes: number): TokenUsage {
  const completion = tokensForBytes(textBytes);
  const cap = body.maxTokens;
  return {
    promptTokens: estimatePromptTokens(endpoint, body.payload),
    completionTokens: endpoint === 'embeddings' ? 0 : cap !== null && completion > cap ? cap : completion,
    // Nothing is known of the provider's cache or reasoning: all input is billed as uncached.
    cachedTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  };
}

/**
 * A whole answer without usage: the estimate, and the answer with a `usage` block and the
 * marker spliced in (in place of `"usage": null`, else before the closing brace), so clients see
 * what was billed. Nothing else of the answer is touched or re-serialised, and nothing is parsed:
 * a 100 MB answer costs a linear scan, not a parse that would stall every other request. An
 * answer that is not a JSON object is left as it is and its bytes are counted as output.
 */
export function withEstimatedUsage(endpoint: TokenEndpoint, body: InferenceBody, answer: Buffer): { usage: TokenUsage; answer: Buffer } {
  const text = answer.toString('latin1');
  const open = skipSpace(text, 0, 1);
  const close = skipSpace(text, text.length - 1, -1);
  if (open < 0 || close <= open || text.charCodeAt(open) !== LBRACE || text.charCodeAt(close) !== RBRACE) {
    return { usage: estimateUsage(endpoint, body, answer.length), answer };
  }
  const usage = estimateUsage(endpoint, body, endpoint === 'chat' ? generatedTextBytes(text) : 0);
  const block = JSON.stringify(usageJson(endpoint, usage));
  const key = text.lastIndexOf('"usage"');
  const nullAt = key >= 0 ? nullValueAt(text, key + 7) : -1;
  const mark = `"x_gw":${MARK_JSON}`;
  if (nullAt >= 0) {
    return { usage, answer: Buffer.concat([answer.subarray(0, nullAt), Buffer.from(block), answer.subarray(nullAt + 4, close),
      Buffer.from(`,${mark}`), answer.subarray(close)]) };
  }
  const empty = skipSpace(text, close - 1, -1) === open;
  return { usage, answer: Buffer.concat([answer.subarray(0, close), Buffer.from(`${empty ? '' : ','}"usage":${block},${mark}`),
    answer.subarray(close)]) };
}

const LBRACE = 0x7b;
const RBRACE = 0x7d;
const MARK_JSON = JSON.stringify(ESTIMATED_MARK);

/** The first index from `i` (stepping by `step`) that is not JSON whitespace, or -1. */
function skipSpace(text: string, i: number, step: 1 | -1): number {
  for (; i >= 0 && i < text.length; i += step) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
  }
  return -1;
}

function usageJson(endpoint: TokenEndpoint, u: TokenUsage): Record<string, number> {
  return endpoint === 'chat'
    ? { prompt_tokens: u.promptTokens, completion_tokens: u.completionTokens, total_tokens: u.promptTokens + u.completionTokens }
    : { prompt_tokens: u.promptTokens, total_tokens: u.promptTokens };
}

const DATA = Buffer.from('data: {');

/**
 * The SSE event carrying an estimated usage, shaped like OpenAI's final usage chunk: same id,
 * created and model as the stream's first event (`model` in place of its model, when given), no
 * choices.
 */
export function usageEvent(first: Buffer, usage: TokenUsage, model: string | null = null): string {
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
    id: head.id, object: 'chat.completion.chunk', created: head.created, model: model ?? head.model,
    choices: [], usage: usageJson('chat', usage), x_gw: ESTIMATED_MARK,
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}
