import type { ByteSink } from './byte-text.js';
import { outBuffer } from './out-slab.js';
import { growTo, instantiate, type WasmMemory } from './wasm-instance.js';
import { WASM_BASE64 } from './wasm/delta-events.js';

// A translated stream's bulk, its plain text deltas, written in WebAssembly (wasm/delta-events.wat):
// a run of lines in the stream's frame (a chat stream's, learnt by ChatDeltas, or a text block's
// content_block_delta in an Anthropic stream) is matched and written as the other format's events
// in one call over the lines' bytes. In JavaScript each delta was made byte text, its frame compared
// by slice and ===, its event joined from five pieces and encoded again, ~10,000 instructions a
// delta (bench:instructions, gateway-responses-stream, issue 17). A line the run does not match
// is left to the translator's own reading (ChatDeltas.match, the Anthropic translator's fast path,
// or the full parse), which is what test/formats/chat-deltas.test.ts and
// test/providers/anthropic-stream-fast.test.ts hold this to.

interface EventsModule {
  memory: WasmMemory;
  events(setup: number, openLen: number, closeLen: number, preLen: number, midLen: number, postLen: number,
    flags: number, at: number, end: number, out: number, text: number, seq: number): number;
}

/** The event has a sequence number after its first piece. */
export const NUMBERED = 1;
/** The texts are kept (DeltaEvents.text). */
export const KEEP_TEXT = 2;
const OBFUSCATED = 4;
/** An empty text ("") has its event too (else it writes nothing). */
export const EMPTY_TOO = 8;

/**
 * What a delta's data line holds around its text literal: `open`, the literal, `close`, and,
 * when `obfuscated`, an `"obfuscation"` member (ChatDeltas learns a chat stream's).
 */
export interface DeltaFrame {
  readonly open: string;
  readonly close: string;
  readonly obfuscated: boolean;
}
/** Where the lines are copied: past the three results (0, 4, 8) and the obfuscation key (16). */
const LINES = 32;
/** Bytes past each region the module may read or write: it copies sixteen at a time. */
const SLACK = 16;
/** The most digits a sequence number is written with. */
const DIGITS = 10;

let wasm: EventsModule | null = null;
let mem = Buffer.alloc(0);
let results = new Int32Array(0);
/** The lines now in the module's memory: a stream's chunk is copied in once however many runs read it. */
let copied: Buffer | null = null;

function module(): EventsModule {
  if (wasm === null) {
    wasm = instantiate<EventsModule>(WASM_BASE64);
    views();
  }
  return wasm;
}

function views(): void {
  mem = Buffer.from(wasm!.memory.buffer);
  results = new Int32Array(wasm!.memory.buffer, 0, 3);
}

function reserve(bytes: number): void {
  if (bytes <= mem.length) return;
  growTo(wasm!.memory, bytes);
  views();
}

/**
 * One stream's text-delta events: each delta in the stream's frame becomes `pre`, the sequence
 * number (with NUMBERED), `mid`, the delta's literal as it came, and `post`.
 */
export class DeltaEvents {
  readonly #flags: number;
  #setup = Buffer.alloc(0);
  #openLen = 0;
  #closeLen = 0;
  #preLen = 0;
  #midLen = 0;
  #postLen = 0;
  #obfuscated = 0;
  #openLast = 0;
  /** The sequence number after the last run's events. */
  seq = 0;
  /** With KEEP_TEXT, the last run's texts joined, as byte text (the insides of their literals). */
  text = '';

  constructor(flags: number) {
    this.#flags = flags;
  }

  /** Takes the frame and the event's pieces (byte text); false while there is no frame (an empty `open`). */
  template(frame: DeltaFrame, pre: string, mid: string, post: string): boolean {
    const open = frame.open;
    if (open === '') return false;
    const close = frame.close;
    this.#setup = Buffer.from(open + close + pre + mid + post, 'latin1');
    this.#openLen = open.length;
    this.#openLast = open.charCodeAt(open.length - 1);
    this.#closeLen = close.length;
    this.#preLen = pre.length;
    this.#midLen = mid.length;
    this.#postLen = post.length;
    this.#obfuscated = frame.obfuscated ? OBFUSCATED : 0;
    return true;
  }

  /**
   * Writes the events of the lines from `at` (complete lines, valid UTF-8, the last without its
   * newline) to `sink`, up to the first data line that is not a plain delta in the frame; returns
   * where that line starts, or a number past the end when none is left.
   */
  run(lines: Buffer, at: number, sink: ByteSink, seq: number): number {
    const n = lines.length;
    // A line that is not a delta in the frame (a finish, usage, [DONE]) seldom has the open's
    // last byte and a quote where a delta's text begins: such a run would stop at once, and a
    // call for nothing costs ~1,500 instructions (bench:instructions, gateway-responses-stream).
    const p = at + (lines[at + 5] === 0x20 ? 6 : 5) + this.#openLen;
    if (lines[p] !== 0x22 || lines[p - 1] !== this.#openLast) {
      this.seq = seq;
      this.text = '';
      return at;
    }
    const w = module();
    const setup = LINES + n + SLACK;
    const text = setup + this.#setup.length;
    const left = n - at;
    const out = text + ((this.#flags & KEEP_TEXT) !== 0 ? left + SLACK : 0);
    // Each event stands for a line of at least the frame and "data:", and adds its pieces to it.
    const events = Math.floor(left / (this.#openLen + this.#closeLen + 8)) + 1;
    reserve(out + left + events * (this.#preLen + DIGITS + this.#midLen + this.#postLen) + SLACK);
    if (copied !== lines) {
      mem.set(lines, LINES);
      copied = lines;
    }
    mem.set(this.#setup, setup);
    const stop = w.events(setup, this.#openLen, this.#closeLen, this.#preLen, this.#midLen, this.#postLen,
      this.#flags | this.#obfuscated, LINES + at, LINES + n, out, text, seq);
    const outEnd = results[0];
    if (outEnd > out) {
      // Out of the module's memory into a buffer of its own: the socket may hold it after the call.
      const bytes = outBuffer(outEnd - out);
      mem.copy(bytes, 0, out, outEnd);
      sink.bytes(bytes);
    }
    this.seq = results[2];
    this.text = results[1] > text ? mem.toString('latin1', text, results[1]) : '';
    return stop - LINES;
  }
}
