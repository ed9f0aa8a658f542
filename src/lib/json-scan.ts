import { isUtf8 } from 'node:buffer';
import { WASM_BASE64 } from './wasm/json-skip.js';
import type { RecordKeys, Records } from './json-records.js';
import { growTo, instantiate } from './wasm-instance.js';
import type { SkipModule } from './wasm/json-skip-exports.js';

// A validating scan of a JSON object's bytes that records where its top-level members are,
// without building the value. An agent's request is 50–500 KB, almost all of it message
// contents the gateway only forwards; decoding it to a string and parsing it cost ~350 µs at
// 200 KB on the bench machine (Buffer#toString 200 µs — a string over 128 KB is a large
// object, its pages faulted in fresh on every allocation — then JSON.parse 120 µs). The scan
// walks the top-level object in JavaScript and the rest in WebAssembly (the messages array in
// one call, every other value skipped whole), strings sixteen bytes at a time
// (src/lib/wasm/json-skip.wat).
//
// The scan never refuses: it answers null for anything it does not prove valid (bad JSON,
// invalid UTF-8, a byte order mark, nesting past the limit, a wanted name given twice), and the
// caller then parses the body as before, which refuses exactly what it always refused.
// test/lib/json-scan-fuzz.test.ts checks it against JSON.parse on mutated bodies.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

// String values are skipped in WebAssembly (SIMD, after one copy of the body into its memory).
// Measured on the bench machine (node 20), the whole scan of the bench's 200 KB agent body took
// 70–113 µs where decoding and parsing it took 300–443 µs, and of its 1 KB chat body 1.0 µs
// against 1.2 µs (docs/benchmarks.md, issue 17). Tried first and measured slower: a JavaScript loop over every byte (207–287 µs
// at 200 KB, a table lookup per byte being the quicker form), a loop over 32-bit words with the
// "has a byte less than" test (104 µs for the strings alone), and native searches (Buffer#indexOf
// for each next quote and backslash, 29 memchr passes for control bytes: ~11 ns a call, and agent
// bodies hold an escape every few dozen bytes, \n and \" on every line of code).

/** Where one wanted member lies: its key's opening quote, its value's first byte and the byte after it. */
export interface MemberSpan {
  key: number;
  start: number;
  end: number;
}

/** The names a scan looks for, compiled once. */
export class WantedNames {
  readonly names: readonly string[];
  /** One null per name: a scan's member list starts as a copy of it (one builtin copy, no pushes). */
  readonly none: readonly null[];
  /** By length in bytes: the names' indexes and their bytes (two lists, not pairs: no destructuring per candidate). */
  readonly #indexes: number[][] = [];
  readonly #bytes: Buffer[][] = [];

