import { readCounts, type Counts } from '../lib/json-counts.js';
import { canonicalStringEnd, hasAt, onlySpaceFrom } from '../lib/json-literal.js';
import { TextNeedle } from '../lib/rare-needle.js';

/** Between a chunk's head and its delta's members: one choice, index 0. */
const CHOICE = '"choices":[{"index":0,"delta":{';
/** Searched for from its `[` (lib/rare-needle.ts): from its `"`, ~2k instructions a stream. */
const CHOICE_NEEDLE = new TextNeedle(CHOICE);
/** How far from the choice's end its opening `{` stands (after `[`). */
const CHOICE_AFTER_OPEN = CHOICE.length - CHOICE.indexOf('[{') - 1;
/** The delta's members a plain chunk may have: its content alone, or (a stream's first) the role and its content, or none. */
const CONTENT = '"content":';
const ROLE_CONTENT = '"role":"assistant","content":';
/** In the learnt tail, the finish reason's value, which a chunk may give as a string (its last, usually). */
const FINISH = ',"finish_reason":null';
const OBFUSCATION = ',"obfuscation":';
/** After the head, a usage chunk's: no choice, and the usage. */
const USAGE = '"choices":[],"usage":';
// Members that may frame a text delta: top-level keys with a plain value (a string without
// escapes, a number, null; usage only null), and the choice's null logprobs and finish_reason.
// Whatever else a chunk has (an error, usage, tool calls, another choice, escapes in the id)
// keeps the stream's chunks on the full parse.
const VALUE = String.raw`(?:"[^"\\\x00-\x1f]*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|null)`;
const KEY = '"(?:id|object|created|model|system_fingerprint|service_tier|provider|obfuscation)"';
const MEMBER = `(?:${KEY}:${VALUE}|"usage":null)`;
const HEAD = new RegExp(`^\\{(?:${MEMBER},)*$`);
const TAIL = new RegExp(`^\\}(?:,"(?:logprobs|finish_reason)":null)*\\}\\](?:,${MEMBER})*\\}$`);
/** A stream whose chunks do not take this shape stops being looked at after this many tries. */
const TRIES = 4;

/**
 * Finds the text of a chat-completion chunk that is a plain text delta (a stream's bulk) in
 * place, so that a translator can skip the full parse. The chunks of one stream differ only in
 * their text: the members around it (`{"id":…,"model":…,"choices":[{"index":0,"delta":{"content":`
 * and `},"finish_reason":null}],"usage":null}`) are learnt from the first chunk of that shape,
 * checked once against the grammar above, and from then on compared whole. A chunk that
 * matches them around a string literal written as JSON.stringify writes it
 * (canonicalStringEnd) says exactly that: a valid chunk whose only effect is that text. Any
 * other chunk does not match, and is parsed. Also matched in the same frame: the first chunk's
 * `"role":"assistant"` before the content, a delta with no content, and a finish reason given
 * as a string (the last chunk's); and OpenAI's per-chunk `obfuscation` padding, when it is the
 * last member, read as a plain string.
 */
export class ChatDeltas {
  /** The text matched by match(): text[litFrom, litTo), its literal's quotes included; -1 when the delta has none. */
  litFrom = -1;
  litTo = -1;
  /** The finish reason's literal matched by match(), or -1 when it was null. */
  finFrom = -1;
  finTo = -1;
  /** The tail after the delta's content, up to the finish reason's value when it has one (then #after follows that value). */
  #tail = '';
  #after: string | null = null;
  /**
   * The usual chunk's frame in two pieces, each compared at once: the head up to the content's
   * value, and what follows it to the end (a null finish reason in place). Each comparison is a
   * slice and ===, ~400 instructions whatever its length (callgrind, issue 17). '' until a
   * frame is learnt.
   */
  #open = '';
  #close = '';
  /** The head and the choice's opening as one, and the head and a usage chunk's opening (each one compare). */
  #headChoice = '';
  #headUsage = '';
  #obfuscated = false;
  #tries = 0;

  /** The learnt frame's head up to the content's value, as byte text; '' until one is learnt. */
  get open(): string {
    return this.#open;
  }

  /** What follows the content's value in the learnt frame (a null finish reason in place), before any obfuscation member. */
  get close(): string {
    return this.#close;
  }

