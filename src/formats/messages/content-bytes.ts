import { constant, type Constant, type SpanWriter } from '../../lib/span-writer.js';
import { MAX_JSON_DEPTH } from '../../domain/json-body.js';
import { literalBytes, nestedRecords, RecordKeys, tokenBytes, valueIs, type Records } from '../../lib/json-records.js';
import { scanRecords } from '../../lib/json-scan.js';
import { inStringAdds, writeJsonInString } from '../../lib/json-in-string.js';

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

const USER_MESSAGE = constant('{"role":"user","content":');
const ASSISTANT_MESSAGE = constant('{"role":"assistant","content":');
const SYSTEM_MESSAGE = constant('{"role":"system","content":');
const TOOL_MESSAGE = constant('{"role":"tool","tool_call_id":');
const CONTENT_KEY = constant(',"content":');
const TOOL_CALLS = constant(',"tool_calls":[');
const CALL_ID_KEY = constant('{"id":');
const CALL_FUNCTION = constant(',"type":"function","function":{"name":');
const ARGUMENTS_KEY = constant(',"arguments":');
const CALL_END = constant('}}');
const NULL_VALUE = constant('null');
const EMPTY_STRING = constant('""');
const EMPTY_ARGUMENTS = constant('"{}"');
const ERROR_PREFIX = constant('"Error: ');
/** Blocks' texts are joined with a blank line (as request.ts joins them): `\n\n` inside a JSON string. */
const BLANK_LINE = constant('\\n\\n');
const COMMA = constant(',');
const QUOTE = constant('"');
const CLOSE = constant('}');
const CLOSE_CALLS = constant(']}');

const STR = 0x22;
const ARR = 0x5b;
const OBJ = 0x7b;

/** The texts to join into one string: the start and end of each (quotes included), reused. */
let texts = new Int32Array(64);
let textCount = 0;
/**
 * A user message's own texts, gathered apart from its tool results' (reused, as `texts`: with an
 * array made per message and grown by its pushes, gateway-messages-agent took 3601.0k
 * instructions a request on the main thread, now 3572.8k, callgrind).
 */
let userTexts = new Int32Array(64);

/**
 * Writes the chat messages for the conversation (the messages array's records) into `w`,
 * comma-separated. Returns false for a conversation this does not cover (nothing useful is then
 * left in `w`).
 */
export function writeConversation(w: SpanWriter, raw: Buffer, messages: Records): boolean {
  const out = { first: true };
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
    if (valueIs(raw, roleAt, roleEnd, USER)) ok = isString ? stringMessage(w, out, USER_MESSAGE, contentAt, contentEnd) : userMessage(w, out, raw, blocks!);
    else if (valueIs(raw, roleAt, roleEnd, ASSISTANT)) ok = isString ? stringMessage(w, out, ASSISTANT_MESSAGE, contentAt, contentEnd) : assistantMessage(w, out, raw, blocks!);
    else if (valueIs(raw, roleAt, roleEnd, SYSTEM)) ok = isString ? stringMessage(w, out, SYSTEM_MESSAGE, contentAt, contentEnd) : systemMessage(w, out, raw, blocks!);
    else ok = false;
    if (!ok) return false;
  }
  return true;
}

/** Before a message: the comma after the one before. */
function open(w: SpanWriter, out: { first: boolean }): void {
  if (out.first) out.first = false;
  else w.put(COMMA);
}

function stringMessage(w: SpanWriter, out: { first: boolean }, head: Constant, from: number, to: number): boolean {
  open(w, out);
  w.put(head);
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
  if (2 * textCount + 2 > texts.length) {
    const more = new Int32Array(2 * texts.length);
    more.set(texts);
    texts = more;
  }
  texts[2 * textCount] = from;
  texts[2 * textCount + 1] = words[at + TEXT + 1];
  textCount++;
  return true;
}

/** The kept texts joined by `separator` (none when null), as one JSON string. */
function writeJoined(w: SpanWriter, separator: Constant | null): void {
  w.put(QUOTE);
  for (let j = 0; j < textCount; j++) {
    if (j > 0 && separator !== null) w.put(separator);
    w.piece(texts[2 * j] + 1, texts[2 * j + 1] - 1);
  }
  w.put(QUOTE);
}

