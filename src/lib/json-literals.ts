import { compactValue } from './json-scan.js';

// An agent's request is mostly a few hundred long strings (turns, tool output holding source
// code) that a translation between API formats only moves: from a Responses input item or a
// Messages block into a chat message. Decoding each of them (JSON.parse) and escaping it again
// (the request's writer) was most of a translated 200 KB request's cost (docs/benchmarks.md,
// gateway-responses and gateway-messages at agent size). Here such a body is decoded with its long
// string values left as placeholders; the translation moves the placeholders as it would the
// strings, and lib/json-bytes.ts writes each one back as the client's own literal, copied. Two
// JSON literals of the same text may differ in how they escape it (`\u00e9` or `é`, `\/` or `/`);
// both say the same string, so the provider reads what the client sent.
//
// A placeholder is U+0001, the string's index in decimal, U+0002: control characters, which a
// JSON string can hold only escaped, so the scan that makes the placeholders sees every one a
// client wrote; a body holding either is decoded whole instead, and no string of the client's can
// be taken for a placeholder.

/** Bodies from this size on are worth decoding with literals left; a smaller one has too few long strings to gain. */
export const LITERALS_FROM = 16 * 1024;
/** A string literal this long or longer (quotes included) is left as it came. */
export const LITERAL_BYTES = 256;

/** The character that opens a placeholder, and the one that closes it. */
const OPEN = '\u0001';
const CLOSE = '\u0002';

/** The long strings of one body: their literals' spans in it, quotes included. */
export class LiteralTable {
  readonly raw: Buffer;
  readonly spans: Int32Array;

  constructor(raw: Buffer, spans: Int32Array) {
    this.raw = raw;
    this.spans = spans;
  }

  /** Where placeholder k's literal is in `raw`: its first byte after the opening quote, and its closing quote. */
  inner(k: number): [number, number] {
    return [this.spans[2 * k] + 1, this.spans[2 * k + 1] - 1];
  }

  /** The string placeholder k stands for. */
  decode(k: number): string {
    return JSON.parse(this.raw.toString('utf8', this.spans[2 * k], this.spans[2 * k + 1])) as string;
  }

  /** `v` with every placeholder, whole strings and within strings, back as the text it stands for (a copy where anything changes). */
  expand<T>(v: T): T {
    return expandValue(v, this) as T;
  }
}

/**
 * Each placeholder of `s` in order: `text(from, to)` for the text before it, `literal(k)` for it,
 * then `text` for the rest. A placeholder is OPEN, digits naming one of the table's `count`
 * literals, CLOSE; an OPEN that does not begin one is text.
 */
function eachPlaceholder(s: string, count: number, text: (from: number, to: number) => void, literal: (k: number) => void): void {
  let at = 0;
  let from = 0;
  for (;;) {
    const open = s.indexOf(OPEN, from);
    if (open < 0) break;
    from = open + 1;
    const close = s.indexOf(CLOSE, open + 1);
    const k = close < 0 ? -1 : digits(s, open + 1, close);
    if (k < 0 || k >= count) continue;
    if (open > at) text(at, open);
    literal(k);
    from = at = close + 1;
  }
  if (at < s.length) text(at, s.length);
}

function expandValue(v: unknown, t: LiteralTable): unknown {
  if (typeof v === 'string') {
    if (v.indexOf(OPEN) < 0) return v;
    let out = '';
    eachPlaceholder(v, t.spans.length >> 1, (from, to) => { out += v.slice(from, to); }, (k) => { out += t.decode(k); });
    return out;
  }
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const e = expandValue(v[i], t);
      if (e !== v[i]) (copy ??= v.slice())[i] = e;
    }
    return copy ?? v;
  }
  let copy: Record<string, unknown> | null = null;
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const e = expandValue(o[k], t);
    if (e !== o[k]) (copy ??= { ...o })[k] = e;
  }
  return copy ?? v;
}

/**
 * `raw` (a JSON object) decoded with the long string values (at least `minBytes` of literal) of
 * the members named in `keep` left as placeholders, and every other member as JSON.parse reads it;
 * null when the body is not valid JSON, nests past `maxDepth`, or holds U+0001 or U+0002 in a
 * string: it is then decoded as before, which refuses what it always refused.
 */
export function decodeWithLiterals(raw: Buffer, keep: ReadonlySet<string>, minBytes: number, maxDepth: number):
  { body: Record<string, unknown>; literals: LiteralTable } | null {
  let start = 0;
  let end = raw.length;
  while (start < end && isSpace(raw[start])) start++;
  while (end > start && isSpace(raw[end - 1])) end--;
  if (start === end || raw[start] !== 0x7b) return null;
  const c = compactValue(raw, start, end, 0, maxDepth, minBytes);
  if (c === null) return null;
  const body = JSON.parse(c.text.toString('utf8')) as Record<string, unknown>;
  const literals = new LiteralTable(raw, c.spans);
  if (c.spans.length > 0) for (const k of Object.keys(body)) if (!keep.has(k)) body[k] = literals.expand(body[k]);
  return { body, literals };
}

