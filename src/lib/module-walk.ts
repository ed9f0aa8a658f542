import { bodyMemory, moduleHolding, REGION_BYTES, spareRoom } from './json-scan.js';
import type { RecordKeys, Records } from './json-records.js';
import type { SpanWriter } from './span-writer.js';
import type { SkipModule } from './wasm/json-skip-exports.js';

// A translation's walk over a body's records made in the module, where the records and the body
// are (json-skip.wat's $conversation for a Messages conversation, $items for a Responses input):
// the walk writes the words a SpanWriter would have noted, which the writer then takes over
// (SpanWriter#noted). In JavaScript each of the walk's typed array reads is checked (the array's
// map, its buffer not detached, the bounds: uWebSockets.js detaches every request chunk's buffer,
// so V8 keeps the detached check everywhere), ~350 instructions a message of the bench's Claude
// Code turn in the loop alone (callgrind --dump-instr; docs/benchmarks.md, twenty-second session).

/** Where a walk's pieces are in the module's memory (bytes), and how many records it walks. */
export interface WalkLayout {
  records: number;
  count: number;
  /** The constants' codes, in the order the walk reads them. */
  consts: number;
  /** The part keys' table, and the room for one value's parts' records (at most partsCap). */
  keys: number;
  parts: number;
  partsCap: number;
  /** The commands: from cmds to at most cap. Before them, their bytes (cmds - 8) and the walk's own result (cmds - 4). */
  cmds: number;
  cap: number;
}

/** The walk in the module: the offset past its last command, or -1 when it leaves the records to JavaScript. */
export type WalkCall = (m: SkipModule, at: WalkLayout, raw: Buffer, arg: number) => number;

/** Room for one value's parts' records (a tool result's, a function output's); more are left to JavaScript. */
const PARTS_BYTES = 8192;

export class ModuleWalk {
  readonly #stride: number;
  readonly #constants: Int32Array;
  readonly #partKeys: RecordKeys;
  readonly #partsCap: number;
  readonly #min: number;
  readonly #at: WalkLayout = { records: 0, count: 0, consts: 0, keys: 0, parts: 0, partsCap: 0, cmds: 0, cap: 0 };

  /**
   * A walk over records of `stride` numbers that writes `constants` (codes) and scans parts by
   * `partKeys`; bodies of fewer than `min` records are left to JavaScript, whose walk of a few
   * costs less than the module's ~1,000 instructions before its first record (its records and
   * constants copied in, the call; callgrind, the bench's 1 KB requests).
   */
  constructor(stride: number, constants: Int32Array, partKeys: RecordKeys, min: number) {
    this.#stride = stride;
    this.#constants = constants;
    this.#partKeys = partKeys;
    this.#partsCap = Math.floor((PARTS_BYTES - 4) / (4 * partKeys.stride));
    this.#min = min;
  }

  /**
   * Lays `records` out in the module's spare region and runs `call` (`arg` handed on); notes its
   * commands in `w` and returns the number the walk left at cmds - 4, or -1 when it left the
   * records to JavaScript (or there was no room, or too few records): nothing is then noted.
   */
  run(w: SpanWriter, raw: Buffer, records: Records, arg: number, call: WalkCall): number {
    if (records.count < this.#min || records.stride !== this.#stride || moduleHolding(raw) === null) return -1;
    // The body is the one in the module's memory (no copy made): its views.
    const room = bodyMemory(raw, 0)!;
    const at = this.#at;
    const n = records.count * this.#stride;
    at.records = spareRoom(raw.length);
    at.count = records.count;
    at.consts = at.records + 4 * n;
    at.keys = at.consts + 4 * this.#constants.length;
    at.parts = at.keys + this.#partKeys.table.length;
    at.partsCap = this.#partsCap;
    at.cmds = at.parts + PARTS_BYTES + 8;
    at.cap = at.records + REGION_BYTES;
    if (at.cmds + 64 > at.cap) return -1;
    const words = room.words;
    room.bytes.set(this.#partKeys.table, at.keys);
    // scanObject's records are a copy of exactly them: no subarray to make (~1,100 instructions).
    words.set(records.from === 0 && records.words.length === n ? records.words : records.words.subarray(records.from, records.from + n), at.records >> 2);
    words.set(this.#constants, at.consts >> 2);
    const end = call(room.module, at, raw, arg);
    if (end < 0) return -1;
    const cmds = at.cmds >> 2;
    w.noted(words, cmds, end >> 2, words[cmds - 2]);
    return words[cmds - 1];
  }
}
