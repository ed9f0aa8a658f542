import { constant, type Constant, type SpanWriter } from '../../lib/span-writer.js';
import { MAX_JSON_DEPTH } from '../../domain/json-body.js';
import { literalBytes, nestedRecords, RecordKeys, tokenBytes, valueIs, type Records } from '../../lib/json-records.js';
import { IN_STRING_KEYS, inStringRoom, scanRecords, type MemberSpan } from '../../lib/json-scan.js';
import { ModuleWalk, type WalkLayout } from '../../lib/module-walk.js';
import type { SkipModule } from '../../lib/wasm/json-skip-exports.js';
import { inStringAdds, writeJsonInString } from '../../lib/json-in-string.js';
import { REPLY_PRIMING, stringMessageTokens } from '../../billing/token-estimate.js';

// The chat messages for a Messages request's conversation, written from the client's bytes: the
// scan (lib/json-scan.ts) records where each message's role and content are, in WebAssembly in
// the walk that checks the body, and where each block's members are; each string the client sent
// (a turn's text, a tool's result) is copied as its literal. The pieces are noted, not copied,
// here (lib/span-writer.ts: the module copies them all in one call). Claude Code sends its whole
// conversation on every turn; the object translation (request.ts) decoded it and wrote it again
// (docs/benchmarks.md, gateway-messages at agent size). This covers what such a turn is made of:
// text, tool_use, tool_result (its content a string or text blocks) and thinking blocks, and
// system messages of text. Anything else (an image, a document, a value of another type) answers
// false, and the caller translates the request as objects, which also gives the errors.
// test/formats/messages-content-bytes.test.ts holds the two to the same messages.

const BLOCK_KEYS = new RecordKeys(['type', 'text', 'id', 'name', 'input', 'tool_use_id', 'content', 'is_error']);
/** The message members read, each message's blocks recorded in the same walk (one walk of the conversation, not two). */
export const MESSAGE_KEYS = new RecordKeys(['role', 'content'], { key: 'content', keys: BLOCK_KEYS });
const ROLE = 1;
const CONTENT = 3;
const TYPE = 1;
const TEXT = 3;
const ID = 5;
const NAME = 7;
const INPUT = 9;
const TOOL_USE_ID = 11;
const RESULT = 13;
const IS_ERROR = 15;
/** Nesting of a tool_result's content (the body, messages, the message, its blocks, the block, then it). */
const RESULT_DEPTH = 6;
/** Nesting of the request's `system` blocks' array (the body, then it). */
const SYSTEM_DEPTH = 2;

const USER = literalBytes('user');
const ASSISTANT = literalBytes('assistant');
const SYSTEM = literalBytes('system');
const TEXT_TYPE = literalBytes('text');
const TOOL_USE = literalBytes('tool_use');
const TOOL_RESULT = literalBytes('tool_result');
const THINKING = literalBytes('thinking');
const REDACTED_THINKING = literalBytes('redacted_thinking');
const TRUE = tokenBytes('true');
const NULL = tokenBytes('null');

/**
 * A message's opening, as the first message and after a comma. The constants are all the bytes
 * between two of the client's pieces, noted with one call: with a comma, a quote or a brace noted
 * apart (and each tool_use block's kind read again to write the calls), gateway-messages-agent
 * counted 2,899.7k instructions a request on the main thread, now 2,754.1k (callgrind, paired).
 */
interface Head {
  first: Constant;
  next: Constant;
}

function head(text: string): Head {
  return { first: constant(text), next: constant(`,${text}`) };
}

