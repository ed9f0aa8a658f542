import { canonicalStringEnd, hasAt } from '../lib/json-literal.js';

/** Between a chunk's head and its text: one choice, index 0, whose delta is its content alone. */
const MIDDLE = '"choices":[{"index":0,"delta":{"content":';
const OBFUSCATION = ',"obfuscation":';
// Members that may frame a text delta: top-level keys with a plain value (a string without
// escapes, a number, null; usage only null), and the choice's null logprobs and finish_reason.
// Whatever else a chunk has (an error, usage, tool calls, a finish, another choice, escapes in
// the id) keeps the stream's chunks on the full parse.
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
 * and `},"finish_reason":null}],"usage":null}`) are learnt from a chunk the translator parsed,
 * checked once against the grammar above, and from then on compared whole. A chunk that
 * matches them around a string literal written as JSON.stringify writes it
 * (canonicalStringEnd) says exactly that: a valid chunk whose only effect is that text. Any
 * other chunk does not match, and is parsed. OpenAI's per-chunk `obfuscation` padding, when it
 * is the last member, is read as a plain string.
 */
export class ChatDeltas {
  /** The literal matched by match(): text[litFrom, litTo), quotes included. */
  litFrom = 0;
  litTo = 0;
  #head: string | null = null;
  /** The tail up to an `obfuscation` member (which then ends the chunk), or the whole tail. */
  #tail = '';
  #obfuscated = false;
  #tries = 0;

  /** Whether the chunk in text[at, end) (after `data:` and its space) is a plain text delta; if so, litFrom and litTo say where its text is. */
  match(text: string, at: number, end: number): boolean {
    const head = this.#head;
    if (head === null || !hasAt(text, at, head)) return false;
    const from = at + head.length;
    if (!hasAt(text, from, MIDDLE)) return false;
    const lit = from + MIDDLE.length;
    const to = canonicalStringEnd(text, lit, end);
    if (to < 0 || !hasAt(text, to, this.#tail)) return false;
    let e = end;
    while (e > to && isSpace(text.charCodeAt(e - 1))) e--;
    let i = to + this.#tail.length;
    if (this.#obfuscated) {
      if (!hasAt(text, i, OBFUSCATION)) return false;
      i = canonicalStringEnd(text, i + OBFUSCATION.length, e);
      if (i < 0 || text.charCodeAt(i) !== 0x7d) return false;
      i++;
    }
    if (i !== e) return false;
    this.litFrom = lit;
    this.litTo = to;
    return true;
  }

  /** Learns the stream's frame from text[at, end), a chunk the translator has parsed, if it is a plain text delta and none was learnt yet. */
  learn(text: string, at: number, end: number): void {
    if (this.#head !== null || this.#tries >= TRIES) return;
    this.#tries++;
    const m = text.indexOf(MIDDLE, at);
    if (m < 0 || m >= end) return;
    const to = canonicalStringEnd(text, m + MIDDLE.length, end);
    if (to < 0) return;
    const head = text.slice(at, m);
    let tail = text.slice(to, end).trimEnd();
    if (!HEAD.test(head) || !TAIL.test(tail)) return;
    const o = tail.lastIndexOf(OBFUSCATION);
    this.#obfuscated = o >= 0 && canonicalStringEnd(tail, o + OBFUSCATION.length, tail.length) === tail.length - 1;
    if (this.#obfuscated) tail = tail.slice(0, o);
    this.#head = head;
    this.#tail = tail;
  }
}

/** What JSON.parse also reads past at a line's end (the newline aside). */
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0d || c === 0x09;
}
