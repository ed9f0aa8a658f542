/** Token counts of one response, as reported by the upstream. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

const USAGE = Buffer.from('"usage"');
const PROMPT = '"prompt_tokens"';
const COMPLETION = '"completion_tokens"';

/**
 * Finds the usage block of a JSON response without parsing the whole document: the last
 * `"usage"` key, then the two counters after it. Returns null when there is none (or it is null).
 */
export function scanUsage(bytes: Buffer, from = 0): TokenUsage | null {
  const at = bytes.lastIndexOf(USAGE);
  if (at < from) return null;
  return scanUsageText(bytes.toString('latin1', at, Math.min(bytes.length, at + 400)));
}

/** The two counters in text that starts at a `"usage"` key (a JSON line, or its latin1 copy). */
export function scanUsageText(tail: string): TokenUsage | null {
  const prompt = counter(tail, PROMPT);
  if (prompt < 0) return null;
  const completion = counter(tail, COMPLETION);
  return { promptTokens: prompt, completionTokens: completion < 0 ? 0 : completion };
}

/**
 * The digits after the first `name` that JSON space and a colon join to a number, or -1. Read
 * by hand: two regular expressions per answer were ~1,800 instructions (bench:instructions).
 */
function counter(text: string, name: string): number {
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
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
