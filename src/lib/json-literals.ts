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

/** The character that opens a placeholder, and the one that closes it. */
export const OPEN = '\u0001';
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
 * then `text` for the rest. A placeholder is OPEN, digits, CLOSE.
 */
export function eachPlaceholder(s: string, text: (from: number, to: number) => void, literal: (k: number) => void): void {
  let at = 0;
  for (;;) {
    const open = s.indexOf(OPEN, at);
    if (open < 0) break;
    const close = s.indexOf(CLOSE, open + 1);
    if (open > at) text(at, open);
    literal(Number(s.slice(open + 1, close)));
    at = close + 1;
  }
  if (at < s.length) text(at, s.length);
}

function expandValue(v: unknown, t: LiteralTable): unknown {
  if (typeof v === 'string') {
    if (v.indexOf(OPEN) < 0) return v;
    let out = '';
    eachPlaceholder(v, (from, to) => { out += v.slice(from, to); }, (k) => { out += t.decode(k); });
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

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}
