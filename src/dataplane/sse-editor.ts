import { emptyArrayAt, modelValueIn, nullValueAt } from '../lib/json-text.js';

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
  /** Whether the last line that went out was blank (an event boundary); true at the start. */
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

  /** `lines` holds whole lines only, each ending in a newline. */
  #edit(lines: Buffer): Buffer {
    const text = lines.toString('latin1');
    // Next occurrences, found once and moved forward, so a chunk of many lines is searched once.
    let model = this.#model === null ? -1 : text.indexOf(MODEL);
    let usage = this.#dropUsage ? text.indexOf(USAGE) : -1;
    let out: Buffer[] | null = null;
    let copied = 0;
    for (let s = 0; s < text.length;) {
      const e = text.indexOf('\n', s) + 1;
      const blank = e - s === 1 || (e - s === 2 && text.charCodeAt(s) === 0x0d);
      if (blank) {
        if (this.#dropBlank) {
          (out ??= []).push(lines.subarray(copied, s));
          copied = e;
        } else {
          this.#atBoundary = true;
        }
        this.#dropBlank = false;
        s = e;
        continue;
      }
      this.#dropBlank = false;
      if (text.startsWith(DATA, s)) {
        if (!this.#done && text.startsWith(DONE, s)) {
          this.#done = true;
          const before = this.#beforeDone?.(this.#atBoundary) ?? null;
          if (before !== null) {
            (out ??= []).push(lines.subarray(copied, s), before);
            copied = s;
          }
        } else if (usage >= 0 && usage < e && usageOnly(text, usage, s, e)) {
          (out ??= []).push(lines.subarray(copied, s));
          copied = e;
          this.#dropBlank = true;
          s = e;
          usage = text.indexOf(USAGE, e);
          if (model >= 0 && model < e) model = text.indexOf(MODEL, e);
          continue;
        } else if (model >= 0 && model < e) {
          const v = modelValueIn(text, model, e);
          if (v !== null) {
            (out ??= []).push(lines.subarray(copied, v[0]), this.#model!);
            copied = v[1];
          }
        }
      }
      this.#atBoundary = false;
      if (usage >= 0 && usage < e) usage = text.indexOf(USAGE, e);
      if (model >= 0 && model < e) model = text.indexOf(MODEL, e);
      s = e;
    }
    if (out === null) return lines;
    out.push(lines.subarray(copied));
    return Buffer.concat(out);
  }
}

/** Whether the data line [s, e) whose first `"usage"` key is at `u` is a usage-only event: a usage that is not null, and no or empty choices. */
function usageOnly(text: string, u: number, s: number, e: number): boolean {
  if (nullValueAt(text, u + USAGE.length) >= 0) return false;
  const c = text.indexOf(CHOICES, s);
  return c < 0 || c >= e || emptyArrayAt(text, c + CHOICES.length);
}