const USER_STRING = head('{"role":"user","content":');
const USER_TEXT = head('{"role":"user","content":"');
const ASSISTANT_STRING = head('{"role":"assistant","content":');
const ASSISTANT_TEXT = head('{"role":"assistant","content":"');
const SYSTEM_STRING = head('{"role":"system","content":');
const SYSTEM_TEXT = head('{"role":"system","content":"');
const TOOL_MESSAGE = head('{"role":"tool","tool_call_id":');
const TOOL_TEXT = constant(',"content":"');
const TOOL_ERROR = constant(',"content":"Error: ');
/** The end of a message whose content is a string: its closing quote, then the message's brace. */
const TEXT_END = constant('"}');
const CLOSE = constant('}');
const TEXT_THEN_CALLS = constant('","tool_calls":[');
const NULL_THEN_CALLS = constant('null,"tool_calls":[');
const NO_CONTENT = constant('""}');
const CALL_ID_KEY = constant('{"id":');
/** The call before's end (its function's brace and its own), then the next call's id. */
const NEXT_CALL_ID = constant('}},{"id":');
const CALL_FUNCTION = constant(',"type":"function","function":{"name":');
const ARGUMENTS_KEY = constant(',"arguments":');
const EMPTY_ARGUMENTS = constant(',"arguments":"{}"');
/** The last call's end, the tool calls' and the message's. */
const CALLS_END = constant('}}]}');
/** Blocks' texts are joined with a blank line (as request.ts joins them): `\n\n` inside a JSON string. */
const BLANK_LINE = constant('\\n\\n');

const STR = 0x22;
const ARR = 0x5b;
const OBJ = 0x7b;

/** The constants the module's walk writes (json-skip.wat's $conversation), by their index there. */
const CONVERSATION_CONSTANTS = Int32Array.from([
  USER_STRING.first, USER_STRING.next, USER_TEXT.first, USER_TEXT.next, ASSISTANT_STRING.first, ASSISTANT_STRING.next,
  ASSISTANT_TEXT.first, ASSISTANT_TEXT.next, SYSTEM_STRING.first, SYSTEM_STRING.next, SYSTEM_TEXT.first, SYSTEM_TEXT.next,
  TOOL_MESSAGE.first, TOOL_MESSAGE.next, TOOL_TEXT, TOOL_ERROR, TEXT_END, CLOSE, TEXT_THEN_CALLS, NULL_THEN_CALLS, NO_CONTENT,
  CALL_ID_KEY, NEXT_CALL_ID, CALL_FUNCTION, ARGUMENTS_KEY, EMPTY_ARGUMENTS, CALLS_END, BLANK_LINE,
]);
/** The records' layout the module's walk reads: a message's six numbers, a block's seventeen. */
const MESSAGE_STRIDE = 6;
const BLOCK_STRIDE = 17;
if (MESSAGE_KEYS.stride !== MESSAGE_STRIDE || BLOCK_KEYS.stride !== BLOCK_STRIDE) throw new Error('json-skip.wat\'s $conversation reads records of 6 and 17 numbers');
/**
 * Conversations of four messages and more are walked in the module: the walk in JavaScript of the
 * bench's 1 KB request, two string messages, cost ~900 instructions (callgrind).
 */
const MODULE_WALK = new ModuleWalk(MESSAGE_STRIDE, CONVERSATION_CONSTANTS, BLOCK_KEYS, 4);

/** The texts to join into one string: the start and end of each (quotes included), reused. */
let texts = new Int32Array(64);
let textCount = 0;
/**
 * A user message's own texts, gathered apart from its tool results' (reused, as `texts`: with an
 * array made per message and grown by its pushes, gateway-messages-agent took 3601.0k
 * instructions a request on the main thread, now 3572.8k, callgrind).
 */
let userTexts = new Int32Array(64);
/** Where an assistant message's tool_use blocks' records are, found in its first pass (reused). */
let callAt = new Int32Array(16);

/** Whether a message is yet to be written (no comma before it). */
export interface Opening {
  first: boolean;
}

/**
 * The request's own `system` at raw[from, to) as the first chat message: a string, or text
 * blocks joined as request.ts's systemText joins them, copied as the client's literals; an empty
 * one is none. False for a `system` of another shape, which the object translation then reads
 * (and refuses where it must). Decoded and written again with JSON.stringify, Claude Code's 2 KB
 * system prompt cost ~70k instructions of the bench's Messages turn (callgrind,
 * gateway-messages-agent: JSON.stringify 57k, its share of the parse).
 */
