import { decodeText } from '../../lib/byte-text.js';
import { canonicalStringEnd, literalValue, smallIntEnd } from '../../lib/json-literal.js';
import type { UsageCounts } from './usage.js';

// An Anthropic message object (a whole answer, or the one in a stream's message_start) read in
// place from byte text (lib/byte-text.ts), for the members the translators take: id, model, the
// text blocks' texts, stop_reason and the usage counts. JSON.parse builds every object and
// member of it, and that was most of its cost: ~15,000 instructions for the benchmark's
// 300-byte message_start, as much as the rest of the stream's events together, and as much
// again for a whole answer (bench:instructions, gateway-anthropic-stream and gateway-anthropic,
// issue 17). The grammar is JSON's without whitespace, as Anthropic writes it, and stricter
// where the members are taken: keys without escapes, the texts, id and model as JSON.stringify
// writes them (so their bytes are copied), counts as plain integers. Anything else, a tool_use
// block among them, is refused and the caller parses as before.
// test/providers/anthropic-message-read.test.ts holds it to JSON.parse.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN = 0x7b;
const CLOSE = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
/** Deeper values are left to JSON.parse. */
const MAX_DEPTH = 16;

/** A message's usage counts: each a count JSON.parse reads as a non-negative number, or undefined. */
export interface ReadUsage {
  input: number | undefined;
  output: number | undefined;
  cacheRead: number | undefined;
  cacheWrite: number | undefined;
}

/** The members read; byte-text literals are kept as they came (quotes included). */
export class MessageFields {
  /** The id's literal when it is a string, else ''. */
  id = '';
  /** The model's literal when it is a string, else ''. */
  model = '';
  /** The text blocks' texts joined, as the inside of their literals (what JSON.stringify writes for the joined text); null when none. */
  text: string | null = null;
  /** stop_reason when it is a string (decoded), else null. */
  stopReason: string | null = null;
  /** usage when it is an object, else null. */
  usage: ReadUsage | null = null;