  constructor(names: readonly string[]) {
    this.names = names;
    this.none = names.map(() => null);
    names.forEach((n, i) => {
      const bytes = Buffer.from(n, 'utf8');
      (this.#indexes[bytes.length] ??= []).push(i);
      (this.#bytes[bytes.length] ??= []).push(bytes);
    });
  }

  /** The index of the name spelled by `b[from, to)` (no escapes), or -1. */
  indexOf(b: Buffer, from: number, to: number): number {
    const candidates = this.#bytes[to - from];
    if (candidates === undefined) return -1;
    for (let c = 0; c < candidates.length; c++) {
      const name = candidates[c];
      let j = 0;
      while (j < name.length && name[j] === b[from + j]) j++;
      if (j === name.length) return this.#indexes[to - from][c];
    }
    return -1;
  }
}

/**
 * What a scan found: each wanted member's span (null when absent), every member's key offset and
 * value end (for cutting members out), the object's braces, and for one array-valued member (the
 * chat body's `messages`) the spans of each element's `elementKeys` members.
 */
export interface ObjectScan {
  readonly members: readonly (MemberSpan | null)[];
  /** Offset of the opening brace and of the closing brace. */
  readonly open: number;
  readonly close: number;
  /** Per member in order: key offset and value end, two numbers each. */
  readonly layout: readonly number[];
  /** The `elements` member's elements' `elementKeys` spans; null when that member is absent or not an array. */
  readonly elements: ElementSpans | null;
  /** The `records` member's elements as scanRecords finds them; null when absent, not an array, or left to JavaScript. */
  readonly records?: Records | null;
}

/**
 * Per element of an array, four numbers from `from + 4k` in `spans`: the start and end of the
 * value of its member named by the first key, then by the second (-1 and -1 when there is no
 * second key, the element is not an object or it has no such member). Valid until the next scan:
 * the spans may be the scanner's own memory.
 */
export interface ElementSpans {
  readonly spans: ArrayLike<number>;
  readonly from: number;
  readonly count: number;
  /** Whether the scan made the `nestedKey` check (ScanOptions) on the way; when not, the caller makes it. */
  readonly nestedChecked: boolean;
}

export interface ScanOptions {
  wanted: WantedNames;
  /** Index in `wanted` of an array member whose elements' `elementKeys` members are recorded. */
  elements?: number;
  /** The element member's name as UTF-8 bytes (made once by the caller). */
  elementKeys?: readonly Buffer[];
  /**
   * With two elementKeys: a second key's value that is an array must hold objects that each have a
   * non-empty string member of this name (a Messages body's blocks and their `type`), else the
   * scan fails. Made in WebAssembly on the first walk where it can (ElementSpans.nestedChecked).
   */
  nestedKey?: Buffer;
  /** Index in `wanted` of an array member whose elements' `recordKeys` members are recorded (scanRecords), in the same walk. */
  records?: number;
  recordKeys?: RecordKeys;
  /** Deepest nesting of arrays and objects accepted, the top object counting 1. */
  maxDepth: number;
}

// The scan's state lives in the module: it is synchronous and runs on one thread, and fields
// of one object cost less than a closure or an instance per request. Declared with `var`: a
// module-level `let` read from a function is checked for its temporal dead zone on every read,
// and the scan reads `b` and `p` for every byte it looks at. With the member list copied from
// WantedNames.none and the names' indexes apart from their bytes, the scan of the bench's 1 KB
// chat body went from 12.1k to 10.5k instructions (scannedBody, callgrind; `var` alone ~1.0k).
var b: Buffer = Buffer.alloc(0);
var n = 0;
var p = 0;
var maxDepth = 0;
/** The WebAssembly value skipper over the body's copy in its memory; null between scans. */
var skipValue: ((from: number, to: number, depth: number, max: number) => number) | null = null;

/**
 * Scans `body`, which must be a JSON object, recording the wanted members. Null when the body is
 * not valid JSON, not an object, nests past `maxDepth`, is not valid UTF-8, gives a wanted name
 * twice (parsers disagree on which one counts), or spells a wanted name with escapes. The result
 * holds offsets into `body`.
 */
export function scanObject(body: Buffer, o: ScanOptions): ObjectScan | null {
  b = body;
  n = body.length;
  p = 0;
  maxDepth = o.maxDepth;
  try {
    // UTF-8 checked natively (simdutf) in one pass: 3 µs at 200 KB.
    if (!isUtf8(body)) return null;
    skipValue = valueSkipper(body);
    return top(o);
  } finally {
    b = EMPTY;
    skipValue = null;
  }
}

const EMPTY = Buffer.alloc(0);

function top(o: ScanOptions): ObjectScan | null {
  ws();
  if (p >= n || b[p] !== OPEN_BRACE) return null;
  const open = p++;
  const members: (MemberSpan | null)[] = o.wanted.none.slice();
  const layout: number[] = [];
  let elements: ElementSpans | null = null;
  let records: Records | null = null;
  const elementKeys = o.elementKeys ?? null;
  ws();
  if (p < n && b[p] === CLOSE_BRACE) {
    p++;
  } else {
    for (;;) {
      if (p >= n || b[p] !== QUOTE) return null;
      const key = p;
      if (!string()) return null;
      // An escaped key that spells a wanted name is left to the full parse, which re-serialises
      // the body: a provider's parser might not decode escapes in keys as JSON.parse does.
      if (hadEscape && o.wanted.names.includes(decodedKey(key))) return null;
      const wanted = hadEscape ? -1 : o.wanted.indexOf(b, key + 1, p - 1);
      ws();
      if (p >= n || b[p] !== COLON) return null;
      p++;
      ws();
      const start = p;
      if (wanted >= 0 && wanted === o.elements && elementKeys !== null && p < n && b[p] === OPEN_BRACKET) {
        elements = arrayOf(elementKeys, 2, o.nestedKey ?? null);
        if (elements === null) return null;
      } else if (wanted >= 0 && wanted === o.records && p < n && b[p] === OPEN_BRACKET) {
        const r = recordsAt(p, o.recordKeys!, 2, 0);
        if (r === null) return null;
        // Left to JavaScript: the array is only checked, and the caller reads it its slower way.
        if (r === undefined) {
          if (!value(1)) return null;
        } else {
          records = r;
          p = r.end;
        }
      } else if (!value(1)) return null;
      if (wanted >= 0) {
        if (members[wanted] !== null) return null;
        members[wanted] = { key, start, end: p };
      }
      layout.push(key, p);
      ws();
      if (p >= n) return null;
      const c = b[p++];
      if (c === CLOSE_BRACE) break;
      if (c !== COMMA) return null;
      ws();
    }
  }
  const close = p - 1;
  ws();
  if (p !== n) return null;
  return { members, open, close, layout, elements: o.elements !== undefined && members[o.elements] !== null ? elements : null, records };
}

function ws(): void {
  while (p < n) {
    const c = b[p];
    if (c !== SPACE && c !== LF && c !== CR && c !== TAB) return;
    p++;
  }
}

/**
 * Any JSON value at nesting `depth` (the object or array holding it); advances past it. Skipped
 * whole in WebAssembly, nested objects and arrays too (bench:instructions, gateway-agent main
 * thread: 2,298.6k → 2,092.3k instructions a request, where JavaScript walked the structure and
 * only strings were skipped there; the 1 KB gateway 100.0k → 99.7k).
 */
function value(depth: number): boolean {
  const end = skipValue!(p, n, depth, maxDepth);
  if (end < 0) return false;
  p = end;
  return true;
}

/**
 * The array at `p` (nesting `depth`), its elements' `keys` members recorded (one or two names),
 * `p` advanced past it; null when it is not valid JSON. Walked in WebAssembly in one call, or in
 * JavaScript where the module leaves it (a member name with an escape, or more elements than the
 * module has room for). Each call from JavaScript into the module costs ~500 instructions beyond
 * its work, and the bench's agent body made ~1,100 of them, one per member of each of its 322
 * messages, with the names read in JavaScript (bench:instructions, gateway-agent: docs/benchmarks.md).
 */
function arrayOf(keys: readonly Buffer[], depth: number, nested: Buffer | null): ElementSpans | null {
  const found = elementsInWasm(keys, depth, nested);
  if (found !== undefined) return found;
  const list: number[] = [];
  return arrayOfObjects(keys, depth, list) ? { spans: list, from: 0, count: list.length / 4, nestedChecked: false } : null;
}

/** arrayOf in the module: the spans where it wrote them, null when not valid, undefined when JavaScript must walk it. */
function elementsInWasm(keys: readonly Buffer[], depth: number, nested: Buffer | null): ElementSpans | null | undefined {
  const m = wasm!;
  const key = keys[0];
  const key2 = keys.length > 1 ? keys[1] : EMPTY;
  const key3 = nested !== null && keys.length > 1 ? nested : EMPTY;
  const keyAt = (n + 7) & ~7;
  const key2At = keyAt + ((key.length + 7) & ~7);
  const key3At = key2At + ((key2.length + 7) & ~7);
  const outAt = key3At + ((key3.length + 7) & ~7);
  for (let j = 0; j < key.length; j++) wasmBytes![keyAt + j] = key[j];
  for (let j = 0; j < key2.length; j++) wasmBytes![key2At + j] = key2[j];
  for (let j = 0; j < key3.length; j++) wasmBytes![key3At + j] = key3[j];
  const end = m.elements(p, n, keyAt, key.length, key2At, key2.length, key3At, key3.length, outAt, MAX_ELEMENTS, depth, maxDepth);
  if (end === -1) return null;
  if (end < 0) return undefined;
  p = end;
  // Read where the module wrote them: a copy (Int32Array#slice) cost more than walking two messages in JavaScript.
  return { spans: wasmWords!, from: (outAt >> 2) + 1, count: wasmWords![outAt >> 2], nestedChecked: key3.length > 0 };
}

/** Elements whose spans the module records at once; a longer array is walked in JavaScript. */
const MAX_ELEMENTS = 16_384;
/** Room past the body for the keys and the spans (elementsInWasm), and for the regions of records (recordsAt). */
const ELEMENT_BYTES = 256 + 4 + 16 * MAX_ELEMENTS;
/** Keys a value written as a JSON string may have open at once (lib/json-in-string.ts); more are left to JavaScript. */
export const IN_STRING_KEYS = 1024;
/** Its room, after ELEMENT_BYTES: 8 bytes for each of 128 open containers, then 8 a key. */
const IN_STRING_BYTES = 8 * 128 + 8 * IN_STRING_KEYS;
const SCRATCH_BYTES = ELEMENT_BYTES + IN_STRING_BYTES + 16;

/**
 * Where the JSON value at `at` in `body` (an array) has its elements' `keys` members, for a check
 * of a nested array after scanObject: null when that is not valid JSON or nests deeper than
 * `maxDepth` (the array at nesting `depth`). The body is copied into the module's memory again
 * only when it is not the one last scanned.
 */
export function scanElements(body: Buffer, at: number, keys: readonly Buffer[], depth: number, maxDepthGiven: number): ElementSpans | null {
  b = body;
  n = body.length;
  p = at;
  maxDepth = maxDepthGiven;
  try {
    if (copied !== body) {
      if (!isUtf8(body)) return null;
      skipValue = valueSkipper(body);
    } else {
      skipValue = wasm!.value;
    }
    return p < n && b[p] === OPEN_BRACKET ? arrayOf(keys, depth, null) : null;
  } finally {
    b = EMPTY;
    skipValue = null;
  }
}

/**
 * The array at `at` in `body` (at nesting `depth`), with each element's `keys` members recorded,
 * walked in WebAssembly in one call: a Responses body's ~300 input items and their members for
 * ~500 instructions of call, where a walk in JavaScript cost ~47 instructions a byte of their
 * structure (formats/responses/input-bytes.ts). Null when it is not valid JSON, nests past
 * `maxDepthGiven`, or when the module leaves it to JavaScript (a member name with an escape, more
 * elements than its room holds): the caller then takes its slower way. The body is copied into
 * the module's memory only when it is not the one last scanned. Valid until the next scan into the
 * same `region`: the records are read where the module wrote them (ObjectScan's are a copy).
 */
export function scanRecords(body: Buffer, at: number, keys: RecordKeys, depth: number, maxDepthGiven: number, region: 1 | 2 = 1): Records | null {
  if (copied !== body) {
    if (!isUtf8(body)) return null;
    valueSkipper(body);
  }
  n = body.length;
  maxDepth = maxDepthGiven;
  return recordsAt(at, keys, depth, region) ?? null;
}

/** Room for the key tables, then three regions of records: scanObject's (copied out), and two for scans nested in reading them. */
const KEYS_BYTES = 512;
export const REGION_BYTES = ((ELEMENT_BYTES - 8 - KEYS_BYTES) / 3) & ~7;

/** The module while `body` is the one in its memory, else null: lib/json-in-string.ts checks values there. */
export function moduleHolding(body: Buffer): SkipModule | null {
  return copied === body ? wasm : null;
}

/** Where lib/module-walk.ts's walks have REGION_BYTES (the third region of records, free between scans), for a body of `length` bytes. */
export const spareRoom = (length: number): number => ((length + 7) & ~7) + KEYS_BYTES + 2 * REGION_BYTES;

/** Where lib/json-in-string.ts's check has its IN_STRING_BYTES, past the records, for a body of `length` bytes. */
export function inStringRoom(length: number): number {
  return ((length + 7) & ~7) + ((ELEMENT_BYTES + 7) & ~7);
}

/**
 * scanRecords on the body in the module's memory (`n` bytes): null when not valid, undefined when
 * left to JavaScript. The records are read where the module wrote them, in `region`, until the
 * next scan into it (a message's blocks, then a block's parts, each in its own); region 0's are
 * copied out (scanObject's: the scans of their nested arrays follow). A copy per message cost
 * ~0.3 µs (Int32Array#slice), 65 µs over the bench's 215-message Messages turn (--cpu-prof).
 * With nested keys, their arrays' records go to region 1 in the same walk (read in place).
 */
function recordsAt(at: number, keys: RecordKeys, depth: number, region: 0 | 1 | 2): Records | null | undefined {
  const keysAt = (n + 7) & ~7;
  const m = wasm!;
  wasmBytes!.set(keys.table, keysAt);
  const outAt = keysAt + KEYS_BYTES + region * REGION_BYTES;
  const stride = keys.stride;
  const cap = Math.floor((REGION_BYTES - 4) / (4 * stride));
  const nested = keys.nested;
  if (nested !== null) {
    const nestedAt = keysAt + keys.table.length;
    wasmBytes!.set(nested.table, nestedAt);
    const regionAt = keysAt + KEYS_BYTES + REGION_BYTES;
    m.nest(keys.nestedIndex, nestedAt, nested.count, regionAt, regionAt + REGION_BYTES - 8);
  }
  const end = m.records(at, n, keysAt, keys.count, outAt, cap, depth, maxDepth);
  if (nested !== null) m.nest(-1, 0, 0, 0, 0);
  if (end === -1) return null;
  if (end < 0) return undefined;
  const count = wasmWords![outAt >> 2];
  const from = (outAt >> 2) + 1;
  const nestedWords = nested === null ? undefined : wasmWords!;
  if (region === 0) return { words: wasmWords!.slice(from, from + count * stride), from: 0, count, stride, end, nestedWords };
  return { words: wasmWords!, from, count, stride, end, nestedWords };
}

/** A JSON value with its long strings left where they were: see compactValue. */
export interface CompactValue {
  /** The value's JSON text, each long string value replaced by a placeholder (lib/json-literals.ts). */
  readonly text: Buffer;
  /** Per placeholder k, the start and end in the body of the literal it stands for, quotes included: at 2k and 2k + 1. */
  readonly spans: Int32Array;
}

/** Most long strings one value may have taken out; past it the value is decoded as it is. */
const MAX_LITERALS = 65_536;

/**
 * The JSON value at [start, end) of `body`, at nesting `depth` (its container's), with every string
 * value (never a key) of at least `minBytes`, quotes included, replaced by a placeholder, walked in
 * WebAssembly (`compact` in json-skip.wat); null when it is not valid JSON, nests past
 * `maxDepthGiven` or has more long strings than MAX_LITERALS. What the placeholders stand for is
 * read from the body's bytes when the value is written again (lib/json-bytes.ts) or decoded.
 */
export function compactValue(body: Buffer, start: number, end: number, depth: number, maxDepthGiven: number, minBytes: number): CompactValue | null {
  if (copied !== body) {
    if (!isUtf8(body)) return null;
    valueSkipper(body);
  }
  const m = wasm!;
  const outAt = (body.length + 7) & ~7;
  const tableAt = (outAt + (end - start) + 7) & ~7;
  const need = tableAt + 4 + 8 * MAX_LITERALS;
  if (wasmBytes!.length < need) {
    growTo(m.memory, need);
    wasmBytes = new Uint8Array(m.memory.buffer);
    wasmWords = new Int32Array(m.memory.buffer);
  }
  const length = m.compact(start, end, outAt, minBytes, tableAt, MAX_LITERALS, depth, maxDepthGiven);
  if (length < 0) return null;
  const count = wasmWords![tableAt >> 2];
  return {
    text: Buffer.copyBytesFrom(wasmBytes!, outAt, length),
    spans: wasmWords!.slice((tableAt >> 2) + 1, (tableAt >> 2) + 1 + 2 * count),
  };
}

/**
 * The array whose elements' `keys` members are recorded into `out`, four numbers an element as
 * ElementSpans has them (an element giving a key twice fails the scan); the array at nesting
 * `depth`, its elements' members one deeper. What elementsInWasm leaves to JavaScript.
 */
function arrayOfObjects(keys: readonly Buffer[], depth: number, out: number[]): boolean {
  if (depth > maxDepth) return false;
  p++;
  ws();
  if (p < n && b[p] === CLOSE_BRACKET) {
    p++;
    return true;
  }
  for (;;) {
    if (p < n && b[p] === OPEN_BRACE) {
      if (!objectWithKeys(keys, depth + 1, out)) return false;
    } else {
      if (!value(depth)) return false;
      out.push(-1, -1, -1, -1);
    }
    ws();
    if (p >= n) return false;
    const c = b[p++];
    if (c === CLOSE_BRACKET) return true;
    if (c !== COMMA) return false;
    ws();
  }
}

function objectWithKeys(keys: readonly Buffer[], depth: number, out: number[]): boolean {
  if (depth > maxDepth) return false;
  p++;
  ws();
  const found = [-1, -1, -1, -1];
  if (p < n && b[p] === CLOSE_BRACE) {
    p++;
  } else {
    for (;;) {
      if (p >= n || b[p] !== QUOTE) return false;
      const k = p;
      if (!string()) return false;
      let match = -1;
      for (let w = 0; w < keys.length; w++) {
        if (hadEscape ? keys[w].equals(Buffer.from(decodedKey(k), 'utf8')) : spells(keys[w], k + 1, p - 1)) match = w;
      }
      // Spelled with escapes, it is left to the full parse, as a top-level one is.
      if (match >= 0 && hadEscape) return false;
      ws();
      if (p >= n || b[p] !== COLON) return false;
      p++;
      ws();
      const from = p;
      if (!value(depth)) return false;
      if (match >= 0) {
        if (found[2 * match] >= 0) return false;
        found[2 * match] = from;
        found[2 * match + 1] = p;
      }
      ws();
      if (p >= n) return false;
      const c = b[p++];
      if (c === CLOSE_BRACE) break;
      if (c !== COMMA) return false;
      ws();
    }
  }
  out.push(found[0], found[1], found[2], found[3]);
  return true;
}

/** Whether `b[from, to)` is `word` (a loop: Buffer#compare cost 0.18 µs a call through its bindings). */
function spells(word: Buffer, from: number, to: number): boolean {
  if (to - from !== word.length) return false;
  for (let j = 0; j < word.length; j++) if (b[from + j] !== word[j]) return false;
  return true;
}

/** The key whose opening quote is at `from` and which ends at `p`, decoded (rare: only keys with escapes). */
function decodedKey(from: number): string {
  return JSON.parse(b.toString('utf8', from, p)) as string;
}

/** Whether the string last scanned had a backslash escape (a `var`, as the scan's state above). */
var hadEscape = false;

/** 1 for the bytes that end a plain run inside a string: control bytes, the quote, the backslash. */
const STOPS = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) STOPS[c] = 1;
STOPS[QUOTE] = 1;
STOPS[BACKSLASH] = 1;

/**
 * A string starting at `p` (its opening quote); advances past its closing quote and says in
 * `hadEscape` whether it had an escape. The body and its bounds are read into locals: module
 * variables are reloaded on every pass of a loop that calls out.
 */
function string(): boolean {
  hadEscape = false;
  const buf = b;
  const end = n;
  let i = p + 1;
  for (;;) {
    while (i < end && STOPS[buf[i]] === 0) i++;
    if (i >= end) return false;
    const c = buf[i];
    if (c === QUOTE) {
      p = i + 1;
      return true;
    }
    if (c !== BACKSLASH) return false;
    i = escape(i);
    if (i < 0) return false;
  }
}

let wasm: SkipModule | null = null;
/** Views of the module's memory, made again only when it grows. */
let wasmBytes: Uint8Array | null = null;
let wasmWords: Int32Array | null = null;
/** The body whose copy the module's memory holds. */
let copied: Buffer | null = null;

/** The module with `body` in its memory and `extra` bytes free from `free`, for lib/span-writer.ts; null for a body not valid UTF-8. */
export function bodyMemory(body: Buffer, extra: number): { module: SkipModule; bytes: Uint8Array; words: Int32Array; free: number } | null {
  const free = (body.length + SCRATCH_BYTES + 7) & ~7;
  if (copied !== body || wasmBytes!.length < free + extra) {
    if (copied !== body && !isUtf8(body)) return null;
    valueSkipper(body, free + extra - body.length);
  }
  return { module: wasm!, bytes: wasmBytes!, words: wasmWords!, free };
}

/** The skipper over a copy of `body` in the module's memory, grown to fit on first need (`room` past the body: its scratch at least). */
function valueSkipper(body: Buffer, room = SCRATCH_BYTES): (from: number, to: number, depth: number, max: number) => number {
  if (wasm === null) {
    wasm = instantiate<SkipModule>(WASM_BASE64);
  }
  // The memory's buffer is read only when it must grow: each read is a call into V8 (~130 instructions).
  const need = body.length + room;
  if (wasmBytes === null || wasmBytes.length < need) {
    const memory = wasm.memory;
    growTo(memory, need);
    wasmBytes = new Uint8Array(memory.buffer);
    wasmWords = new Int32Array(memory.buffer);
  }
  wasmBytes.set(body, 0);
  copied = body;
  return wasm.value;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

/** The escape at `i` (its backslash): the offset after it, or -1 when it is not a JSON escape. */
function escape(i: number): number {
  hadEscape = true;
  if (i + 1 >= n) return -1;
  const c = b[i + 1];
  if (c === 0x75) {
    if (i + 5 >= n || !isHex(b[i + 2]) || !isHex(b[i + 3]) || !isHex(b[i + 4]) || !isHex(b[i + 5])) return -1;
    return i + 6;
  }
  // " \ / b f n r t
  if (c === QUOTE || c === BACKSLASH || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74) return i + 2;
  return -1;
}
