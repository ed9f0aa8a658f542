/** Token counts of one response, as reported by the upstream. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

const USAGE = Buffer.from('"usage"');
const PROMPT_RE = /"prompt_tokens"\s*:\s*(\d+)/;
const COMPLETION_RE = /"completion_tokens"\s*:\s*(\d+)/;

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
  const p = PROMPT_RE.exec(tail);
  if (!p) return null;
  const c = COMPLETION_RE.exec(tail);
  return { promptTokens: Number(p[1]), completionTokens: c ? Number(c[1]) : 0 };
}
