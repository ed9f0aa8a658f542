/** Polls a condition until it holds (for state that has no event to wait on, such as a breaker timer). */
export async function waitFor<T>(fn: () => T | Promise<T>, timeoutMs = 5_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Reads a whole SSE response into its `data:` payloads. */
export async function readSse(res: Response): Promise<string[]> {
  const text = await res.text();
  return text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
}

export function chatBody(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ model: 'llama-3.3-70b-instruct', messages: [{ role: 'user', content: 'hi' }], ...extra });
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
}
