/**
 * Token counts of one response in the gateway's canonical convention (OpenAI's): `promptTokens`
 * counts every input token, cache reads and writes included; `completionTokens` every output
 * token, reasoning included. The three parts are therefore never added to the totals again.
 */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  /** Input tokens read from the provider's prompt cache (`prompt_tokens_details.cached_tokens`). */
  cachedTokens: number;
  /** Input tokens written to the prompt cache (`prompt_tokens_details.cache_write_tokens`, OpenRouter's name). */
  cacheWriteTokens: number;
  /** Output tokens spent reasoning (`completion_tokens_details.reasoning_tokens`). */
  reasoningTokens: number;
}

const USAGE_KEY = '"usage"';
const USAGE = Buffer.from(USAGE_KEY);
/** Bytes at the end of an answer searched first for its usage. */
const TAIL = 2048;
const PROMPT = 'prompt_tokens"';
const COMPLETION = 'completion_tokens"';
const DETAILS = '_details"';
const CACHED = 'cached_tokens"';
const CACHE_WRITE = 'cache_write_tokens"';
const REASONING = 'reasoning_tokens"';
/** Just past the usage's own brace in `"usage":{`; with space before it, that brace is found too (and costs a search). */
const NESTED_FROM = USAGE.length + 2;
/**
 * Characters read after the `"usage"` key. OpenAI's usage block with both details objects is
 * ~330 characters compact and ~450 pretty-printed; this leaves room for deeper indentation.
 */
const WINDOW = 1024;

/**
 * Finds the usage block of a JSON response without parsing the whole document: the last
 * `"usage"` key, then the counters after it. Returns null when there is none (or it is null).
 */
export function scanUsage(bytes: Buffer, from = 0): TokenUsage | null {
  // Providers put usage at the end of an answer: the tail is read as text once and searched there,
  // one native call fewer than searching the bytes first: 3,593 -> 3,277 instructions a call on
  // the benchmark's answer (callgrind, 20,000 and 120,000 calls, the difference divided).
  const start = Math.max(from, bytes.length - TAIL);
  const tail = bytes.toString('latin1', start, bytes.length);
  const inTail = tail.lastIndexOf(USAGE_KEY);
  if (inTail >= 0) return scanUsageText(inTail === 0 && tail.length <= WINDOW ? tail : tail.slice(inTail, inTail + WINDOW));
  if (start === from) return null;
  // Not in the tail (a provider that puts usage first): the last one before it.
  const at = bytes.lastIndexOf(USAGE);
  if (at < from) return null;
  return scanUsageText(bytes.toString('latin1', at, Math.min(bytes.length, at + WINDOW)));
}

/** The counters in text that starts at a `"usage"` key (a JSON line, or its latin1 copy). */
export function scanUsageText(tail: string): TokenUsage | null {
  const prompt = counter(tail, PROMPT, 0);
  if (prompt < 0) return null;
  const completion = counter(tail, COMPLETION, 0);
  // Most answers of most providers have no details object, and then the three names are not
  // looked for. A details object is nested, so without a second '{' there is none: a one-character
  // search is cheaper than a name's (~150 instructions against ~350, callgrind, a 70-character
  // tail), so the name is looked for only when some object follows the usage's own brace.
  const details = tail.indexOf('{', NESTED_FROM) < 0 ? -1 : tail.indexOf(DETAILS);
  if (details < 0) {
    return { promptTokens: prompt, completionTokens: completion < 0 ? 0 : completion, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
  }
  const cached = counter(tail, CACHED, details);
  const write = counter(tail, CACHE_WRITE, details);
  const reasoning = counter(tail, REASONING, details);
  return {
    promptTokens: prompt, completionTokens: completion < 0 ? 0 : completion,
    cachedTokens: cached < 0 ? 0 : cached, cacheWriteTokens: write < 0 ? 0 : write, reasoningTokens: reasoning < 0 ? 0 : reasoning,
  };
}

/**
 * The digits after the first key `"name"` from `from` that JSON space and a colon join to a
 * number, or -1 (absent, or null). Read by hand: two regular expressions per answer were ~1,800
 * instructions (bench:instructions). `name` is searched without its opening quote, which is
 * checked after: V8's search stops at each occurrence of the pattern's first character, and JSON
 * is full of quotes (~1,000 instructions fewer on OpenAI's usage block, callgrind).
 */
function counter(text: string, name: string, from: number): number {
  for (let at = text.indexOf(name, from); at >= 0; at = text.indexOf(name, at + 1)) {
    if (text.charCodeAt(at - 1) !== 34 /* " */) continue;
    let i = skipSpace(text, at + name.length);
    if (text.charCodeAt(i) !== 58 /* : */) continue;
    i = skipSpace(text, i + 1);
    let n = 0;
    const first = i;
    for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i)) n = n * 10 + (c - 48);
    if (i > first) return n;
  }
  return -1;
}

function skipSpace(text: string, i: number): number {
  for (let c = text.charCodeAt(i); c === 32 || c === 9 || c === 10 || c === 13; c = text.charCodeAt(++i));
  return i;
}
