import { emptyArrayAt, nullValueAt, stringValueAt, valueAfterKey } from '../lib/json-text.js';

const NL = 0x0a;
const DATA = 'data: ';
const DONE = 'data: [DONE]';
const MODEL = '"model"';
const USAGE = '"usage"';
const CHOICES = '"choices"';
const EMPTY = Buffer.alloc(0);
/**
 * Longest unfinished line held back for editing. An event is a few hundred bytes; a longer
 * line is forwarded as it comes, unedited, so an upstream that never ends a line cannot grow
 * the gateway's memory.
 */
const MAX_HOLD = 256 * 1024;

export interface SseEdits {
  /** The model id the client asked for, as JSON text, put in place of every event's own; null to leave models alone. */
  model: string | null;
  /** Drop the usage-only event (no or empty `choices`), which the client did not ask for. */
  dropUsage: boolean;
  /**
   * Called once, where the `data: [DONE]` line begins, with whether the bytes before it end an
   * event: returns bytes to put before it (an estimated usage event), or null.
   */
  beforeDone: ((atBoundary: boolean) => Buffer | null) | null;
}

/**
 * Edits a chat completion stream on its way to the client, whole lines at a time, for what
 * byte-for-byte forwarding cannot do: the model the client asked for in place of the
 * provider's, the usage chunk dropped when the client did not ask for it. Lines are found by
 * newline and values by substring search over a latin1 copy (a byte a character): nothing is
 * parsed or re-serialised, and a chunk with nothing to edit is returned as it came. An
 * unfinished line is held back until its newline.
 */
export class SseEditor {
  readonly #model: Buffer | null;
  readonly #dropUsage: boolean;
  readonly #beforeDone: ((atBoundary: boolean) => Buffer | null) | null;
  #held: Buffer[] = [];
  #heldBytes = 0;
  /** Inside a line longer than MAX_HOLD: its bytes go out as they come, up to its newline. */
  #passing = false;
  /** Whether the lines edited so far end with a blank line (an event boundary); true at the start. */
  #atBoundary = true;
  #done = false;
  /** The blank line that ends a dropped event is dropped with it. */
  #dropBlank = false;

  constructor(e: SseEdits) {
    this.#model = e.model === null ? null : Buffer.from(e.model);
    this.#dropUsage = e.dropUsage;
    this.#beforeDone = e.beforeDone;
  }

  /** The bytes to forward for `chunk`: its whole lines, edited, after any held back before. */
  push(chunk: Buffer): Buffer {
    if (this.#passing) {
      const nl = chunk.indexOf(NL);
      if (nl < 0) return chunk;
      this.#passing = false;
      this.#atBoundary = false;
      const rest = this.push(chunk.subarray(nl + 1));
      return rest.length === 0 ? chunk.subarray(0, nl + 1) : Buffer.concat([chunk.subarray(0, nl + 1), rest]);
    }
    const lastNl = chunk.lastIndexOf(NL);
    if (lastNl < 0) return this.#hold(chunk);
    let lines = chunk.subarray(0, lastNl + 1);
    if (this.#heldBytes > 0) {
      this.#held.push(lines);
      lines = Buffer.concat(this.#held, this.#heldBytes + lines.length);
      this.#held = [];
      this.#heldBytes = 0;
    }
    const edited = this.#edit(lines);
    if (lastNl === chunk.length - 1) return edited;
    const overflow = this.#hold(chunk.subarray(lastNl + 1));
    return overflow.length === 0 ? edited : Buffer.concat([edited, overflow]);
  }

  /** Bytes still held back (an unfinished line), unedited; the editor is empty afterwards. */
  flush(): Buffer {
    const held = this.#heldBytes === 0 ? EMPTY : Buffer.concat(this.#held, this.#heldBytes);
    this.#held = [];
    this.#heldBytes = 0;
    return held;
  }

  /** Keeps an unfinished line; past MAX_HOLD, returns it to be forwarded as it is. */
  #hold(piece: Buffer): Buffer {
    if (this.#heldBytes + piece.length <= MAX_HOLD) {
      this.#held.push(piece);
      this.#heldBytes += piece.length;
      return EMPTY;
    }
    this.#passing = true;
    const held = this.flush();
    return held.length === 0 ? piece : Buffer.concat([held, piece]);
  }