export function writeSystem(w: SpanWriter, out: Opening, raw: Buffer, from: number, to: number): boolean {
  if (raw[from] === STR) {
    if (to - from > 2) stringMessage(w, out, SYSTEM_STRING, from, to);
    return true;
  }
  if (raw[from] !== ARR) return false;
  const blocks = scanRecords(raw, from, BLOCK_KEYS, SYSTEM_DEPTH, MAX_JSON_DEPTH, 2);
  return blocks !== null && systemMessage(w, out, raw, blocks, true);
}

/**
 * Which walk writes a conversation, for the tests: the module's first (`inModule`), and how many
 * it wrote (`moduleWalks`).
 */
export const conversationWalk = { inModule: true, moduleWalks: 0 };

/**
 * Writes the chat messages for the conversation (the messages array's records) into `w`,
 * comma-separated (after those `out` says were written). Returns false for a conversation this
 * does not cover (nothing useful is then left in `w`).
 */
export function writeConversation(w: SpanWriter, raw: Buffer, messages: Records, out: Opening): boolean {
  if (conversationWalk.inModule && writtenInModule(w, raw, messages, out)) return true;
  return walkConversation(w, raw, messages, out);
}

/**
 * The walk below made in WebAssembly (json-skip.wat's $conversation; lib/module-walk.ts): in
 * JavaScript it cost the bench's Claude Code turn ~480k instructions a request on the main thread
 * (callgrind, writeConversation inclusive, 215 messages), in the module ~220k. False when the
 * module leaves it to this walk: anything the walk refuses, a tool input $instring leaves to
 * JavaScript, no room; nothing is then noted in `w`.
 */
function writtenInModule(w: SpanWriter, raw: Buffer, messages: Records, out: Opening): boolean {
  const first = MODULE_WALK.run(w, raw, messages, out.first ? 1 : 0, conversationInModule);
  if (first < 0) return false;
  out.first = first === 1;
  conversationWalk.moduleWalks++;
  return true;
}

function conversationInModule(m: SkipModule, at: WalkLayout, raw: Buffer, first: number): number {
  return m.conversation(at.records, at.count, at.cmds, at.cap, at.consts, inStringRoom(raw.length), IN_STRING_KEYS, first,
    raw.length, at.keys, at.parts, at.partsCap, MAX_JSON_DEPTH);
}

/** writeConversation in JavaScript: what the module leaves to it. */
function walkConversation(w: SpanWriter, raw: Buffer, messages: Records, out: Opening): boolean {
  for (let e = 0; e < messages.count; e++) {
    const at = messages.from + e * messages.stride;
    const words = messages.words;
    if (raw[words[at]] !== OBJ) return false;
    const roleAt = words[at + ROLE];
    const roleEnd = words[at + ROLE + 1];
    const contentAt = words[at + CONTENT];
    const contentEnd = words[at + CONTENT + 1];
    if (roleAt < 0 || contentAt < 0) return false;
    const isString = raw[contentAt] === STR;
    if (!isString && raw[contentAt] !== ARR) return false;
    const blocks = isString ? null : nestedRecords(messages, e, MESSAGE_KEYS, contentEnd);
    if (!isString && blocks === null) return false;
    let ok: boolean;
    if (valueIs(raw, roleAt, roleEnd, USER)) ok = isString ? stringMessage(w, out, USER_STRING, contentAt, contentEnd) : userMessage(w, out, raw, blocks!);
    else if (valueIs(raw, roleAt, roleEnd, ASSISTANT)) ok = isString ? stringMessage(w, out, ASSISTANT_STRING, contentAt, contentEnd) : assistantMessage(w, out, raw, blocks!);
    else if (valueIs(raw, roleAt, roleEnd, SYSTEM)) ok = isString ? stringMessage(w, out, SYSTEM_STRING, contentAt, contentEnd) : systemMessage(w, out, raw, blocks!);
    else ok = false;
    if (!ok) return false;
  }
  return true;
}