  #reset(): void {
    this.id = '';
    this.model = '';
    this.text = null;
    this.stopReason = null;
    this.usage = null;
  }

  /**
   * Reads the message object opening at text[at] (no further than `end`); returns the offset
   * just past it, or -1 when it is not of the grammar above (the fields are then not to be used).
   */
  read(text: string, at: number, end: number): number {
    this.#reset();
    if (text.charCodeAt(at) !== OPEN) return -1;
    let i = at + 1;
    if (text.charCodeAt(i) === CLOSE) return -1; // no content: JSON.parse's reading refuses it
    let content = false;
    for (;;) {
      const k = keyEnd(text, i, end);
      if (k < 0 || text.charCodeAt(k) !== COLON) return -1;
      const key = text.slice(i + 1, k - 1);
      const v = k + 1;
      switch (key) {
        case 'id':
        case 'model': {
          let literal = '';
          if (text.charCodeAt(v) === QUOTE) {
            i = canonicalStringEnd(text, v, end);
            if (i > 0) literal = text.slice(v, i);
          } else {
            i = skipValue(text, v, end, 1);
          }
          if (key === 'id') this.id = literal;
          else this.model = literal;
          break;
        }
        case 'content':
          i = this.#content(text, v, end);
          content = true;
          break;
        case 'stop_reason':
          if (text.charCodeAt(v) === QUOTE) {
            i = canonicalStringEnd(text, v, end);
            if (i < 0) return -1;
            this.stopReason = decodeText(literalValue(text, v, i));
          } else {
            i = skipValue(text, v, end, 1);
            this.stopReason = null;
          }
          break;
        case 'usage':
          i = this.#usage(text, v, end);
          break;
        default:
          i = skipValue(text, v, end, 1);
      }
      if (i < 0) return -1;
      const c = text.charCodeAt(i);
      if (c === CLOSE) return content ? i + 1 : -1;
      if (c !== COMMA) return -1;
      i++;
    }
  }

  /** content: an array whose text blocks' texts are joined (JSON.parse's last member wins); a tool_use block is refused. */
  #content(text: string, at: number, end: number): number {
    if (text.charCodeAt(at) !== OPEN_ARRAY) return -1;
    let joined: string | null = null;
    let i = at + 1;
    if (text.charCodeAt(i) === CLOSE_ARRAY) {
      this.text = null;
      return i + 1;
    }
    for (;;) {
      if (text.charCodeAt(i) === OPEN) {
        const block = readBlock(text, i, end);
        if (block === null) return -1;
        i = block.end;
        if (block.text !== null) joined = (joined ?? '') + block.text;
      } else {
        i = skipValue(text, i, end, 2);
        if (i < 0) return -1;
      }
      const c = text.charCodeAt(i);
      if (c === CLOSE_ARRAY) {
        this.text = joined;
        return i + 1;
      }
      if (c !== COMMA) return -1;
      i++;
    }
  }

  /** usage: an object's counts (a later usage member replaces an earlier one whole, as JSON.parse's does). */
  #usage(text: string, at: number, end: number): number {
    if (text.charCodeAt(at) !== OPEN) {
      this.usage = null;
      return skipValue(text, at, end, 1);
    }
    const u: ReadUsage = { input: undefined, output: undefined, cacheRead: undefined, cacheWrite: undefined };
    this.usage = u;
    let i = at + 1;
    if (text.charCodeAt(i) === CLOSE) return i + 1;
    for (;;) {
      const k = keyEnd(text, i, end);
      if (k < 0 || text.charCodeAt(k) !== COLON) return -1;
      const key = text.slice(i + 1, k - 1);
      const v = k + 1;
      const c = text.charCodeAt(v);
      let count: number | undefined;
      if (c >= 0x30 && c <= 0x39) {
        // A count as a plain integer; any other number (a fraction, an exponent) is JSON.parse's.
        i = smallIntEnd(text, v);
        if (i < 0) return -1;
        const next = text.charCodeAt(i);
        if (next !== COMMA && next !== CLOSE) return -1;
        count = Number(text.slice(v, i));
      } else {
        if (c === 0x2d /* - */) return -1;
        i = skipValue(text, v, end, 2);
        if (i < 0) return -1;
      }
      switch (key) {
        case 'input_tokens':
          u.input = count;
          break;
        case 'output_tokens':
          u.output = count;
          break;
        case 'cache_read_input_tokens':
          u.cacheRead = count;
          break;
        case 'cache_creation_input_tokens':
          u.cacheWrite = count;
          break;
      }
      const d = text.charCodeAt(i);
      if (d === CLOSE) return i + 1;
      if (d !== COMMA) return -1;
      i++;
    }
  }
}

/** A content block's end and, for a text block, its text's inside (canonical); null when refused (a tool_use block, or one not of the grammar). */
function readBlock(text: string, at: number, end: number): { end: number; text: string | null } | null {
  let i = at + 1;
  let type: string | null = null;
  let literal: string | null = null;
  if (text.charCodeAt(i) !== CLOSE) {
    for (;;) {
      const k = keyEnd(text, i, end);
      if (k < 0 || text.charCodeAt(k) !== COLON) return null;
      const key = text.slice(i + 1, k - 1);
      const v = k + 1;
      if ((key === 'type' || key === 'text') && text.charCodeAt(v) === QUOTE) {
        i = canonicalStringEnd(text, v, end);
        if (i < 0) return null;
        if (key === 'type') type = decodeText(literalValue(text, v, i));
        else literal = text.slice(v + 1, i - 1);
      } else {
        i = skipValue(text, v, end, 3);
        if (i < 0) return null;
        if (key === 'type') type = null;
        else if (key === 'text') literal = null;
      }
      const c = text.charCodeAt(i);
      if (c === CLOSE) break;
      if (c !== COMMA) return null;
      i++;
    }
  }
  if (type === 'tool_use') return null;
  return { end: i + 1, text: type === 'text' ? literal : null };
}

