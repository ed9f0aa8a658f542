import { isUtf8 } from 'node:buffer';

// JSON string literals read in place, for the stream translators' fast paths: a literal whose
// bytes are exactly what JSON.stringify writes for its value can be copied from a provider's
// event into the client's instead of being parsed and serialised again.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** The escapes JSON.stringify writes (besides \u0000–\u001f for other control characters, and \ud800–\udfff for lone surrogates). */
const SHORT_ESCAPES = new Set(['"', '\\', 'b', 'f', 'n', 'r', 't'].map((c) => c.charCodeAt(0)));

/**
 * The end (just past the closing quote) of the JSON string literal opening at `text[at]`, if
 * its text is exactly what JSON.stringify writes for the value it stands for; otherwise -1, and
 * the caller takes its slow path (a full parse). Accepted: characters from U+0020 up, and the
 * short escapes (`\"` `\\` `\b` `\f` `\n` `\r` `\t`). Refused: a raw control character (invalid
 * JSON), `\u` escapes and `\/` (valid, but written otherwise by JSON.stringify), a literal not
 * closed before `to`. A lone surrogate is not looked for: the text is decoded from UTF-8,
 * which never yields one.
 */
export function canonicalStringEnd(text: string, at: number, to: number): number {
  if (text.charCodeAt(at) !== QUOTE) return -1;
  for (let i = at + 1; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH) {
      if (!SHORT_ESCAPES.has(text.charCodeAt(i + 1))) return -1;
      i++;
    } else if (c < 0x20) {
      return -1;
    }
  }
  return -1;
}

/**
 * canonicalStringEnd's literal as a regular expression's source, for readers that match a whole
 * event or answer at once (providers/anthropic): written as runs between escapes, which the
 * engine matches without a backtracking entry a character.
 */
export const CANONICAL_LITERAL = String.raw`"[^"\\\x00-\x1f]*(?:\\["\\bfnrt][^"\\\x00-\x1f]*)*"`;

/**
 * `re.exec(text)` for an expression of CANONICAL_LITERALs, or null where the engine gives up:
 * it keeps a backtracking entry for each escape in a literal, and millions of them (a text of
 * 5,000,000 newlines) overflow its stack with a RangeError. The caller then parses the text.
 */
export function execLiterals(re: RegExp, text: string): RegExpExecArray | null {
  try {
    return re.exec(text);
  } catch {
    return null;
  }
}

/**
 * A whole JSON answer matched in place by `re` (an expression of CANONICAL_LITERALs anchored at
 * its `{`), its groups byte text (lib/byte-text.ts), or null for an answer left to the parse: one
 * that does not open with `{`, bytes that are not UTF-8 (the parse reads them as U+FFFD, which a
 * copy would not), no match, or one the engine gives up on. The readers of whole answers
 * (providers/anthropic/answer-in-place.ts, formats/chat-answer-in-place.ts) share this gate.
 */
export function execAnswer(re: RegExp, answer: Buffer): RegExpExecArray | null {
  if (answer[0] !== 0x7b || !isUtf8(answer)) return null;
  return execLiterals(re, answer.toString('latin1'));
}

/** The value of a literal canonicalStringEnd accepted (text[from, to), quotes included); parsed only when it holds an escape. */
export function literalValue(text: string, from: number, to: number): string {
  const inner = text.slice(from + 1, to - 1);
  return inner.indexOf('\\') < 0 ? inner : JSON.parse(text.slice(from, to)) as string;
}

/** Whether text[at, to) is only JSON whitespace other than newlines (what JSON.parse allows after a value on one line). */
export function onlySpaceFrom(text: string, at: number, to: number): boolean {
  for (let i = at; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

/**
 * The end of the run of digits at `text[at]` that JSON allows as a small non-negative integer
 * (no leading zero, at most 9 digits), or -1.
 */
export function smallIntEnd(text: string, at: number): number {
  let i = at;
  for (let c = text.charCodeAt(i); c >= 0x30 && c <= 0x39; c = text.charCodeAt(++i));
  const n = i - at;
  if (n === 0 || n > 9 || (n > 1 && text.charCodeAt(at) === 0x30)) return -1;
  return i;
}

/**
 * Whether `text` holds `p` at `at`. Not text.startsWith(p, at): V8 11's startsWith compares
 * a character at a time through a generic load, ~40 instructions a character (1,500 for a
 * 37-character event prefix, callgrind), where a slice and === compare in one call.
 */
export function hasAt(text: string, at: number, p: string): boolean {
  return text.slice(at, at + p.length) === p;
}

/**
 * Whether text[at, end) (a data line's payload, as byte text) is `[DONE]` and JSON's blanks:
 * what trimming the decoded payload finds `[DONE]` in, read without decoding it (a
 * Buffer#toString for six bytes). Other trailing space (U+00A0) is left to that trim.
 */
export function isDone(text: string, at: number, end: number): boolean {
  return end - at >= 6 && text.charCodeAt(at) === 0x5b && text.charCodeAt(at + 1) === 0x44 && text.charCodeAt(at + 2) === 0x4f &&
    text.charCodeAt(at + 3) === 0x4e && text.charCodeAt(at + 4) === 0x45 && text.charCodeAt(at + 5) === 0x5d && onlySpaceFrom(text, at + 6, end);
}

/** Whether the line at `at` is an SSE `data:` line (without startsWith's per-character cost). */
export function isDataLine(text: string, at: number): boolean {
  return text.charCodeAt(at) === 0x64 && text.charCodeAt(at + 1) === 0x61 && text.charCodeAt(at + 2) === 0x74 &&
    text.charCodeAt(at + 3) === 0x61 && text.charCodeAt(at + 4) === 0x3a;
}
