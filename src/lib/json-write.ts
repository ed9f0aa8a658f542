import { WASM_BASE64 } from './wasm/json-skip.js';
import { growTo, instantiate, type WasmMemory } from './wasm-instance.js';

// JSON.stringify for the plain data the translators build and send (objects, arrays, strings,
// numbers, booleans, null): the same text, written in JavaScript around each value. V8 11's
// JSON.stringify copies any string longer than a few characters one character at a time
// through a checked append (~27 instructions a character: 26,000 for the benchmark's 1 KB
// message, callgrind), and costs ~1,500 instructions a call before the first character; a
// string that needs no escaping is written here as it is, after a check at native speed.
// test/lib/json-write.test.ts holds it to JSON.stringify on random values.

/** Strings shorter than this are checked character by character; longer ones at native speed. */
const SHORT = 32;
/** Deeper values are left to JSON.stringify (which also reports a cycle as it always has). */
const MAX_DEPTH = 64;
const QUOTE = 0x22;

/** The text JSON.stringify(value) gives, for a value that is not undefined at the top. */
export function writeJson(value: unknown): string {
  return write(value, 0) ?? JSON.stringify(value);
}

/** A number's JSON text, as JSON.stringify(n) writes it (null for NaN and the infinities). */
export function jsonNumber(n: number): string {
  return Number.isFinite(n) ? String(n) : 'null';
}

/** A string's JSON literal, as JSON.stringify(s) writes it. */
export function jsonString(s: string): string {
  return plain(s) ? `"${s}"` : JSON.stringify(s);
}

/** JSON text, or undefined where JSON.stringify leaves a member out (undefined, functions, symbols). */
function write(v: unknown, depth: number): string | undefined {
  switch (typeof v) {
    case 'string':
      return plain(v) ? `"${v}"` : JSON.stringify(v);
    case 'number':
      return jsonNumber(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object':
      if (v === null) return 'null';
      if (depth >= MAX_DEPTH) return JSON.stringify(v);
      if (Array.isArray(v)) return array(v, depth + 1);
      // Anything but a plain object (a Date, a boxed value, an object with toJSON) is JSON.stringify's.
      if (Object.getPrototypeOf(v) !== Object.prototype || typeof (v as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(v);
      return object(v as Record<string, unknown>, depth + 1);
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default:
      return JSON.stringify(v); // a bigint: JSON.stringify throws, as it always did
  }
}

function array(a: readonly unknown[], depth: number): string {
  if (a.length === 0) return '[]';
  let out = '[';
  for (let i = 0; i < a.length; i++) {
    if (i > 0) out += ',';
    out += write(a[i], depth) ?? 'null';
  }
  return `${out}]`;
}

function object(o: Record<string, unknown>, depth: number): string {
  let out = '{';
  // Object.keys: a plain object's own enumerable keys in JSON.stringify's order.
  const keys = Object.keys(o);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const value = write(o[k], depth);
    if (value === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${key(k)}:${value}`;
  }
  return `${out}}`;
}

/** Keys repeat from object to object: their literals are kept. */
const KEYS = new Map<string, string>();
const KEYS_KEPT = 512;

function key(k: string): string {
  let q = KEYS.get(k);
  if (q === undefined) {
    q = plain(k) ? `"${k}"` : JSON.stringify(k);
    if (KEYS.size >= KEYS_KEPT) KEYS.clear();
    KEYS.set(k, q);
  }
  return q;
}

/** Whether `s` is written between quotes as it is: no quote, backslash, control character or lone surrogate. */
export function plainJson(s: string): boolean {
  return plain(s);
}

function plain(s: string): boolean {
  const n = s.length;
  if (n < SHORT) {
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c === QUOTE || c === 0x5c || (c >= 0xd800 && c < 0xe000)) return false;
    }
    return true;
  }
  if (s.indexOf('"') >= 0 || s.indexOf('\\') >= 0 || !(s as unknown as WellFormed).isWellFormed()) return false;
  return noControl(s);
}

/** ES2024's String#isWellFormed (Node 20 has it; the compiler's library is ES2023): O(1) on a one-byte string. */
interface WellFormed {
  isWellFormed(): boolean;
}

let wasm: { memory: WasmMemory; skip: (from: number, to: number) => number } | null = null;
/** The module's memory as a Buffer (its latin1 write is one copy for a one-byte string). */
let bytes: Buffer | null = null;

/**
 * Whether `s` (no quote or backslash in it) has no control character, found in WebAssembly
 * sixteen bytes at a time: its characters' low bytes are written to the memory (a copy for a
 * one-byte string), then a quote, and the JSON string skipper (wasm/json-skip.wat) must
 * reach that quote. A character whose low byte is a control byte or a quote (U+010A, U+0122)
 * stops it too, and the string is then left to JSON.stringify: a check that errs only that way.
 */
function noControl(s: string): boolean {
  if (wasm === null) {
    wasm = instantiate<NonNullable<typeof wasm>>(WASM_BASE64);
  }
  const n = s.length;
  if (bytes === null || bytes.length < n + 1) {
    const memory = wasm.memory;
    growTo(memory, n + 1);
    bytes = Buffer.from(memory.buffer);
  }
  bytes.write(s, 0, n, 'latin1');
  bytes[n] = QUOTE;
  return wasm.skip(0, n + 1) === n + 1;
}
