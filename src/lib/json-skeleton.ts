import type { ByteWriter } from './byte-writer.js';
import type { LiteralTable } from './json-literals.js';

// Reading a body's skeleton in place: the JSON text compactValue (lib/json-scan.ts) made of it,
// already proved valid, each long string value a placeholder for the client's literal
// (lib/json-literals.ts). A translation that writes its request from the client's own pieces
// walks it here instead of decoding it into objects: JSON.parse of the 30 KB skeleton of the
// bench's 206 KB Responses turn took 148 µs (~1,300 small values), where walking it takes a
// fraction of that (docs/benchmarks.md). Nothing here checks the grammar: the text was checked.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** 1 for the bytes that end a number, true, false or null: whitespace and what may follow a value. */
const ENDS_SCALAR = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d, COMMA, CLOSE_BRACE, CLOSE_BRACKET]) ENDS_SCALAR[c] = 1;

/** 1 for JSON whitespace. */
const IS_SPACE = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d]) IS_SPACE[c] = 1;
/** 1 for a quote, 2 for an opening bracket or brace, 3 for a closing one: what a value's end is found by. */
const STRUCTURE = new Uint8Array(256);
STRUCTURE[QUOTE] = 1;
STRUCTURE[OPEN_BRACE] = 2;
STRUCTURE[OPEN_BRACKET] = 2;
STRUCTURE[CLOSE_BRACE] = 3;
STRUCTURE[CLOSE_BRACKET] = 3;

/** The offset of the first byte from `i` that is not JSON whitespace. */
export function ws(s: Buffer, i: number): number {
  while (IS_SPACE[s[i]] === 1) i++;
  return i;
}

/** The offset after the string whose opening quote is at `i`. */
export function stringEnd(s: Buffer, i: number): number {
  i++;
  for (;;) {
    const c = s[i];
    if (c === QUOTE) return i + 1;
    i += c === BACKSLASH ? 2 : 1;
  }
}

/** The offset after the value that starts at `i`. */
export function valueEnd(s: Buffer, i: number): number {
  const c = s[i];
  if (c === QUOTE) return stringEnd(s, i);
  if (c !== OPEN_BRACE && c !== OPEN_BRACKET) {
    while (i < s.length && ENDS_SCALAR[s[i]] === 0) i++;
    return i;
  }
  let depth = 0;
  for (;;) {
    const k = STRUCTURE[s[i]];
    if (k === 0) {
      i++;
    } else if (k === 1) {
      i = stringEnd(s, i);
    } else {
      if (k === 2) depth++;
      else if (--depth === 0) return i + 1;
      i++;
    }
  }
}

/** Whether s[from, to) holds a backslash (an escape, in a string). */
export function hasBackslash(s: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (s[i] === BACKSLASH) return true;
  return false;
}

/** Whether s[from, to) is exactly `word`. */
export function spells(s: Buffer, from: number, to: number, word: Buffer): boolean {
  if (to - from !== word.length) return false;
  for (let j = 0; j < word.length; j++) if (s[from + j] !== word[j]) return false;
  return true;
}

/**
 * The members of the object at `i` named in `keys` (each a key's bytes, quotes included): the
 * value of key k at out[2k] and the offset after it at out[2k + 1], -1 for one not given; a key
 * given twice counts its last value, as JSON.parse does. Returns the offset after the object, or
 * -1 when a key is spelled with an escape: it could be one of `keys`, and the caller leaves the
 * object to the full parse.
 */
export function readMembers(s: Buffer, i: number, keys: readonly Buffer[], out: Int32Array): number {
  // A loop: Int32Array#fill is a call into the runtime, once an item (~321 a Codex turn).
  for (let j = 0; j < out.length; j++) out[j] = -1;
  i = ws(s, i + 1);
  if (s[i] === CLOSE_BRACE) return i + 1;
  for (;;) {
    const k = i;
    for (i++; s[i] !== QUOTE; i++) if (s[i] === BACKSLASH) return -1;
    i++;
    const match = keyIndex(s, k, i, keys);
    i = ws(s, i);
    i = ws(s, i + 1); // the colon
    const end = s[i] === QUOTE ? stringEnd(s, i) : valueEnd(s, i);
    if (match >= 0) {
      out[2 * match] = i;
      out[2 * match + 1] = end;
    }
    i = ws(s, end);
    if (s[i++] === CLOSE_BRACE) return i;
    i = ws(s, i);
  }
}

/** Which of `keys` the key s[from, to) is (quotes included), or -1. */
function keyIndex(s: Buffer, from: number, to: number, keys: readonly Buffer[]): number {
  const n = to - from;
  for (let w = 0; w < keys.length; w++) {
    const key = keys[w];
    if (key.length !== n || key[1] !== s[from + 1]) continue;
    let j = 2;
    while (j < n && s[from + j] === key[j]) j++;
    if (j === n) return w;
  }
  return -1;
}

/** The offset of the first element of the array whose opening bracket is at `i`; -1 when it is empty. */
export function firstElement(s: Buffer, i: number): number {
  i = ws(s, i + 1);
  return s[i] === CLOSE_BRACKET ? -1 : i;
}

/** The offset of the element after the one that ends at `i`; -1 after the last. */
export function nextElement(s: Buffer, i: number): number {
  i = ws(s, i);
  return s[i] === CLOSE_BRACKET ? -1 : ws(s, i + 1);
}

/** Whether the string at s[from, to) is a placeholder: compactValue takes a body holding U+0001 whole, so `"\u0001` opens only those. */
function isPlaceholder(s: Buffer, from: number, to: number): boolean {
  return to - from > 14 && s[from + 1] === BACKSLASH && s[from + 2] === 0x75 && s[from + 6] === 0x31 && s[from + 5] === 0x30;
}

/** The index of the placeholder at s[from, to). */
function placeholderIndex(s: Buffer, from: number): number {
  let k = 0;
  for (let i = from + 7; s[i] !== BACKSLASH; i++) k = 10 * k + s[i] - 0x30;
  return k;
}

/** Writes the string at s[from, to) (a literal, quotes included) as the client wrote it: a placeholder as its literal from the body. */
export function copyString(w: ByteWriter, s: Buffer, from: number, to: number, t: LiteralTable): void {
  if (!isPlaceholder(s, from, to)) {
    w.copy(s, from, to);
    return;
  }
  const k = placeholderIndex(s, from);
  w.copySource(t.raw, t.spans[2 * k], t.spans[2 * k + 1]);
}

/** Writes the characters of the string at s[from, to), without its quotes: JSON strings' inner bytes joined say the strings joined. */
export function copyInner(w: ByteWriter, s: Buffer, from: number, to: number, t: LiteralTable): void {
  if (!isPlaceholder(s, from, to)) {
    w.copy(s, from + 1, to - 1);
    return;
  }
  const k = placeholderIndex(s, from);
  w.copySource(t.raw, t.spans[2 * k] + 1, t.spans[2 * k + 1] - 1);
}

/** The bytes of the string at s[from, to) as written, placeholders counted as their literals: a bound for what copyString writes. */
export function stringBytes(s: Buffer, from: number, to: number, t: LiteralTable): number {
  if (!isPlaceholder(s, from, to)) return to - from;
  const k = placeholderIndex(s, from);
  return t.spans[2 * k + 1] - t.spans[2 * k];
}
