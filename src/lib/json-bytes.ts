import { writeWithLiterals, type LiteralTable } from './json-literals.js';
import { WASM_BASE64 } from './wasm/json-escape.js';
import { growTo, instantiate, type WasmMemory } from './wasm-instance.js';

// JSON.stringify's text for the plain data a translator builds, written as UTF-8 bytes: the body
// of a request sent upstream. Where writeJson (json-write.ts) builds a string, which the upstream
// client then measured (Buffer.byteLength) and encoded again as one more string, this writes
// bytes once into a WebAssembly module's memory: a string's UTF-8 bytes by Node's encoder, then,
// when any needs escaping, its literal in place, sixteen bytes at a time (wasm/json-escape.wat).
// An agent's 200 KB conversation is mostly such strings (code, with `\n` and `\"` on every
// line): JSON.stringify copies a string with escapes one character at a time, ~14 instructions a
// character (bench:instructions, gateway-messages-agent; docs/benchmarks.md).
// test/lib/json-bytes.test.ts holds it to JSON.stringify on random values.

/** Strings shorter than this are written character by character; longer ones through the module. */
const SHORT = 32;
/** Deeper values are left to JSON.stringify (which also reports a cycle as it always has). */
const MAX_DEPTH = 64;
const QUOTE = 0x22;

interface EscapeModule {
  memory: WasmMemory;
  literal(at: number, n: number): number;
}

let wasm: EscapeModule | null = null;
/** The module's memory as a Buffer (for Node's UTF-8 and latin1 writers), made again when it grows. */
let mem: Buffer = Buffer.alloc(0);
/** Where the next byte goes. `var`: a module-level `let` is checked for its temporal dead zone on every read (json-scan.ts). */
var pos = 0;

/**
 * The UTF-8 bytes of JSON.stringify(value), for a value that is not undefined at the top. With
 * `table`, the placeholders in the value's strings are written as the literals they stand for,
 * copied from the client's body: JSON.stringify of the value with every placeholder replaced by
 * its text says the same (writeWithLiterals, lib/json-literals.ts).
 */
export function writeJsonBytes(value: unknown, table: LiteralTable | null = null): Buffer {
  if (table !== null) return writeWithLiterals(value, table);
  if (wasm === null) {
    wasm = instantiate<EscapeModule>(WASM_BASE64);
    mem = Buffer.from(wasm.memory.buffer);
  }
  pos = 0;
  if (!write(value, 0)) return Buffer.from(JSON.stringify(value) ?? '', 'utf8');
  // Out of the module's memory into a buffer of its own (the socket may hold it after the call),
  // not zero-filled first as Buffer.copyBytesFrom's is: 15% of this writer's time on an agent's
  // 200 KB request went to that (--cpu-prof).
  const out = Buffer.allocUnsafe(pos);
  out.set(mem.subarray(0, pos), 0);
  return out;
}

/** Room for `n` more bytes from pos. */
function reserve(n: number): void {
  const need = pos + n;
  if (need <= mem.length) return;
  growTo(wasm!.memory, need);
  mem = Buffer.from(wasm!.memory.buffer);
}

/** Writes v's JSON; false where JSON.stringify leaves a member out (undefined, functions, symbols). */
function write(v: unknown, depth: number): boolean {
  switch (typeof v) {
    case 'string':
      string(v);
      return true;
    case 'number':
      ascii(Number.isFinite(v) ? String(v) : 'null');
      return true;
    case 'boolean':
      ascii(v ? 'true' : 'false');
      return true;
    case 'object':
      if (v === null) ascii('null');
      else if (depth >= MAX_DEPTH) text(JSON.stringify(v));
      else if (Array.isArray(v)) array(v, depth + 1);
      // Anything but a plain object (a Date, a boxed value, an object with toJSON) is JSON.stringify's.
      else if (Object.getPrototypeOf(v) !== Object.prototype || typeof (v as { toJSON?: unknown }).toJSON === 'function') text(JSON.stringify(v));
      else object(v as Record<string, unknown>, depth + 1);
      return true;
    case 'undefined':
    case 'function':
    case 'symbol':
      return false;
    default:
      text(JSON.stringify(v)); // a bigint: JSON.stringify throws, as it always did
      return true;
  }
}

function array(a: readonly unknown[], depth: number): void {
  byte(0x5b);
  for (let i = 0; i < a.length; i++) {
    if (i > 0) byte(0x2c);
    if (!write(a[i], depth)) ascii('null');
  }
  byte(0x5d);
}

function object(o: Record<string, unknown>, depth: number): void {
  byte(0x7b);
  const open = pos;
  // Object.keys: a plain object's own enumerable keys in JSON.stringify's order.
  const keys = Object.keys(o);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const v = o[k];
    const t = typeof v;
    if (t === 'undefined' || t === 'function' || t === 'symbol') continue;
    if (pos > open) byte(0x2c);
    string(k);
    byte(0x3a);
    write(v, depth);
  }
  byte(0x7d);
}

function byte(b: number): void {
  reserve(1);
  mem[pos++] = b;
}

/** Text known to be ASCII with nothing to escape (numbers, literals). */
function ascii(s: string): void {
  reserve(s.length);
  for (let i = 0; i < s.length; i++) mem[pos++] = s.charCodeAt(i);
}

/** JSON text from JSON.stringify, as UTF-8. */
function text(s: string): void {
  reserve(3 * s.length);
  pos += mem.write(s, pos, 'utf8');
}

/** A string's JSON literal: short plain ASCII ones here, the rest through the module. */
function string(s: string): void {
  const n = s.length;
  if (n < SHORT) {
    reserve(n + 2);
    let at = pos;
    mem[at++] = QUOTE;
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c === QUOTE || c === 0x5c || c >= 0x80) break;
      mem[at++] = c;
    }
    if (i === n) {
      mem[at++] = QUOTE;
      pos = at;
      return;
    }
  }
  // A lone surrogate is written as \udxxx by JSON.stringify; Node's UTF-8 encoder would replace it.
  if (!(s as unknown as WellFormed).isWellFormed()) {
    text(JSON.stringify(s));
    return;
  }
  // The bytes one past pos, then their literal from pos (wasm/json-escape.wat).
  reserve(3 * n + 2);
  const m = wasm!.literal(pos + 1, mem.write(s, pos + 1, 'utf8'));
  if (m > 0) pos += m;
  else {
    pos -= m;
    mem = Buffer.from(wasm!.memory.buffer);
  }
}

/** ES2024's String#isWellFormed (Node 20 has it; the compiler's library is ES2023): O(1) on a one-byte string. */
interface WellFormed {
  isWellFormed(): boolean;
}