/** The end of the key literal at text[at] (past its quote), when it has no escape and no control character; else -1. */
function keyEnd(text: string, at: number, end: number): number {
  if (text.charCodeAt(at) !== QUOTE) return -1;
  for (let i = at + 1; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH || c < 0x20) return -1;
  }
  return -1;
}

/** The end of the JSON value at text[at] (no whitespace anywhere in it), or -1 when it is not one. */
export function skipValue(text: string, at: number, end: number, depth: number): number {
  if (at >= end) return -1;
  const c = text.charCodeAt(at);
  if (c === QUOTE) return skipString(text, at, end);
  if (c === OPEN || c === OPEN_ARRAY) {
    if (depth >= MAX_DEPTH) return -1;
    const close = c === OPEN ? CLOSE : CLOSE_ARRAY;
    let i = at + 1;
    if (text.charCodeAt(i) === close) return i + 1;
    for (;;) {
      if (c === OPEN) {
        i = skipString(text, i, end);
        if (i < 0 || text.charCodeAt(i) !== COLON) return -1;
        i++;
      }
      i = skipValue(text, i, end, depth + 1);
      if (i < 0) return -1;
      const d = text.charCodeAt(i);
      if (d === close) return i + 1;
      if (d !== COMMA) return -1;
      i++;
    }
  }
  if (c === 0x74 /* t */) return at + 4 <= end && text.slice(at, at + 4) === 'true' ? at + 4 : -1;
  if (c === 0x66 /* f */) return at + 5 <= end && text.slice(at, at + 5) === 'false' ? at + 5 : -1;
  if (c === 0x6e /* n */) return at + 4 <= end && text.slice(at, at + 4) === 'null' ? at + 4 : -1;
  return skipNumber(text, at, end);
}

/** A JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?. */
function skipNumber(text: string, at: number, end: number): number {
  let i = at;
  if (text.charCodeAt(i) === 0x2d) i++;
  let c = text.charCodeAt(i);
  if (c === 0x30) i++;
  else if (c >= 0x31 && c <= 0x39) while (isDigit(text.charCodeAt(++i)));
  else return -1;
  if (text.charCodeAt(i) === 0x2e) {
    if (!isDigit(text.charCodeAt(++i))) return -1;
    while (isDigit(text.charCodeAt(++i)));
  }
  c = text.charCodeAt(i);
  if (c === 0x65 || c === 0x45) {
    c = text.charCodeAt(++i);
    if (c === 0x2b || c === 0x2d) i++;
    if (!isDigit(text.charCodeAt(i))) return -1;
    while (isDigit(text.charCodeAt(++i)));
  }
  return i <= end ? i : -1;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Any JSON string literal: no raw control character, escapes JSON allows. */
function skipString(text: string, at: number, end: number): number {
  if (text.charCodeAt(at) !== QUOTE) return -1;
  for (let i = at + 1; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    if (c < 0x20) return -1;
    if (c === BACKSLASH) {
      const e = text.charCodeAt(++i);
      if (e === 0x75 /* u */) {
        for (let h = 1; h <= 4; h++) if (!isHex(text.charCodeAt(i + h))) return -1;
        i += 4;
      } else if (!(e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74)) {
        return -1;
      }
    }
  }
  return -1;
}

/** mergeUsage (usage.ts) for the counts read. */
export function mergeRead(c: UsageCounts, u: ReadUsage | null): void {
  if (u === null) return;
  if (u.input !== undefined) c.input = u.input;
  if (u.output !== undefined) c.output = u.output;
  if (u.cacheRead !== undefined) c.cacheRead = u.cacheRead;
  if (u.cacheWrite !== undefined) c.cacheWrite = u.cacheWrite;
}

/** A literal's value (a literal MessageFields kept), decoded. */
export function literalText(literal: string): string {
  const v = literalValue(literal, 0, literal.length);
  for (let i = 0; i < v.length; i++) if (v.charCodeAt(i) >= 0x80) return decodeText(v);
  return v;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}
