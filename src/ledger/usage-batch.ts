import { USAGE_FIELDS, type UsageField, type UsageRecord, type UsageTuple } from '../domain/usage-record.js';

/**
 * A batch of usage records as it crosses to the ledger writer: every field a number in one
 * Float64Array (a copy, when cloned), the text fields as indexes into a table of the batch's
 * distinct strings. Built a record at a time, so the main thread never serialises a whole batch
 * at once: JSON.stringify of 1,000 rows was ~7,000 instructions a row (bench:instructions) and
 * a pause of a few milliseconds every flush, and the writer then parsed the text back.
 */
export interface EncodedBatch {
  count: number;
  values: Float64Array;
  strings: string[];
}

/** Numbers a row takes: one per field, in USAGE_FIELDS order (a text field's string index, or -1 for null). */
const WIDTH = USAGE_FIELDS.length;
/** Rows room is made for at first; it doubles as needed, and is kept for the next batch. */
const FIRST_CAPACITY = 16;

/** A batch's distinct strings, and the index each was given. */
export class BatchStrings {
  list: string[] = [];
  readonly #index = new Map<string, number>();
  /** Each text field's value in the last row, and its index. */
  readonly #lastText: (string | null)[] = new Array<string | null>(WIDTH).fill(null);
  readonly #lastIndex = new Int32Array(WIDTH);

  /** The string's index in the batch, for the field in `slot`. */
  text(slot: number, s: string | null): number {
    // A field that is not a string (a caller's bug) reaches the writer as null, for a NOT NULL
    // column to refuse the batch (which then goes to the dead-letter file) rather than store junk.
    if (typeof s !== 'string') return -1;
    // Consecutive rows mostly repeat each field's value (one key, model, route): a comparison
    // with the field's last value spares the map read, and hashing a string that is new each
    // request (the model read from the body), ~0.5k instructions a row (bench:instructions).
    if (this.#lastText[slot] === s) return this.#lastIndex[slot];
    let i = this.#index.get(s);
    if (i === undefined) {
      i = this.list.length;
      this.list.push(s);
      this.#index.set(s, i);
    }
    this.#lastText[slot] = s;
    this.#lastIndex[slot] = i;
    return i;
  }

  /** A string no other row shares (a request id): appended without looking it up. */
  unique(s: string): number {
    if (typeof s !== 'string') return -1;
    this.list.push(s);
    return this.list.length - 1;
  }

  /** The strings so far; the table starts again empty. */
  take(): string[] {
    const list = this.list;
    this.list = [];
    this.#index.clear();
    this.#lastText.fill(null);
    return list;
  }
}

type RowEncoder = (v: Float64Array, o: number, r: UsageRecord, t: BatchStrings) => void;
type RowDecoder = (v: Float64Array, o: number, s: string[]) => UsageTuple;

/**
 * The encoder and decoder of one row are generated from USAGE_FIELDS once, at load, as
 * straight-line code (one assignment per field), the code that was written out by hand before
 * the field list existed, rather than a loop over the list switching on each field's kind for
 * every record on the main thread. Under callgrind (node --single-threaded, 1.1M against 0.1M
 * records through add() and take()), encoding took 1,622 instructions a record against 1,596
 * for the hand-written code (±12 between runs), decoding 856 against 836; bench:instructions
 * found no difference on the gateway's main thread (docs/benchmarks.md, issue 18).
 */
function compileEncoder(fields: readonly UsageField[]): RowEncoder {
  const lines = fields.map((f, i) => {
    const x = `r.${identifier(f.name)}`;
    switch (f.kind) {
      case 'text': case 'text?': return `v[o + ${i}] = t.text(${i}, ${x});`;
      case 'text-unique': return `v[o + ${i}] = t.unique(${x});`;
      case 'ms?': return `v[o + ${i}] = ${x} === null ? NaN : ${x};`;
      case 'bool': return `v[o + ${i}] = ${x} ? 1 : 0;`;
      default: return `v[o + ${i}] = ${x};`;
    }
  });
  return new Function('v', 'o', 'r', 't', lines.join('\n')) as RowEncoder;
}

/** Times are kept to the microsecond. */
function compileDecoder(fields: readonly UsageField[]): RowDecoder {
  const values = fields.map((f, i) => {
    const x = `v[o + ${i}]`;
    switch (f.kind) {
      case 'text': case 'text-unique': case 'text?': return `(x = ${x}) < 0 ? null : s[x]`;
      case 'ms': return `Math.round(${x} * 1000) / 1000`;
      case 'ms?': return `Number.isNaN(x = ${x}) ? null : Math.round(x * 1000) / 1000`;
      case 'bool': return `${x} === 1 ? 1 : 0`;
      default: return x;
    }
  });
  return new Function('v', 'o', 's', `let x;\nreturn [\n${values.join(',\n')}\n];`) as RowDecoder;
}

/** A field name goes into generated code: it must be a plain identifier. */
function identifier(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`usage field name ${JSON.stringify(name)} is not an identifier`);
  return name;
}

const encodeRow = compileEncoder(USAGE_FIELDS);
const decodeRow = compileDecoder(USAGE_FIELDS);

export class UsageBatchBuilder {
  #values = new Float64Array(FIRST_CAPACITY * WIDTH);
  readonly #strings = new BatchStrings();
  count = 0;

  add(r: UsageRecord): void {
    if ((this.count + 1) * WIDTH > this.#values.length) this.#grow();
    encodeRow(this.#values, this.count * WIDTH, r, this.#strings);
    this.count++;
  }

  /**
   * The batch so far, its numbers copied out at their exact size; the builder starts a new one in
   * the same array. A fresh array per batch, regrown as the batch filled, made two or three
   * typed arrays a batch where this makes one (~1 µs each, with their share of GC).
   */
  take(): EncodedBatch {
    const batch = { count: this.count, values: this.#values.slice(0, this.count * WIDTH), strings: this.#strings.take() };
    this.count = 0;
    return batch;
  }

  #grow(): void {
    const next = new Float64Array(this.#values.length * 2);
    next.set(this.#values);
    this.#values = next;
  }
}

/** The batch as rows for the writer (and the dead-letter file), in USAGE_FIELDS order. */
export function decodeBatch(b: EncodedBatch): UsageTuple[] {
  const rows: UsageTuple[] = new Array(b.count);
  for (let r = 0; r < b.count; r++) rows[r] = decodeRow(b.values, r * WIDTH, b.strings);
  return rows;
}