  /**
   * `lines` holds whole lines only, each ending in a newline. Driven by what it looks for, not
   * by lines: one search per event for `"model"` (and, when dropping usage, for `"usage"`), and
   * one for [DONE] while an estimate may go before it. A per-line walk cost about twice as much
   * (bench:instructions, gateway-stream-renamed).
   */
  #edit(lines: Buffer): Buffer {
    const text = lines.toString('latin1');
    let out: Buffer[] | null = null;
    let copied = 0;
    let from = 0;
    if (this.#dropBlank) {
      // The blank line that ends a usage event dropped at the end of the last chunk.
      this.#dropBlank = false;
      from = text.charCodeAt(0) === NL ? 1 : text.startsWith('\r\n') ? 2 : 0;
      if (from > 0) {
        out = [];
        copied = from;
      }
    }
    let drop = this.#dropUsage ? usageOnlyLine(text, from) : -1;
    let done = this.#done || this.#beforeDone === null ? -1 : doneLine(text, from);
    let model = this.#model === null ? -1 : text.indexOf(MODEL, from);
    for (;;) {
      if (drop >= 0 && (model < 0 || drop <= model) && (done < 0 || drop < done)) {
        // The usage-only event: its data line and the blank line after it.
        let end = text.indexOf('\n', drop) + 1;
        if (end === text.length) this.#dropBlank = true;
        else if (text.charCodeAt(end) === NL) end += 1;
        else if (text.startsWith('\r\n', end)) end += 2;
        (out ??= []).push(lines.subarray(copied, drop));
        copied = end;
        if (model >= 0 && model < end) model = text.indexOf(MODEL, end);
        drop = -1;
      } else if (done >= 0 && (model < 0 || done < model)) {
        this.#done = true;
        const before = this.#beforeDone!(done >= 2 ? text.charCodeAt(done - 1) === NL && text.charCodeAt(done - 2) === NL
          : done === 1 ? text.charCodeAt(0) === NL : this.#atBoundary);
        if (before !== null) {
          (out ??= []).push(lines.subarray(copied, done), before);
          copied = done;
        }
        done = -1;
      } else if (model >= 0) {
        const eol = text.indexOf('\n', model);
        const at = valueAfterKey(text, model + MODEL.length);
        const v = at < 0 ? null : stringValueAt(text, at, eol);
        if (v !== null) {
          (out ??= []).push(lines.subarray(copied, v[0]), this.#model!);
          copied = v[1];
        }
        // One model an event: once found, the rest of its line is not searched.
        model = text.indexOf(MODEL, at < 0 ? model + 1 : eol);
      } else {
        break;
      }
    }
    const n = text.length;
    this.#atBoundary = n === 1 || text.charCodeAt(n - 2) === NL;
    if (out === null) return lines;
    out.push(lines.subarray(copied));
    return Buffer.concat(out);
  }
}

/**
 * Where the usage-only data line (a usage that is not null, and no or empty choices) begins, or
 * -1. Only the last `"usage"` at or after `from` is looked at: the usage chunk is a stream's last
 * event, and content chunks (`"usage":null`, or a running usage beside their choices) are kept.
 */
function usageOnlyLine(text: string, from: number): number {
  const u = text.lastIndexOf(USAGE);
  if (u < from || nullValueAt(text, u + USAGE.length) >= 0) return -1;
  const s = text.lastIndexOf('\n', u) + 1;
  if (s < from || !text.startsWith(DATA, s)) return -1;
  const e = text.indexOf('\n', u);
  const c = text.indexOf(CHOICES, s);
  return c < 0 || c > e || emptyArrayAt(text, c + CHOICES.length) ? s : -1;
}

/** Where the first `data: [DONE]` line at or after `from` begins, or -1 (generated text may contain the words, but not at a line's start). */
function doneLine(text: string, from: number): number {
  for (let d = text.indexOf(DONE, from); d >= 0; d = text.indexOf(DONE, d + 1)) {
    if (d === 0 || text.charCodeAt(d - 1) === NL) return d;
  }
  return -1;
}
