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

/** A count as JSON.stringify writes one: no sign, fraction, exponent or leading zero; 15 digits at most, so exact. */
const COUNT = '(?:0|[1-9][0-9]{0,14})';
const COUNT_OR_NULL = `(${COUNT}|null)`;
/**
 * A usage object as Anthropic writes one in an answer and in message_start, compact and in its
 * order: the three input counts, the cache writes by lifetime (newer API versions), the output
 * count, the service tier. Matched, the text is JSON and holds these counts alone, as a parse
 * would read them; anything else is left to the parse. JSON.parse was 5.2k instructions of a
 * translated stream's main thread (callgrind, gateway-anthropic-stream, issue 17); timed alone
 * (10^6 reads, Node 20), the mock's usage 454–520 → 214–276 ns, one with the cache writes and
 * the tier, as Anthropic sends it, 860–897 → 186–201 ns.
 */
const COMPACT_USAGE = new RegExp(`^\\{"input_tokens":${COUNT_OR_NULL},"cache_creation_input_tokens":${COUNT_OR_NULL},` +
  `"cache_read_input_tokens":${COUNT_OR_NULL},(?:"cache_creation":\\{"ephemeral_5m_input_tokens":${COUNT},` +
  `"ephemeral_1h_input_tokens":${COUNT}\\},)?"output_tokens":${COUNT_OR_NULL}(?:,"service_tier":"[a-z_]{1,32}")?\\}$`);

/**
 * Folds the usage object `text` (JSON text) into `c` as mergeUsage(c, JSON.parse(text)) would,
 * when it is as Anthropic writes one (COMPACT_USAGE); false, with `c` untouched, when it is not,
 * and the caller parses it.
 */
export function mergeCompactUsage(c: UsageCounts, text: string): boolean {
  const m = COMPACT_USAGE.exec(text);
  if (m === null) return false;
  if (m[1] !== 'null') c.input = Number(m[1]);
  if (m[2] !== 'null') c.cacheWrite = Number(m[2]);
  if (m[3] !== 'null') c.cacheRead = Number(m[3]);
  if (m[4] !== 'null') c.output = Number(m[4]);
  return true;
}

/**
 * Folds the usage object `text` into `c`: read in place when Anthropic wrote it (mergeCompactUsage),
 * else parsed; false, with `c` untouched, when it is not JSON (the readers in place then parse
 * their whole text).
 */
export function mergeUsageText(c: UsageCounts, text: string): boolean {
  if (mergeCompactUsage(c, text)) return true;
  let usage: AnthropicUsage;
  try {
    usage = JSON.parse(text) as AnthropicUsage;
  } catch {
    return false;
  }
  mergeUsage(c, usage);
  return true;
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