  /** Whether the learnt frame's chunks end with OpenAI's obfuscation member. */
  get obfuscated(): boolean {
    return this.#obfuscated;
  }

  /**
   * Whether the chunk in text[at, end) (after `data:` and its space) is a plain text delta; if
   * so, litFrom/litTo and finFrom/finTo say where its text and its finish reason are.
   */
  match(text: string, at: number, end: number): boolean {
    // Not an object (a stream's `[DONE]`): no chunk at all, so no compare of the frame for it.
    if (text.charCodeAt(at) !== 0x7b) return false;
    // The first chunk of the frame's shape teaches the frame and is matched by learning it: learn's
    // grammar checks it whole, so it needs no parse either (JSON.parse of a stream's first chunk
    // was ~10k instructions of a translated stream's ~360k; bench:instructions, issue 17), nor
    // the compares of the frame just taken from it.
    if (this.#open === '') return this.#learn(text, at, end);
    const lit = at + this.#open.length;
    // A chunk whose delta does not begin with its content (the role, none; a usage chunk) seldom
    // has the `c` of `"content"` and a quote where a delta's literal begins: it skips the compare
    // of the open, which would fail after ~450 instructions. Both bytes are ones a chunk the
    // open matches has, so no chunk it would match (and no literal it could read) is skipped.
    if (text.charCodeAt(lit) === 0x22 && text.charCodeAt(at + this.#headChoice.length + 1) === 0x63 && hasAt(text, at, this.#open)) {
      const to = canonicalStringEnd(text, lit, end);
      if (to < 0) return false;
      // A chunk with a finish reason (a stream's last text, often) has no `n` of the frame's null
      // where its reason stands: the compare of the close, which fails after ~450 instructions,
      // is skipped for it, as the byte is one the close has.
      if ((this.#after === null || text.charCodeAt(to + this.#tail.length) === 0x6e) && hasAt(text, to, this.#close) &&
        (this.#obfuscated || to + this.#close.length === end)) {
        const i = to + this.#close.length;
        if (i === end || this.#ends(text, i, end)) {
          this.litFrom = lit;
          this.litTo = to;
          this.finFrom = this.finTo = -1;
          return true;
        }
      }
      // The head and the content matched: only what follows the text is left (a finish reason).
      this.litFrom = lit;
      this.litTo = to;
      return this.#matchTail(text, to, end);
    }
    return this.#matchParts(text, at, end);
  }

  /**
   * The usage of the chunk in text[at, end) if it is the stream's usage chunk in the learnt
   * frame: the head, no choice, a usage object of counts (lib/json-counts.ts), OpenAI's
   * obfuscation member, nothing else. Null otherwise, and the chunk is for the full parse.
   */
  usage(text: string, at: number, end: number): Counts | null {
    if (this.#open === '' || !hasAt(text, at, this.#headUsage)) return null;
    const usage: Counts = {};
    let i = readCounts(text, at + this.#headUsage.length, usage);
    if (i < 0) return null;
    if (hasAt(text, i, OBFUSCATION)) {
      i = canonicalStringEnd(text, i + OBFUSCATION.length, end);
      if (i < 0) return null;
    }
    return text.charCodeAt(i) === 0x7d && onlySpaceFrom(text, i + 1, end) ? usage : null;
  }

  /** Whether text[i, end) is the end of a chunk: trailing space, and the obfuscation member if the frame has one. */
  #ends(text: string, i: number, end: number): boolean {
    let e = end;
    while (e > i && isSpace(text.charCodeAt(e - 1))) e--;
    if (this.#obfuscated) {
      if (!hasAt(text, i, OBFUSCATION)) return false;
      i = canonicalStringEnd(text, i + OBFUSCATION.length, e);
      if (i < 0 || text.charCodeAt(i) !== 0x7d) return false;
      i++;
    }
    return i === e;
  }

  /**
   * match() for the chunks that are not in the usual frame's two pieces: the role, no content, a
   * finish reason. Each long piece compared is a runtime call of ~450 instructions (a slice of 13
   * characters or more is a SlicedString, which === leaves to Runtime_StringEqual; callgrind), so
   * the pieces are compared joined, and what match() already compared is not compared again: a
   * stream's non-delta chunks took 18 such compares, now 13 (bench:instructions, paired:
   * gateway-messages-stream 243.6k → 241.2k, gateway-responses-stream 270.9k → 268.6k; issue 17).
   */
  #matchParts(text: string, at: number, end: number): boolean {
    // A usage chunk's choices are `[]`: told by one byte, not by the compare of the head.
    if (text.charCodeAt(at + this.#headChoice.length - CHOICE_AFTER_OPEN) !== 0x7b || !hasAt(text, at, this.#headChoice)) return false;
    let i = at + this.#headChoice.length;
    if (text.charCodeAt(i) === 0x7d /* } */) {
      this.litFrom = this.litTo = -1;
    } else {
      if (hasAt(text, i, CONTENT)) i += CONTENT.length;
      else if (hasAt(text, i, ROLE_CONTENT)) i += ROLE_CONTENT.length;
      else return false;
      const to = canonicalStringEnd(text, i, end);
      if (to < 0) return false;
      this.litFrom = i;
      this.litTo = i = to;
    }
    return this.#matchTail(text, i, end);
  }

  /** The rest of match() from text[i] (after the delta's content, or its `{` when none): the learnt tail, a finish reason, the end. */
  #matchTail(text: string, i: number, end: number): boolean {
    if (!hasAt(text, i, this.#tail)) return false;
    i += this.#tail.length;
    this.finFrom = this.finTo = -1;
    if (this.#after !== null) {
      if (hasAt(text, i, 'null')) {
        i += 4;
      } else {
        const to = canonicalStringEnd(text, i, end);
        if (to < 0) return false;
        this.finFrom = i;
        this.finTo = i = to;
      }
      if (!hasAt(text, i, this.#after)) return false;
      i += this.#after.length;
    }
    return this.#ends(text, i, end);
  }

  /**
   * Learns the stream's frame from text[at, end) if it is a plain delta (content, role and
   * content, or none) with a null finish reason; whether it did. The head and tail are held to
   * the grammar above and the content to canonicalStringEnd, so a chunk learnt from is valid
   * JSON whose only effect is its text, whether or not it was parsed.
   */
  #learn(text: string, at: number, end: number): boolean {
    if (this.#tries >= TRIES) return false;
    this.#tries++;
    const m = CHOICE_NEEDLE.in(text, at);
    if (m < 0 || m >= end) return false;
    let i = m + CHOICE.length;
    let lit = -1;
    if (text.charCodeAt(i) !== 0x7d) {
      if (hasAt(text, i, CONTENT)) i += CONTENT.length;
      else if (hasAt(text, i, ROLE_CONTENT)) i += ROLE_CONTENT.length;
      else return false;
      lit = i;
      i = canonicalStringEnd(text, i, end);
      if (i < 0) return false;
    }
    const head = text.slice(at, m);
    let tail = text.slice(i, end);
    let e = tail.length;
    while (e > 0 && isSpace(tail.charCodeAt(e - 1))) e--;
    tail = tail.slice(0, e);
    if (!HEAD.test(head) || !TAIL.test(tail)) return false;
    const o = tail.lastIndexOf(OBFUSCATION);
    this.#obfuscated = o >= 0 && canonicalStringEnd(tail, o + OBFUSCATION.length, tail.length) === tail.length - 1;
    if (this.#obfuscated) tail = tail.slice(0, o);
    // The choice's members come before its `}]`, the first in the tail after the delta's own `}`.
    const f = tail.indexOf(FINISH);
    // A second finish_reason (JSON.parse keeps the last) would make the one matched the wrong one.
    if (f >= 0 && tail.indexOf(FINISH, f + 1) >= 0) return false;
    if (f >= 0 && f < tail.indexOf('}]')) {
      this.#tail = tail.slice(0, f + FINISH.length - 4);
      this.#after = tail.slice(f + FINISH.length);
    } else {
      this.#tail = tail;
      this.#after = null;
    }
    this.#headChoice = head + CHOICE;
    this.#headUsage = head + USAGE;
    this.#open = this.#headChoice + CONTENT;
    this.#close = this.#after === null ? tail : `${this.#tail}null${this.#after}`;
    // The chunk learnt from is matched: its text, and its finish reason, which the grammar holds to null.
    this.litFrom = lit;
    this.litTo = lit < 0 ? -1 : i;
    this.finFrom = this.finTo = -1;
    return true;
  }
}

/** What JSON.parse also reads past at a line's end (the newline aside). */
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0d || c === 0x09;
}
