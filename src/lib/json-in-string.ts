import { IN_STRING_KEYS, inStringRoom, moduleHolding } from './json-scan.js';
import type { ByteTarget } from './span-writer.js';

// A JSON value's text written as a JSON string: what JSON.stringify(JSON.stringify(JSON.parse(v)))
// writes, for a value whose bytes are already what JSON.stringify writes (compact, its strings and
// numbers spelled as JSON.stringify spells them, no key given twice, no key that is an array
// index, which V8 orders first). A Messages tool_use `input` becomes a chat tool call's
// `arguments` so; Claude Code's are written compact, and this escapes them in one pass where the
// decode and the two writes cost ~0.9 µs a call (107 calls, 92 µs of the bench's 205 KB turn,
// --cpu-prof). Anything else answers false, with nothing written: the caller decodes the value.
// test/lib/json-in-string.test.ts holds it to the decode on random values.

/**
 * What writing body[from, to) (a JSON value of the body scanned last) as a JSON string adds to
 * its bytes when they are already what JSON.stringify writes, checked in WebAssembly (`instring`
 * in json-skip.wat; SpanWriter#inString then notes the value, and `spans` escapes it as it
 * copies): -1 when they are not (the caller decodes the value), -2 when left to writeJsonInString
 * (a number other than a whole one of up to 15 digits, nesting or keys past the module's room).
 * writeJsonInString alone, a byte at a time, cost gateway-messages-agent 296.6k instructions a
 * request on the main thread for the turn's 107 inputs; the module's check 36k and its escaped
 * copy 35k, and the request 3,206.6k → 2,977.7k (callgrind, docs/benchmarks.md, ninth session).
 */