/**
 * The prompt's estimate (billing/token-estimate.ts) of the chat messages written for `system` and
 * the conversation, read off their spans, when every one is a string: the usual small request of
 * an API client, whose stream's message_start is to carry the figure the translation gives.
 * Null for any other, whose written request the caller parses for it. Call before writing (the
 * records are the scan's).
 */
export function stringConversationTokens(raw: Buffer, system: MemberSpan | null, messages: Records): number | null {
  searchedFrom = raw.length;
  slashAt = -1;
  let n = REPLY_PRIMING;
  if (system !== null) {
    if (raw[system.start] !== STR) return null;
    // An empty system prompt is none (writeSystem).
    if (system.end - system.start > 2) n += stringMessageTokens(stringBytes(raw, system.start, system.end));
  }
  const words = messages.words;
  for (let e = 0; e < messages.count; e++) {
    const at = messages.from + e * messages.stride;
    const from = words[at + CONTENT];
    if (from < 0 || raw[from] !== STR) return null;
    n += stringMessageTokens(stringBytes(raw, from, words[at + CONTENT + 1]));
  }
  return n;
}

/** The UTF-8 bytes of the string the literal raw[from, to) (quotes included) stands for. */
function stringBytes(raw: Buffer, from: number, to: number): number {
  if (!escaped(raw, from, to)) return to - from - 2;
  return Buffer.byteLength(JSON.parse(raw.toString('utf8', from, to)) as string, 'utf8');
}

// The first backslash at or after searchedFrom (-1: none), for escaped(): one native search serves
// the strings up to it. Buffer#indexOf searches on to the body's end, so a search per string was
// quadratic in the messages (a 16.9 KB body of 400 messages: 29.8 µs, 4.3 µs with the search kept;
// a loop in JavaScript over each span, 9.0 µs, and 2.0 µs on the bench's 1 KB message, where either
// search takes 0.06 µs; node, microbenchmark).
let searchedFrom = 0;
let slashAt = -1;

/** Whether raw[from, to) holds a backslash; the spans are asked for in the body's order, bar the system prompt. */
function escaped(raw: Buffer, from: number, to: number): boolean {
  if (from < searchedFrom || (slashAt >= 0 && slashAt < from)) {
    searchedFrom = from;
    slashAt = raw.indexOf(BACKSLASH, from);
  }
  return slashAt >= 0 && slashAt < to;
}

const BACKSLASH = 0x5c;

/** A message's opening, with the comma after the one before. */
function open(w: SpanWriter, out: Opening, h: Head): void {
  if (out.first) {
    out.first = false;
    w.put(h.first);
  } else {
    w.put(h.next);
  }
}

function stringMessage(w: SpanWriter, out: Opening, h: Head, from: number, to: number): boolean {
  open(w, out, h);
  w.piece(from, to);
  w.put(CLOSE);
  return true;
}

/** The block's `type`, as one of the kinds below; -1 for any other. */
function kind(raw: Buffer, words: Int32Array, at: number): number {
  const from = words[at + TYPE];
  const to = words[at + TYPE + 1];
  if (from < 0) return -1;
  if (valueIs(raw, from, to, TEXT_TYPE)) return K_TEXT;
  if (valueIs(raw, from, to, TOOL_USE)) return K_TOOL_USE;
  if (valueIs(raw, from, to, TOOL_RESULT)) return K_TOOL_RESULT;
  if (valueIs(raw, from, to, THINKING) || valueIs(raw, from, to, REDACTED_THINKING)) return K_THINKING;
  return -1;
}

const K_TEXT = 0;
const K_TOOL_USE = 1;
const K_TOOL_RESULT = 2;
const K_THINKING = 3;

