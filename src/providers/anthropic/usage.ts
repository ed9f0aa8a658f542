import type { TokenUsage } from '../../lib/usage-scan.js';

/** Anthropic's token counts as its answers and `message_start` / `message_delta` events carry them. */
export interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** The four counts, gathered across a stream's events (a later event's count replaces an earlier one). */
export interface UsageCounts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export function emptyCounts(): UsageCounts {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
}

/**
 * Folds one event's usage into `c`. `message_delta` repeats the input counts on newer API
 * versions and leaves them out on older ones; `output_tokens` there is the running total, not
 * an increment, so each count present replaces what was known.
 */
export function mergeUsage(c: UsageCounts, u: AnthropicUsage | null | undefined): void {
  if (u === null || typeof u !== 'object') return;
  if (isCount(u.input_tokens)) c.input = u.input_tokens;
  if (isCount(u.output_tokens)) c.output = u.output_tokens;
  if (isCount(u.cache_read_input_tokens)) c.cacheRead = u.cache_read_input_tokens;
  if (isCount(u.cache_creation_input_tokens)) c.cacheWrite = u.cache_creation_input_tokens;
}

/** A usage object's JSON text parsed, or null when it is not JSON (the readers in place then parse their whole text). */
export function parsedUsage(text: string): AnthropicUsage | null {
  try {
    return JSON.parse(text) as AnthropicUsage;
  } catch {
    return null;
  }
}

/**
 * The gateway's canonical usage (OpenAI's convention). Anthropic's `input_tokens` leaves out the
 * tokens read from and written to the prompt cache, while OpenAI's `prompt_tokens` counts every
 * input token: the three are added here, once, and the cached part is named beside them so
 * billing prices it apart. `prompt_tokens` and `completion_tokens` come first: the usage scan
 * reads them within a short window after `"usage"`.
 */
export function canonicalUsage(c: UsageCounts): Record<string, unknown> {
  const prompt = c.input + c.cacheRead + c.cacheWrite;
  return {
    prompt_tokens: prompt,
    completion_tokens: c.output,
    total_tokens: prompt + c.output,
    prompt_tokens_details: { cached_tokens: c.cacheRead, cache_write_tokens: c.cacheWrite },
  };
}

/**
 * The counts the data plane's usage scan reads from canonicalUsageJson(c), given directly: a
 * translated answer then is not scanned for what its translation already knew (gateway-anthropic
 * 150.3k → 144.1k instructions a request, main thread, bench:instructions, issue 17).
 */
export function tokenUsage(c: UsageCounts): TokenUsage {
  return { promptTokens: c.input + c.cacheRead + c.cacheWrite, completionTokens: c.output, cachedTokens: c.cacheRead, cacheWriteTokens: c.cacheWrite, reasoningTokens: 0 };
}

/** JSON.stringify(canonicalUsage(c)), written around the numbers. */
export function canonicalUsageJson(c: UsageCounts): string {
  const prompt = c.input + c.cacheRead + c.cacheWrite;
  return `{"prompt_tokens":${prompt},"completion_tokens":${c.output},"total_tokens":${prompt + c.output},` +
    `"prompt_tokens_details":{"cached_tokens":${c.cacheRead},"cache_write_tokens":${c.cacheWrite}}}`;
}

/** A whole count: a fraction or a count past 2^53 is not one (and would not be written as the digits the usage scan reads). */
function isCount(v: unknown): v is number {
  return Number.isSafeInteger(v) && (v as number) >= 0;
}
