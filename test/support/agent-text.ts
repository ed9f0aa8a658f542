/** Pieces of an agent's text, with what JSON escapes (quotes, backslashes, control characters) and what it need not (é, 😀, /). */
const WORDS = ['fix the bug', 'é', '😀', 'a "quote"', 'back\\slash', 'line\nbreak', 'tab\t', '/path/to', '{"json":1}', ' ', '\u0000', '\u007f'];

/** A random text: now and then a long one (40–120 pieces), else a few pieces or none. */
export function agentText(r: () => number): string {
  const n = r() < 0.3 ? 40 + Math.floor(r() * 80) : Math.floor(r() * 6);
  let s = '';
  for (let i = 0; i < n; i++) s += WORDS[Math.floor(r() * WORDS.length)];
  return s;
}

export const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