/** A text block's text kept for joining; false when it is not a string. */
function keepText(raw: Buffer, words: Int32Array, at: number): boolean {
  const from = words[at + TEXT];
  if (from < 0 || raw[from] !== STR) return false;
  texts = withRoom(texts, 2 * textCount + 2);
  texts[2 * textCount] = from;
  texts[2 * textCount + 1] = words[at + TEXT + 1];
  textCount++;
  return true;
}

/**
 * The `n` texts whose starts and ends `list` holds (`texts` unless given) joined by `separator`
 * (none when null): the inside of one JSON string, its quotes the caller's.
 */
function writeJoined(w: SpanWriter, separator: Constant | null, list = texts, n = textCount): void {
  for (let j = 0; j < n; j++) {
    if (j > 0 && separator !== null) w.put(separator);
    w.piece(list[2 * j] + 1, list[2 * j + 1] - 1);
  }
}

/** `a`, or a copy of it twice as long when it holds fewer than `n` numbers. */
function withRoom(a: Int32Array<ArrayBuffer>, n: number): Int32Array<ArrayBuffer> {
  if (n <= a.length) return a;
  const more = new Int32Array(2 * a.length);
  more.set(a);
  return more;
}

/** tool_result blocks become tool messages, first; the text blocks one user message after them (request.ts's userMessages). */
function userMessage(w: SpanWriter, out: Opening, raw: Buffer, blocks: Records): boolean {
  const words = blocks.words;
  // Texts are kept across the tool results' own: the user's texts are gathered first, apart.
  let userCount = 0;
  for (let j = 0; j < blocks.count; j++) {
    const at = blocks.from + j * blocks.stride;
    if (raw[words[at]] !== OBJ) return false;
    const k = kind(raw, words, at);
    if (k === K_TEXT) {
      const from = words[at + TEXT];
      if (from < 0 || raw[from] !== STR) return false;
      userTexts = withRoom(userTexts, userCount + 2);
      userTexts[userCount++] = from;
      userTexts[userCount++] = words[at + TEXT + 1];
    } else if (k === K_TOOL_RESULT) {
      if (!toolResult(w, out, raw, words, at)) return false;
    } else if (k !== K_THINKING) {
      return false;
    }
  }
  if (userCount === 0) return true;
  open(w, out, USER_TEXT);
  writeJoined(w, BLANK_LINE, userTexts, userCount / 2);
  w.put(TEXT_END);
  return true;
}

/** One tool_result → a tool message with its text (an error says so in words); false for one with images or of another shape. */
function toolResult(w: SpanWriter, out: Opening, raw: Buffer, words: Int32Array, at: number): boolean {
  const idAt = words[at + TOOL_USE_ID];
  if (idAt < 0 || raw[idAt] !== STR) return false;
  const contentAt = words[at + RESULT];
  const contentEnd = words[at + RESULT + 1];
  const errorAt = words[at + IS_ERROR];
  const isError = errorAt >= 0 && valueIs(raw, errorAt, words[at + IS_ERROR + 1], TRUE);
  textCount = 0;
  if (contentAt >= 0 && raw[contentAt] === ARR) {
    const parts = scanRecords(raw, contentAt, BLOCK_KEYS, RESULT_DEPTH, MAX_JSON_DEPTH, 2);
    if (parts === null) return false;
    for (let k = 0; k < parts.count; k++) {
      const p = parts.from + k * parts.stride;
      if (raw[parts.words[p]] !== OBJ || kind(raw, parts.words, p) !== K_TEXT || !keepText(raw, parts.words, p)) return false;
    }
  } else if (contentAt >= 0) {
    if (raw[contentAt] !== STR) return false;
    texts[0] = contentAt;
    texts[1] = contentEnd;
    textCount = 1;
  }
  open(w, out, TOOL_MESSAGE);
  w.piece(idAt, words[at + TOOL_USE_ID + 1]);
  w.put(isError ? TOOL_ERROR : TOOL_TEXT);
  writeJoined(w, BLANK_LINE);
  w.put(TEXT_END);
  return true;
}