export function inStringAdds(body: Buffer, from: number, to: number): number {
  const m = moduleHolding(body);
  return m === null ? -2 : m.instring(from, to, inStringRoom(body.length), IN_STRING_KEYS);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** The escapes JSON.stringify writes short: \" \\ \b \f \n \r \t. */
const SHORT_ESCAPE = new Uint8Array(256);
for (const c of [QUOTE, BACKSLASH, 0x62, 0x66, 0x6e, 0x72, 0x74]) SHORT_ESCAPE[c] = 1;
/** Control characters JSON.stringify writes short, which it never writes as \u00XX. */
const HAS_SHORT = new Uint8Array(32);
for (const c of [0x08, 0x0c, 0x0a, 0x0d, 0x09]) HAS_SHORT[c] = 1;

// Per open container: whether it is an object, and where its keys start in `keys`; typed arrays
// with counts (reused), not arrays emptied by setting their length: each `length = 0` was a call
// into the runtime, and the pushes after it grew the array again (gateway-messages-agent, whose
// turn has 107 tool inputs: 3,805.7k → 3,601.0k instructions a request, main thread, callgrind).
let objects = new Uint8Array(64);
let keyFrom = new Int32Array(64);
let open = 0;
/** The keys of the open objects, as start and end in the body. */
let keys = new Int32Array(256);
let keyCount = 0;

/**
 * Writes the value at raw[from, to) as a JSON string's literal into `w` (quotes included) when
 * its bytes are what JSON.stringify writes; false otherwise, with `w` as it was.
 */
export function writeJsonInString(w: ByteTarget, raw: Buffer, from: number, to: number): boolean {
  const start = w.at;
  open = 0;
  keyCount = 0;
  const b = w.buf;
  let o = w.at;
  b[o++] = QUOTE;
  let expectKey = false;
  let i = from;
  while (i < to) {
    const c = raw[i];
    if (c === QUOTE) {
      const end = canonicalString(raw, i, to);
      if (end < 0) return undo(w, start);
      if (expectKey) {
        if (!newKey(raw, i, end)) return undo(w, start);
        expectKey = false;
      }
      // The string's bytes, its quotes and backslashes escaped once more.
      for (let j = i; j < end; j++) {
        const d = raw[j];
        if (d === QUOTE || d === BACKSLASH) b[o++] = BACKSLASH;
        b[o++] = d;
      }
      i = end;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (open === objects.length) growOpen();
      objects[open] = c === OPEN_BRACE ? 1 : 0;
      keyFrom[open++] = keyCount;
      expectKey = c === OPEN_BRACE;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      keyCount = keyFrom[--open];
      expectKey = false;
    } else if (c === COMMA) {
      expectKey = objects[open - 1] === 1;
    } else if (c !== COLON) {
      // true, false, null, or a number; whitespace is not JSON.stringify's.
      const end = scalarEnd(raw, i, to);
      if (end < 0) return undo(w, start);
      for (let j = i; j < end; j++) b[o++] = raw[j];
      i = end;
      continue;
    }
    b[o++] = c;
    i++;
  }
  b[o++] = QUOTE;
  w.at = o;
  return true;
}

function undo(w: ByteTarget, start: number): false {
  w.at = start;
  return false;
}

/** The end of the string at raw[i] (its opening quote) when JSON.stringify spells it so; -1 otherwise. */
function canonicalString(raw: Buffer, i: number, to: number): number {
  for (i++; i < to; i++) {
    const c = raw[i];
    if (c === QUOTE) return i + 1;
    if (c !== BACKSLASH) continue;
    const e = raw[i + 1];
    if (SHORT_ESCAPE[e] === 1) {
      i++;
      continue;
    }
    // \u00XX for a control character without a short escape, in lower-case hex; any other \u is not JSON.stringify's.
    if (e !== 0x75 || raw[i + 2] !== 0x30 || raw[i + 3] !== 0x30) return -1;
    const hi = raw[i + 4];
    const lo = raw[i + 5];
    if (hi !== 0x30 && hi !== 0x31) return -1;
    const low = lo >= 0x30 && lo <= 0x39 ? lo - 0x30 : lo >= 0x61 && lo <= 0x66 ? lo - 0x57 : -1;
    if (low < 0 || HAS_SHORT[(hi - 0x30) * 16 + low] === 1) return -1;
    i += 5;
  }
  return -1;
}

/** Whether the key at raw[from, to) is new in its object and not an array index (V8 would order it first). */
function newKey(raw: Buffer, from: number, to: number): boolean {
  const c = raw[from + 1];
  if (c >= 0x30 && c <= 0x39) {
    let digits = true;
    for (let j = from + 1; j < to - 1; j++) if (raw[j] < 0x30 || raw[j] > 0x39) digits = false;
    if (digits) return false;
  }
  const n = to - from;
  for (let k = keyFrom[open - 1]; k < keyCount; k += 2) {
    if (keys[k + 1] - keys[k] !== n) continue;
    let j = 0;
    while (j < n && raw[keys[k] + j] === raw[from + j]) j++;
    if (j === n) return false;
  }
  if (keyCount + 2 > keys.length) {
    const more = new Int32Array(2 * keys.length);
    more.set(keys);
    keys = more;
  }
  keys[keyCount++] = from;
  keys[keyCount++] = to;
  return true;
}

function growOpen(): void {
  const o = new Uint8Array(2 * objects.length);
  o.set(objects);
  objects = o;
  const k = new Int32Array(2 * keyFrom.length);
  k.set(keyFrom);
  keyFrom = k;
}

/** The end of true, false, null or a number at raw[i] when JSON.stringify spells it so; -1 otherwise (whitespace too). */
function scalarEnd(raw: Buffer, i: number, to: number): number {
  const c = raw[i];
  if (c === 0x74) return i + 4; // true (the body was checked)
  if (c === 0x66) return i + 5; // false
  if (c === 0x6e) return i + 4; // null
  if (c !== 0x2d && (c < 0x30 || c > 0x39)) return -1;
  let end = i + 1;
  let plain = c !== 0x2d || (raw[end] >= 0x31 && raw[end] <= 0x39);
  while (end < to) {
    const d = raw[end];
    if (d >= 0x30 && d <= 0x39) end++;
    else if (d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d) {
      plain = false;
      end++;
    } else break;
  }
  // A whole number of up to 15 digits without a leading zero is written as it stands, read on the
  // bytes (no string made); any other is checked by writing it.
  // (Fifteen digits, not sixteen: 9999999999999999 is written 10000000000000000.)
  const digits = c === 0x2d ? end - i - 1 : end - i;
  if (plain && digits <= 15 && (digits === 1 || raw[c === 0x2d ? i + 1 : i] !== 0x30)) return end;
  const text = raw.toString('latin1', i, end);
  return JSON.stringify(Number(text)) === text ? end : -1;
}