/** tool_result blocks become tool messages, first; the text blocks one user message after them (request.ts's userMessages). */
function userMessage(w: SpanWriter, out: { first: boolean }, raw: Buffer, blocks: Records): boolean {
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
      if (userCount + 2 > userTexts.length) {
        const more = new Int32Array(2 * userTexts.length);
        more.set(userTexts);
        userTexts = more;
      }
      userTexts[userCount++] = from;
      userTexts[userCount++] = words[at + TEXT + 1];
    } else if (k === K_TOOL_RESULT) {
      if (!toolResult(w, out, raw, words, at)) return false;
    } else if (k !== K_THINKING) {
      return false;
    }
  }
  if (userCount === 0) return true;
  open(w, out);
  w.put(USER_MESSAGE);
  textCount = 0;
  for (let j = 0; j < userCount; j += 2) {
    texts[2 * textCount] = userTexts[j];
    texts[2 * textCount + 1] = userTexts[j + 1];
    if (2 * ++textCount + 2 > texts.length) {
      const more = new Int32Array(2 * texts.length);
      more.set(texts);
      texts = more;
    }
  }
  writeJoined(w, BLANK_LINE);
  w.put(CLOSE);
  return true;
}

/** One tool_result → a tool message with its text (an error says so in words); false for one with images or of another shape. */
function toolResult(w: SpanWriter, out: { first: boolean }, raw: Buffer, words: Int32Array, at: number): boolean {
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
  open(w, out);
  w.put(TOOL_MESSAGE);
  w.piece(idAt, words[at + TOOL_USE_ID + 1]);
  w.put(CONTENT_KEY);
  if (isError) {
    w.put(ERROR_PREFIX);
    for (let j = 0; j < textCount; j++) {
      if (j > 0) w.put(BLANK_LINE);
      w.piece(texts[2 * j] + 1, texts[2 * j + 1] - 1);
    }
    w.put(QUOTE);
  } else {
    writeJoined(w, BLANK_LINE);
  }
  w.put(CLOSE);
  return true;
}

/** Texts joined as the content, tool_use blocks as its tool calls (request.ts's assistantMessage). */
function assistantMessage(w: SpanWriter, out: { first: boolean }, raw: Buffer, blocks: Records): boolean {
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
      calls++;
    } else if (k !== K_THINKING) {
      return false;
    }
  }
  open(w, out);
  w.put(ASSISTANT_MESSAGE);
  if (textCount > 0) writeJoined(w, null);
  else w.put(calls > 0 ? NULL_VALUE : EMPTY_STRING);
  if (calls > 0) {
    w.put(TOOL_CALLS);
    let written = 0;
    for (let j = 0; j < blocks.count; j++) {
      const at = blocks.from + j * blocks.stride;
      if (kind(raw, words, at) !== K_TOOL_USE) continue;
      if (written++ > 0) w.put(COMMA);
      w.put(CALL_ID_KEY);
      w.piece(words[at + ID], words[at + ID + 1]);
      w.put(CALL_FUNCTION);
      w.piece(words[at + NAME], words[at + NAME + 1]);
      w.put(ARGUMENTS_KEY);
      const inputAt = words[at + INPUT];
      // The arguments are the input's JSON text as JSON.stringify writes it, in a string: escaped
      // as it stands when it is spelled so (Claude Code's are), else decoded and written again.
      const inputEnd = words[at + INPUT + 1];
      if (inputAt < 0 || raw[inputAt] !== OBJ) w.put(EMPTY_ARGUMENTS);
      else {
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
      w.put(CALL_END);
    }
    w.put(CLOSE_CALLS);
  } else {
    w.put(CLOSE);
  }
  return true;
}

/** A system message in the conversation: its text blocks joined (request.ts's textOf). */
function systemMessage(w: SpanWriter, out: { first: boolean }, raw: Buffer, blocks: Records): boolean {
  textCount = 0;
  for (let j = 0; j < blocks.count; j++) {
    const at = blocks.from + j * blocks.stride;
    if (raw[blocks.words[at]] !== OBJ || kind(raw, blocks.words, at) !== K_TEXT || !keepText(raw, blocks.words, at)) return false;
  }
  open(w, out);
  w.put(SYSTEM_MESSAGE);
  writeJoined(w, BLANK_LINE);
  w.put(CLOSE);
  return true;
}