/** Texts joined as the content, tool_use blocks as its tool calls (request.ts's assistantMessage). */
function assistantMessage(w: SpanWriter, out: Opening, raw: Buffer, blocks: Records): boolean {
  const words = blocks.words;
  textCount = 0;
  let calls = 0;
  for (let j = 0; j < blocks.count; j++) {
    const at = blocks.from + j * blocks.stride;
    if (raw[words[at]] !== OBJ) return false;
    const k = kind(raw, words, at);
    if (k === K_TEXT) {
      if (!keepText(raw, words, at)) return false;
    } else if (k === K_TOOL_USE) {
      const idAt = words[at + ID];
      const nameAt = words[at + NAME];
      const inputAt = words[at + INPUT];
      if (idAt < 0 || raw[idAt] !== STR || nameAt < 0 || raw[nameAt] !== STR) return false;
      if (inputAt >= 0 && raw[inputAt] !== OBJ && !valueIs(raw, inputAt, words[at + INPUT + 1], NULL)) return false;
      callAt = withRoom(callAt, calls + 1);
      callAt[calls++] = at;
    } else if (k !== K_THINKING) {
      return false;
    }
  }
  if (textCount > 0) {
    open(w, out, ASSISTANT_TEXT);
    writeJoined(w, null);
    w.put(calls > 0 ? TEXT_THEN_CALLS : TEXT_END);
  } else {
    open(w, out, ASSISTANT_STRING);
    w.put(calls > 0 ? NULL_THEN_CALLS : NO_CONTENT);
  }
  if (calls > 0) {
    for (let c = 0; c < calls; c++) {
      const at = callAt[c];
      w.put(c > 0 ? NEXT_CALL_ID : CALL_ID_KEY);
      w.piece(words[at + ID], words[at + ID + 1]);
      w.put(CALL_FUNCTION);
      w.piece(words[at + NAME], words[at + NAME + 1]);
      const inputAt = words[at + INPUT];
      // The arguments are the input's JSON text as JSON.stringify writes it, in a string: escaped
      // as it stands when it is spelled so (Claude Code's are), else decoded and written again.
      const inputEnd = words[at + INPUT + 1];
      if (inputAt < 0 || raw[inputAt] !== OBJ) w.put(EMPTY_ARGUMENTS);
      else {
        w.put(ARGUMENTS_KEY);
        // Checked and escaped in WebAssembly; what it leaves (a number it does not read, say) in JavaScript.
        const adds = inStringAdds(raw, inputAt, inputEnd);
        if (adds >= 0) w.inString(inputAt, inputEnd, adds);
        else {
          // Escaped, the input is at most twice its bytes and two quotes.
          const t = w.staging(2 * (inputEnd - inputAt) + 2);
          const from = t.at;
          if (adds === -2 && writeJsonInString(t, raw, inputAt, inputEnd)) w.staged(from, t.at);
          else w.text(JSON.stringify(JSON.stringify(JSON.parse(raw.toString('utf8', inputAt, inputEnd)))));
        }
      }
    }
    w.put(CALLS_END);
  }
  return true;
}

/**
 * A system message: its text blocks joined (request.ts's textOf). `emptyIsNone`: the request's
 * own, which is left out when its text is empty (no blocks, or one empty text: any two are
 * joined by a blank line).
 */
function systemMessage(w: SpanWriter, out: Opening, raw: Buffer, blocks: Records, emptyIsNone = false): boolean {
  textCount = 0;
  for (let j = 0; j < blocks.count; j++) {
    const at = blocks.from + j * blocks.stride;
    if (raw[blocks.words[at]] !== OBJ || kind(raw, blocks.words, at) !== K_TEXT || !keepText(raw, blocks.words, at)) return false;
  }
  if (emptyIsNone && (textCount === 0 || (textCount === 1 && texts[1] - texts[0] === 2))) return true;
  open(w, out, SYSTEM_TEXT);
  writeJoined(w, BLANK_LINE);
  w.put(TEXT_END);
  return true;
}
