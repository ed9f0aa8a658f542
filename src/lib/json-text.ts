import { TextNeedle } from './rare-needle.js';

// Reading what the gateway needs from JSON text without parsing it: the text is a latin1 copy
// of the bytes (one character a byte, so offsets are byte offsets), searched with string
// methods, which stay in V8 where Buffer searches cross into C++ each time.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SPACE = 0x20;
const COLON = 0x3a;
const U = 0x75;
// `content":` also matches `"reasoning_content":`; `arguments":` is a tool call's text.
// Searched for from their rarest bytes (lib/rare-needle.ts): `arguments":` and `refusal":` are
// absent from most answers, and searched for from their first bytes each built a
// Boyer-Moore-Horspool table and read the whole text with it.
const TEXT_KEYS = ['content":', 'arguments":', 'refusal":'].map((k) => new TextNeedle(k));

/**
 * UTF-8 bytes of generated text in a chat answer or stream events: the string values of
 * content, reasoning_content, refusal and tool-call arguments, a JSON escape counted as the
 * bytes it stands for. Keys inside those strings are escaped (`\"content\"`), so never counted.
 */
export function generatedTextBytes(text: string): number {
  let bytes = 0;
  for (const key of TEXT_KEYS) {
    // The first backslash at or after the string being read, searched for once a pass and again
    // only past it. Searched from each string's start, it was a read to the text's end for every
    // string of a chunk without one: a chunk of 200 events took 78 µs where it takes ~4 (issue 17).
    let slash = -1;
    for (let i = key.in(text); i >= 0; i = key.in(text, i)) {
      i += key.length;
      while (text.charCodeAt(i) === SPACE) i++;
      if (text.charCodeAt(i) !== QUOTE) continue;
      const start = i + 1;
      if (slash < start) {
        slash = text.indexOf('\\', start);
        if (slash < 0) slash = text.length;
      }
      let end = text.indexOf('"', start);
      if (end > slash) while (end > 0 && escaped(text, end)) end = text.indexOf('"', end + 1);
      if (end < 0) break;
      bytes += end - start - (slash < end ? escapeSavings(text, start, end) : 0);
      i = end + 1;
    }
  }
  return bytes;
}

/** Where the `null` value of the key ending at `at` begins (`:` then `null`, spaces allowed), or -1. */
export function nullValueAt(text: string, at: number): number {
  let i = at;
  while (text.charCodeAt(i) === SPACE) i++;
  if (text.charCodeAt(i) !== COLON) return -1;
  i++;
  while (text.charCodeAt(i) === SPACE) i++;
  return text.startsWith('null', i) ? i : -1;
}

function escaped(text: string, quote: number): boolean {
  let n = 0;
  for (let k = quote - 1; text.charCodeAt(k) === BACKSLASH; k--) n++;
  return n % 2 === 1;
}

/** How many more bytes the escapes in text[start, end) take than the UTF-8 they stand for. */
function escapeSavings(text: string, start: number, end: number): number {
  let saved = 0;
  for (let k = text.indexOf('\\', start); k >= 0 && k < end; k = text.indexOf('\\', k)) {
    if (text.charCodeAt(k + 1) === U) {
      const code = Number.parseInt(text.slice(k + 2, k + 6), 16);
      saved += 6 - (code < 0x80 ? 1 : code < 0x800 ? 2 : 3);
      k += 6;
    } else {
      saved += 1;
      k += 2;
    }
  }
  return saved;
}

const MODEL_KEY = '"model"';

/**
 * The string value of the first `"model"` key in text[from, to) (an answer's or an event's own
 * model: keys inside strings are escaped): [its opening quote, just past its closing quote], or
 * null when there is none or its value is not a string.
 */
export function modelValueIn(text: string, from: number, to: number): [number, number] | null {
  for (let k = text.indexOf(MODEL_KEY, from); k >= 0 && k < to; k = text.indexOf(MODEL_KEY, k + 1)) {
    let i = skipJsonSpace(text, k + MODEL_KEY.length);
    if (text.charCodeAt(i) !== COLON) continue;
    return stringValueAt(text, i + 1, to);
  }
  return null;
}

/**
 * The JSON string that begins at `at` (JSON space allowed before it) and ends before `to`:
 * [its opening quote, just past its closing quote], or null.
 */
export function stringValueAt(text: string, at: number, to: number): [number, number] | null {
  const i = skipJsonSpace(text, at);
  if (text.charCodeAt(i) !== QUOTE) return null;
  let end = text.indexOf('"', i + 1);
  while (end > 0 && escaped(text, end)) end = text.indexOf('"', end + 1);
  return end < 0 || end >= to ? null : [i, end + 1];
}

/** Where the value of the key ending at `at` begins (after JSON space, a colon and JSON space), or -1. */
export function valueAfterKey(text: string, at: number): number {
  const i = skipJsonSpace(text, at);
  return text.charCodeAt(i) === COLON ? i + 1 : -1;
}

/** Whether the key ending at `at` has an empty array for its value (`: []`, JSON space allowed). */
export function emptyArrayAt(text: string, at: number): boolean {
  let i = skipJsonSpace(text, at);
  if (text.charCodeAt(i) !== COLON) return false;
  i = skipJsonSpace(text, i + 1);
  if (text.charCodeAt(i) !== 0x5b /* [ */) return false;
  return text.charCodeAt(skipJsonSpace(text, i + 1)) === 0x5d /* ] */;
}

function skipJsonSpace(text: string, i: number): number {
  for (let c = text.charCodeAt(i); c === SPACE || c === 0x0a || c === 0x0d || c === 0x09; c = text.charCodeAt(++i));
  return i;
}
