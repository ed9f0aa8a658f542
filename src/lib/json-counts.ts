// A usage object (`{"prompt_tokens":20,…,"prompt_tokens_details":{"cached_tokens":8}}`) read from
// byte text by a grammar strict enough that what it accepts JSON.parse reads the same: members
// whose keys are printable ASCII without escapes and whose values are non-negative integers
// written plainly (no sign, fraction, exponent or leading zero; at most 15 digits, so exact),
// null, or at the top one level of such objects; no space anywhere. Anything else is refused,
// and the caller parses the chunk. JSON.parse of a stream's usage chunk was ~10,000 instructions
// of a translated stream's ~275,000 (bench:instructions, gateway-messages-stream, issue 17).
// test/lib/json-counts.test.ts holds it to JSON.parse.

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN = 0x7b;
const CLOSE = 0x7d;
const ZERO = 0x30;
const NINE = 0x39;
const MAX_DIGITS = 15;

export type Counts = Record<string, number | null | Record<string, number | null>>;

/**
 * Reads the object opening at text[at] into `into`; returns the offset just past it, or -1 when
 * it is not of the grammar above (`into` is then partly filled and to be dropped).
 */
export function readCounts(text: string, at: number, into: Counts, nested = true): number {
  if (text.charCodeAt(at) !== OPEN) return -1;
  let i = at + 1;
  if (text.charCodeAt(i) === CLOSE) return i + 1;
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return -1;
    const from = i + 1;
    let k = from;
    for (let c = text.charCodeAt(k); c !== QUOTE; c = text.charCodeAt(++k)) {
      // A backslash, a control character, a byte of a multi-byte character, or the text's end (NaN).
      if (!(c >= 0x20 && c <= 0x7e) || c === 0x5c) return -1;
    }
    i = k + 1;
    if (text.charCodeAt(i) !== COLON) return -1;
    i++;
    const c = text.charCodeAt(i);
    if (c >= ZERO && c <= NINE) {
      let n = c - ZERO;
      let j = i + 1;
      if (c !== ZERO) for (let d = text.charCodeAt(j); d >= ZERO && d <= NINE; d = text.charCodeAt(++j)) n = n * 10 + (d - ZERO);
      if (j - i > MAX_DIGITS) return -1;
      // Every usage has these three, in this order: stored by name, each store is a transition V8
      // has seen before; stored by a key sliced out of the text, each was a megamorphic keyed
      // store that first looks the new string up in the string table. The bench's usage of three
      // counts: 5.05k → 3.99k instructions a read (callgrind, hot loop); gateway-messages-stream
      // 204.5k → 203.3k on the main thread (bench:instructions, paired; issue 17). Interned names
      // as the keys of the same keyed store saved next to nothing (docs/benchmarks.md).
      const len = k - from;
      if (len === 13 && text.startsWith('prompt_tokens', from)) into.prompt_tokens = n;
      else if (len === 17 && text.startsWith('completion_tokens', from)) into.completion_tokens = n;
      else if (len === 12 && text.startsWith('total_tokens', from)) into.total_tokens = n;
      else if (!put(into, text.slice(from, k), n)) return -1;
      i = j;
    } else if (c === 0x6e && text.charCodeAt(i + 1) === 0x75 && text.charCodeAt(i + 2) === 0x6c && text.charCodeAt(i + 3) === 0x6c) {
      if (!put(into, text.slice(from, k), null)) return -1;
      i += 4;
    } else if (c === OPEN && nested) {
      const inner: Counts = {};
      i = readCounts(text, i, inner, false);
      if (i < 0 || !put(into, text.slice(from, k), inner as Record<string, number | null>)) return -1;
    } else {
      return -1;
    }
    const d = text.charCodeAt(i);
    if (d === CLOSE) return i + 1;
    if (d !== COMMA) return -1;
    i++;
  }
}

/** Sets into[key]; false for `__proto__`, which JSON.parse makes an own member and an assignment would make the prototype. */
function put(into: Counts, key: string, value: Counts[string]): boolean {
  if (key === '__proto__') return false;
  into[key] = value;
  return true;
}
