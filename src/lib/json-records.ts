// Where the members of an array's elements are, as the scan records them in WebAssembly
// (scanRecords and ScanOptions.records, lib/json-scan.ts): the names looked for, and the records.
// A translation written from the client's bytes reads a Responses body's input items, a Messages
// body's messages and blocks, through them (formats/responses/input-bytes.ts,
// formats/messages/content-bytes.ts).

/** Member names scanRecords looks for, compiled once: each in a 32-byte slot, its bytes then zeros, its length at 16. */
export class RecordKeys {
  readonly table: Uint8Array;
  readonly count: number;
  /** The member whose array's elements are recorded too, in the same walk, and by which names; -1 and null for none. */
  readonly nestedIndex: number;
  readonly nested: RecordKeys | null;
  /** Numbers per element: its first byte, a start and an end per name, and with nesting where its array's records are. */
  readonly stride: number;

  constructor(names: readonly string[], nested: { key: string; keys: RecordKeys } | null = null) {
    this.count = names.length;
    this.nestedIndex = nested === null ? -1 : names.indexOf(nested.key);
    if (nested !== null && (this.nestedIndex < 0 || nested.keys.nested !== null)) throw new Error('a nested record key must be one of the names, nested once');
    this.nested = nested?.keys ?? null;
    this.stride = 1 + 2 * names.length + (nested === null ? 0 : 1);
    this.table = new Uint8Array(32 * names.length);
    const view = new DataView(this.table.buffer);
    names.forEach((name, k) => {
      const bytes = Buffer.from(name, 'utf8');
      if (bytes.length > 16) throw new Error(`record key '${name}' is longer than 16 bytes`);
      this.table.set(bytes, 32 * k);
      view.setInt32(32 * k + 16, bytes.length, true);
    });
  }
}

/**
 * An array's elements as scanRecords found them: element e's numbers at `from + stride * e` of
 * `words`, its first byte, then for each key the start and end of that member's value (-1 and -1
 * when it has none; a name given twice counts its last value, as JSON.parse has it).
 */
export interface Records {
  readonly words: Int32Array;
  readonly from: number;
  readonly count: number;
  readonly stride: number;
  /** The offset past the array. */
  readonly end: number;
  /** With nesting: the memory the nested arrays' records are in (nestedRecords). */
  readonly nestedWords?: Int32Array;
}

/**
 * The records of the array element e's nested member holds (RecordKeys' `nested`), in the same
 * memory as `r`'s came from; null when that member is absent or not an array.
 */
export function nestedRecords(r: Records, e: number, keys: RecordKeys, end: number): Records | null {
  const at = r.words[r.from + e * r.stride + r.stride - 1];
  if (at < 0 || r.nestedWords === undefined) return null;
  const words = r.nestedWords;
  return { words, from: (at >> 2) + 1, count: words[at >> 2], stride: keys.nested!.stride, end };
}

/**
 * A JSON value's exact bytes, for valueIs: also as little-endian 32-bit words, the last one
 * ending where the value ends (overlapping the one before when the length is no multiple of
 * four), compared four bytes a load.
 */
export class Literal {
  readonly bytes: Buffer;
  readonly length: number;
  readonly words: Int32Array;

  constructor(bytes: Buffer) {
    this.bytes = bytes;
    this.length = bytes.length;
    const n = bytes.length < 4 ? 0 : Math.ceil(bytes.length / 4);
    this.words = new Int32Array(n);
    for (let i = 0; i < n; i++) this.words[i] = bytes.readInt32LE(Math.min(4 * i, bytes.length - 4));
  }
}

/** A string's JSON literal (quotes included): a `word` for valueIs. */
export function literalBytes(s: string): Literal {
  return new Literal(Buffer.from(JSON.stringify(s)));
}

/** A JSON token (`true`, `null`) as a `word` for valueIs. */
export function tokenBytes(token: string): Literal {
  return new Literal(Buffer.from(token));
}

/**
 * The body valueIs last read, a view of all of its memory, and where the body starts in it. A
 * small body is a slice of Node's shared pool, so the view is made once per memory, not per
 * body: with a view made per body the 1 KB chat → Anthropic request counted 1,700–2,100
 * instructions over the byte loop's (two paired counts, bench:instructions gateway-anthropic).
 * The body's `buffer` and `byteOffset` are read once per body, not per compare: with the uWS
 * detach protector invalidated (below) `buffer` is a call into the runtime, and read per compare
 * it and its inline-cache misses cost gateway-messages-agent ~220k instructions a request on the
 * main thread (callgrind: Builtins_LoadIC 121.7k, TypedArrayPrototypeBuffer and GetBuffer 55k,
 * ByteOffset 22.6k). The last body is held until the next one is read: one reference, no copy.
 */
let lastBody: Buffer | null = null;
let base = 0;
let viewed: ArrayBufferLike | null = null;
let view: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));

function viewOf(body: Buffer): void {
  const memory = body.buffer;
  if (memory !== viewed) {
    view = new DataView(memory);
    viewed = memory;
  }
  base = body.byteOffset;
  lastBody = body;
}

/**
 * Whether body[from, to) (a value a record points at) is exactly `word`'s bytes. Four bytes a
 * load: the uWebSockets.js server detaches each request chunk's ArrayBuffer once read, which
 * makes V8 check every typed array access of the process for a detached buffer, and a byte loop
 * then took 51 ns to compare `"function_call_output"`, 32-bit loads 15 ns (node 20, a detached
 * buffer in the process, scratch measurement); writtenChat on the bench's 206 KB Codex turn
 * 197 → 189 µs (wall clock, scratch; docs/benchmarks.md, eighth session).
 */
export function valueIs(body: Buffer, from: number, to: number, word: Literal): boolean {
  const n = word.length;
  if (to - from !== n) return false;
  if (n < 4) {
    const b = word.bytes;
    for (let j = 0; j < n; j++) if (body[from + j] !== b[j]) return false;
    return true;
  }
  if (body !== lastBody) viewOf(body);
  const at = base + from;
  const w = word.words;
  const last = w.length - 1;
  for (let i = 0; i < last; i++) if (view.getInt32(at + 4 * i, true) !== w[i]) return false;
  return view.getInt32(at + n - 4, true) === w[last];
}
