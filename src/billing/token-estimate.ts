import type { TokenEndpoint } from '../providers/types.js';

/**
 * Token estimates, for when a provider reports no usage (and for the cost hold before a call).
 * Four UTF-8 bytes a token: OpenAI's rule of thumb for English, and about 0.75 tokens a
 * character for Devanagari (3 bytes each), between what older and newer tokenizers give.
 */
const BYTES_PER_TOKEN = 4;
/** Chat framing per message, and for priming the reply (OpenAI's published counting recipe). */
const PER_MESSAGE = 3;
export const REPLY_PRIMING = 3;
/** An image, audio or file part: a low-detail image's price, as the text in it is unknown. */
const PER_MEDIA_PART = 85;

export function tokensForBytes(bytes: number): number {
  return Math.ceil(bytes / BYTES_PER_TOKEN);
}

/** A chat message whose content is a string of `textBytes` UTF-8 bytes, as the prompt's estimate counts it. */
export function stringMessageTokens(textBytes: number): number {
  return PER_MESSAGE + tokensForBytes(textBytes);
}

const textTokens = (s: unknown): number => (typeof s === 'string' ? tokensForBytes(Buffer.byteLength(s, 'utf8')) : 0);

/** The prompt of a request as the provider would count it, near enough to bill. */
export function estimatePromptTokens(endpoint: TokenEndpoint, payload: Record<string, unknown>): number {
  return endpoint === 'chat' ? chatPromptTokens(payload) : embeddingInputTokens(payload.input);
}

function chatPromptTokens(p: Record<string, unknown>): number {
  let n = REPLY_PRIMING;
  for (const m of p.messages as Record<string, unknown>[]) {
    n += PER_MESSAGE + textTokens(m.name) + contentTokens(m.content) + toolCallTokens(m.tool_calls);
  }
  // Tool and function definitions are part of the prompt the model reads.
  if (p.tools !== undefined) n += tokensForBytes(JSON.stringify(p.tools).length);
  if (p.functions !== undefined) n += tokensForBytes(JSON.stringify(p.functions).length);
  return n;
}

function contentTokens(content: unknown): number {
  if (typeof content === 'string') return textTokens(content);
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const part of content) {
    if (part === null || typeof part !== 'object') continue;
    const text = (part as { text?: unknown }).text;
    n += typeof text === 'string' ? textTokens(text) : PER_MEDIA_PART;
  }
  return n;
}

function toolCallTokens(calls: unknown): number {
  if (!Array.isArray(calls)) return 0;
  let n = 0;
  for (const c of calls) {
    const f = (c as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
    if (f) n += textTokens(f.name) + textTokens(f.arguments);
  }
  return n;
}

// A string, an array of strings, a token array, or an array of token arrays (token ids count exactly).
function embeddingInputTokens(input: unknown): number {
  if (typeof input === 'string') return textTokens(input);
  if (!Array.isArray(input)) return 0;
  let n = 0;
  for (const item of input) {
    if (typeof item === 'number') n += 1;
    else if (Array.isArray(item)) n += item.length;
    else n += textTokens(item);
  }
  return n;
}
