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

/** A string's JSON literal as bytes (quotes included): a `word` for valueIs. */
export function literalBytes(s: string): Buffer {
  return Buffer.from(JSON.stringify(s));
}

/** Whether body[from, to) (a value a record points at) is exactly `word`'s bytes. */
export function valueIs(body: Buffer, from: number, to: number, word: Buffer): boolean {
  if (to - from !== word.length) return false;
  for (let j = 0; j < word.length; j++) if (body[from + j] !== word[j]) return false;
  return true;
}