// The writer's scratch: the client's body first (each literal is copied within one buffer, a
// builtin's memmove, where Buffer#copy from the body cost ~1 µs a call), then the request's text,
// then the request assembled from the two. Grown when a body needs more, up to KEEP_SCRATCH.
let scratch: Buffer = Buffer.alloc(0);
/** The most the scratch is kept at: a 4 MB body (the default bodyLimitBytes) with its text and request. */
const KEEP_SCRATCH = 16 * 1024 * 1024;
/** A placeholder as JSON.stringify writes it: its opening and closing characters escaped. */
const OPEN_TEXT = '\\u0001';
const CLOSE_TEXT = '\\u0002';

/**
 * The UTF-8 bytes of JSON.stringify(value) with every placeholder in its strings written as the
 * literal it stands for, copied from the client's body (the text, placeholders replaced by their
 * strings, says the same). JSON.stringify writes the request's structure, each placeholder
 * appearing in it as `\u0001k\u0002`, and the literals go in by copies within one buffer. The
 * structure written by lib/json-bytes.ts's walk in JavaScript cost twice JSON.stringify's native
 * one (125 against 65 µs for the 30 KB skeleton of the bench's 206 KB Responses turn): writing
 * that turn's chat request went 228 → 140 µs a call, the Messages turn's 255 → 154 µs (node,
 * 3,000 calls after 500), main-thread instructions per request 7,758k → 6,622k and
 * 8,511k → 7,331k (bench:instructions, gateway-responses-agent and gateway-messages-agent).
 * test/lib/json-literals.test.ts holds what is written to the plain decode's request.
 */
export function writeWithLiterals(value: unknown, t: LiteralTable): Buffer {
  const s = JSON.stringify(value);
  const raw = t.raw;
  const count = t.spans.length >> 1;
  // Room for the body, the text as UTF-8, and the request: at most the text and every literal.
  const textAt = (raw.length + 7) & ~7;
  const need = textAt + 3 * s.length + (3 * s.length + raw.length) + 16;
  // A body past what the scratch keeps (a raised bodyLimitBytes) gets a buffer of its own.
  if (scratch.length < need && need <= KEEP_SCRATCH) scratch = Buffer.allocUnsafeSlow(Math.min(KEEP_SCRATCH, Math.max(need, 2 * scratch.length)));
  const m = scratch.length >= need ? scratch : Buffer.allocUnsafeSlow(need);
  m.set(raw, 0);
  const n = m.write(s, textAt, 'utf8');
  const outAt = (textAt + n + 7) & ~7;
  let w = outAt;
  // Text before a placeholder: copied from the text's bytes when they are its characters one
  // for one (ASCII, the usual case), else encoded again piece by piece.
  const ascii = n === s.length;
  let at = 0;
  let from = 0;
  for (;;) {
    const o = s.indexOf(OPEN_TEXT, from);
    if (o < 0) break;
    from = o + 1;
    // `\\u0001` is a backslash and the text u0001, not an escape: an escape's backslash follows an even run of them.
    let b = o;
    while (b > 0 && s.charCodeAt(b - 1) === 0x5c) b--;
    if ((o - b) % 2 === 1) continue;
    const close = s.indexOf(CLOSE_TEXT, o + 6);
    const k = close < 0 ? -1 : digits(s, o + 6, close);
    // Not a placeholder (as in eachPlaceholder): text.
    if (k < 0 || k >= count) continue;
    if (ascii) {
      m.copyWithin(w, textAt + at, textAt + o);
      w += o - at;
    } else {
      w += m.write(s.slice(at, o), w, 'utf8');
    }
    const lit = t.spans[2 * k] + 1;
    const end = t.spans[2 * k + 1] - 1;
    m.copyWithin(w, lit, end);
    w += end - lit;
    from = at = close + 6;
  }
  if (ascii) {
    m.copyWithin(w, textAt + at, textAt + n);
    w += n - at;
  } else {
    w += m.write(s.slice(at), w, 'utf8');
  }
  // Out of the scratch into a buffer of its own: the request is held until it is answered.
  const out = Buffer.allocUnsafe(w - outAt);
  out.set(m.subarray(outAt, w), 0);
  return out;
}

/** The decimal number in s[from, to), or -1 when it is not one. */
function digits(s: string, from: number, to: number): number {
  if (to <= from || to - from > 9) return -1;
  let k = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i) - 0x30;
    if (c < 0 || c > 9) return -1;
    k = 10 * k + c;
  }
  return k;
}

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}
