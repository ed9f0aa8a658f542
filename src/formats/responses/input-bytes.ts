import { constant, type Constant, type SpanWriter } from '../../lib/span-writer.js';
import { MAX_JSON_DEPTH } from '../../domain/json-body.js';
import { literalBytes, nestedRecords, RecordKeys, valueIs, type Records } from '../../lib/json-records.js';
import { scanRecords } from '../../lib/json-scan.js';
import { ModuleWalk, type WalkLayout } from '../../lib/module-walk.js';
import type { SkipModule } from '../../lib/wasm/json-skip-exports.js';

// The chat messages for a Responses request's input, written from the client's bytes: the scan
// (lib/json-scan.ts) records where each input item's members are, in WebAssembly in the same walk
// that checks the body, and each string the client sent (a turn's text, a call's arguments, a
// tool's output) is copied as its literal; nothing is decoded. The pieces are noted, not copied,
// here (lib/span-writer.ts: the module copies them all in one call). Codex sends its whole
// conversation on every turn; the object translation (items.ts) decoded it into ~1,000 values and
// wrote them again (docs/benchmarks.md, gateway-responses at agent size). This covers a string
// input and the items such a turn is made of: messages whose content is a string or text parts,
// function calls, their outputs (a string or text parts), and reasoning items (left out, as
// items.ts leaves them). Anything else (an image, an unknown item, a value of another type)
// answers null, and the caller translates the request as objects, which also gives the errors.
// test/formats/responses-input-bytes.test.ts holds the two to the same messages.

const PART_KEYS = new RecordKeys(['type', 'text']);
const PART_TYPE = 1;
const PART_TEXT = 3;
/**
 * The item members read, in this order in each record; a message's content parts are recorded in
 * the same walk. Scanned for each message apart, they were 107 calls into the module for the
 * bench's Codex turn, ~17 µs of its ~65 µs walk (scratch measurement, node 20).
 */
export const ITEM_KEYS = new RecordKeys(['type', 'role', 'content', 'call_id', 'name', 'arguments', 'output'], { key: 'content', keys: PART_KEYS });
const TYPE = 1;
const ROLE = 3;
const CONTENT = 5;
const CALL_ID = 7;
const NAME = 9;
const ARGUMENTS = 11;
const OUTPUT = 13;
/** Nesting of a function output's array of parts: the body, input, the item, then it. */
const PARTS_DEPTH = 4;
/** The scan's region for an output's parts: the first holds the messages' parts, read in place. */
const OUTPUT_PARTS_REGION = 2;

const MESSAGE = literalBytes('message');
const FUNCTION_CALL = literalBytes('function_call');
const FUNCTION_CALL_OUTPUT = literalBytes('function_call_output');
const REASONING = literalBytes('reasoning');
const INPUT_TEXT = literalBytes('input_text');
const OUTPUT_TEXT = literalBytes('output_text');
// Roles as the client spells them, and as chat completions takes them (developer is system).
const ROLES = ['user', 'assistant', 'system', 'developer'].map(literalBytes);
const USER = 0;
const ASSISTANT = 1;
const SYSTEM = 2;

// How the message before a new one ends: its end is written with the new one's opening, in one
// constant (below). FIRST: there is none; CLOSED: a message whose content is written; EMPTY: an
// assistant message with no content and no calls; CALLS: an assistant message with tool calls.
const FIRST = 0;
const CLOSED_END = 1;
const EMPTY_END = 2;
const CALLS_END = 3;
const ENDS = ['', '}', ',"content":""}', '}}]}'];

/**
 * A message's opening after each way the one before may end (FIRST…CALLS_END). The constants
 * are all the bytes between two of the client's pieces, noted with one call: with a comma, a
 * brace or a quote noted apart, gateway-responses-agent counted 2,758.4k instructions a request
 * on the main thread, now 2,654.4k (callgrind, paired).
 */
function head(text: string): readonly Constant[] {
  return ENDS.map((end, k) => constant(k === FIRST ? text : `${end},${text}`));
}

const CHAT_ROLE = ['{"role":"user"', '{"role":"assistant"', '{"role":"system"', '{"role":"system"'].map(head);
/** The last message's end, after the last item, by how it ends (CLOSED_END…, from 1). */
const LAST_END = ENDS.slice(1).map(constant);

const STRING_INPUT = constant('{"role":"user","content":');
const CONTENT_KEY = constant(',"content":');
const CONTENT_TEXT = constant(',"content":"');
const CONTENT_PARTS = constant(',"content":[{"type":"text","text":');
const NEXT_PART = constant('},{"type":"text","text":');
const PARTS_END = constant('}]');
const NO_PARTS = constant(',"content":[]');
const CALLS_ID = constant(',"tool_calls":[{"id":');
const NULL_CALLS_ID = constant(',"content":null,"tool_calls":[{"id":');
/** The call before's end (its function's brace and its own), then the next call's id. */
const NEXT_CALL_ID = constant('}},{"id":');
const NEW_CALL = head('{"role":"assistant","content":null,"tool_calls":[{"id":');
const CALL_FUNCTION = constant(',"type":"function","function":{"name":');
const ARGUMENTS_KEY = constant(',"arguments":');
const TOOL_MESSAGE = head('{"role":"tool","tool_call_id":');
const QUOTE = constant('"');
const CLOSE = constant('}');

const STR = 0x22;
const ARR = 0x5b;
const OBJ = 0x7b;

/** The constants the module's walk writes (json-skip.wat's $items), by their index there. */
const ITEM_CONSTANTS = Int32Array.from([
  ...CHAT_ROLE.flat(), ...LAST_END, CONTENT_KEY, CONTENT_TEXT, CONTENT_PARTS, NEXT_PART, PARTS_END, NO_PARTS, CALLS_ID, NULL_CALLS_ID,
  NEXT_CALL_ID, ...NEW_CALL, CALL_FUNCTION, ARGUMENTS_KEY, ...TOOL_MESSAGE, QUOTE, CLOSE,
]);
/** The records' layout the module's walk reads: an item's sixteen numbers, a part's five. */
const ITEM_STRIDE = 16;
const PART_STRIDE = 5;
if (ITEM_KEYS.stride !== ITEM_STRIDE || PART_KEYS.stride !== PART_STRIDE || ITEM_CONSTANTS.length !== 40) {
  throw new Error('json-skip.wat\'s $items reads records of 16 and 5 numbers and 40 constants');
}
/** Inputs of four items and more are walked in the module, as Messages conversations are. */
const MODULE_WALK = new ModuleWalk(ITEM_STRIDE, ITEM_CONSTANTS, PART_KEYS, 4);

/** Which walk writes an input, for the tests: the module's first (`inModule`), and how many it wrote (`moduleWalks`). */
export const inputWalk = { inModule: true, moduleWalks: 0 };

/** The last message written, for the function calls that may follow it onto the same message. */
const CLOSED = 0;
/** An assistant message still open: its calls, if any, go on it. */
const ASSISTANT_OPEN = 1;

/** The writer's state over one input. */
class Walk {
  state = CLOSED;
  /** Messages written so far, and those of them that are not system messages. */
  count = 0;
  spoken = 0;
  /** The open assistant message's calls so far, and whether its content was empty (null once a call joins it, as items.ts has it). */
  calls = 0;
  emptyContent = false;
  /** The current item's record: its numbers from `at` of `words`; item `e` of `items`. */
  words: Int32Array = NO_WORDS;
  at = 0;
  items: Records | null = null;
  e = 0;
  /** A message's text parts, from the last textParts: where the scan left their records (read before the next scan). */
  texts: Int32Array = NO_WORDS;
  textsFrom = 0;
  textsStride = 0;
}

const NO_WORDS = new Int32Array(0);

/**
 * Writes the chat messages for the input (`items`, the input array's records, or when null the
 * string at raw[from, to)) into `w`, comma-separated, without the brackets around them. Returns
 * the number of messages that are not system messages, or -1 for input this does not cover
 * (nothing useful is then left in `w`).
 */
export function writeInputMessages(w: SpanWriter, raw: Buffer, items: Records | null, from: number, to: number): number {
  if (items === null) {
    // A string is one user message (items.ts's inputItems).
    w.put(STRING_INPUT);
    w.piece(from, to);
    w.put(CLOSE);
    return 1;
  }
  if (inputWalk.inModule) {
    const spoken = writtenInModule(w, raw, items);
    if (spoken >= 0) return spoken;
  }
  const walk = new Walk();
  walk.words = items.words;
  walk.items = items;
  for (let e = 0; e < items.count; e++) {
    walk.at = items.from + e * items.stride;
    walk.e = e;
    if (raw[items.words[walk.at]] !== OBJ || !item(w, raw, walk)) return -1;
  }
  if (walk.count > 0) w.put(LAST_END[ending(walk) - 1]);
  return walk.spoken;
}

/**
 * The walk below made in WebAssembly (json-skip.wat's $items; lib/module-walk.ts), as a Messages
 * conversation's is: the messages not system messages, or -1 when the module leaves the input to
 * this walk (anything the walk refuses, no room; nothing is then noted in `w`).
 */
function writtenInModule(w: SpanWriter, raw: Buffer, items: Records): number {
  const spoken = MODULE_WALK.run(w, raw, items, 0, itemsInModule);
  if (spoken >= 0) inputWalk.moduleWalks++;
  return spoken;
}

function itemsInModule(m: SkipModule, at: WalkLayout, raw: Buffer): number {
  return m.items(at.records, at.count, at.cmds, at.cap, at.consts, raw.length, at.keys, at.parts, at.partsCap, MAX_JSON_DEPTH);
}

/** The start of the current item's member at `k` (TYPE, ROLE…), -1 when absent; its end is at k + 1. */
function at(walk: Walk, k: number): number {
  return walk.words[walk.at + k];
}

function end(walk: Walk, k: number): number {
  return walk.words[walk.at + k + 1];
}

/** One item; false for one this does not cover. */
function item(w: SpanWriter, raw: Buffer, walk: Walk): boolean {
  const typeAt = at(walk, TYPE);
  if (typeAt < 0) return at(walk, ROLE) >= 0 && message(w, raw, walk);
  const typeEnd = end(walk, TYPE);
  if (valueIs(raw, typeAt, typeEnd, MESSAGE)) return message(w, raw, walk);
  if (valueIs(raw, typeAt, typeEnd, FUNCTION_CALL)) return functionCall(w, raw, walk);
  if (valueIs(raw, typeAt, typeEnd, FUNCTION_CALL_OUTPUT)) return functionOutput(w, raw, walk);
  return valueIs(raw, typeAt, typeEnd, REASONING);
}

function message(w: SpanWriter, raw: Buffer, walk: Walk): boolean {
  const roleAt = at(walk, ROLE);
  let role = -1;
  for (let r = 0; r < ROLES.length; r++) {
    if (roleAt >= 0 && valueIs(raw, roleAt, end(walk, ROLE), ROLES[r])) {
      role = r;
      break;
    }
  }
  const contentAt = at(walk, CONTENT);
  const contentEnd = end(walk, CONTENT);
  if (role < 0 || contentAt < 0) return false;
  let parts = -1;
  if (raw[contentAt] === ARR) {
    parts = textParts(raw, nestedRecords(walk.items!, walk.e, ITEM_KEYS, contentEnd), true, walk);
    if (parts < 0) return false;
  } else if (raw[contentAt] !== STR) {
    return false;
  }
  open(w, walk, CHAT_ROLE[role]);
  const chatRole = role === USER ? USER : role === ASSISTANT ? ASSISTANT : SYSTEM;
  if (chatRole !== SYSTEM) walk.spoken++;
  if (chatRole === ASSISTANT) {
    walk.state = ASSISTANT_OPEN;
    walk.calls = 0;
    // Written when known: null if a call joins the message, "" if none does.
    walk.emptyContent = parts < 0 ? contentEnd - contentAt === 2 : partsEmpty(walk, parts);
    if (walk.emptyContent) return true;
  }
  if (parts < 0) {
    w.put(CONTENT_KEY);
    w.piece(contentAt, contentEnd);
  } else if (chatRole === USER && parts !== 1) {
    textArray(w, walk, parts);
  } else {
    joined(w, walk, parts);
  }
  return true;
}

/**
 * The text parts (the array's records `r`) into walk.texts: their number, or -1 when one is not
 * a text part (input_text, or with `output`, output_text too), or there are no records.
 */
function textParts(raw: Buffer, r: Records | null, output: boolean, walk: Walk): number {
  if (r === null) return -1;
  const words = r.words;
  for (let j = 0; j < r.count; j++) {
    const b = r.from + j * r.stride;
    if (raw[words[b]] !== OBJ) return -1;
    const typeAt = words[b + PART_TYPE];
    const typeEnd = words[b + PART_TYPE + 1];
    if (typeAt < 0 || !(valueIs(raw, typeAt, typeEnd, INPUT_TEXT) || (output && valueIs(raw, typeAt, typeEnd, OUTPUT_TEXT)))) return -1;
    const textAt = words[b + PART_TEXT];
    if (textAt < 0 || raw[textAt] !== STR) return -1;
  }
  walk.texts = words;
  walk.textsFrom = r.from;
  walk.textsStride = r.stride;
  return r.count;
}

/** Part j's text: its start and end. */
function textAt(walk: Walk, j: number): number {
  return walk.texts[walk.textsFrom + j * walk.textsStride + PART_TEXT];
}

function textEnd(walk: Walk, j: number): number {
  return walk.texts[walk.textsFrom + j * walk.textsStride + PART_TEXT + 1];
}

/** Whether every text part is empty (a string with an escape never is: it stands for at least one character). */
function partsEmpty(walk: Walk, n: number): boolean {
  for (let j = 0; j < n; j++) if (textEnd(walk, j) - textAt(walk, j) !== 2) return false;
  return true;
}

/** The text parts' texts joined, as one string, the content: JSON strings' inner bytes joined say the strings joined. */
function joined(w: SpanWriter, walk: Walk, n: number): void {
  w.put(CONTENT_TEXT);
  for (let j = 0; j < n; j++) w.piece(textAt(walk, j) + 1, textEnd(walk, j) - 1);
  w.put(QUOTE);
}

/** A user message's text parts (none, or several), as chat's text parts, the content. */
function textArray(w: SpanWriter, walk: Walk, n: number): void {
  if (n === 0) {
    w.put(NO_PARTS);
    return;
  }
  for (let j = 0; j < n; j++) {
    w.put(j > 0 ? NEXT_PART : CONTENT_PARTS);
    w.piece(textAt(walk, j), textEnd(walk, j));
  }
  w.put(PARTS_END);
}

function functionCall(w: SpanWriter, raw: Buffer, walk: Walk): boolean {
  const idAt = at(walk, CALL_ID);
  const nameAt = at(walk, NAME);
  const argsAt = at(walk, ARGUMENTS);
  if (!nonEmptyString(raw, idAt, end(walk, CALL_ID)) || !nonEmptyString(raw, nameAt, end(walk, NAME))) return false;
  if (argsAt < 0 || raw[argsAt] !== STR) return false;
  // An assistant turn's calls go on one assistant message, as chat completions writes them.
  if (walk.state === ASSISTANT_OPEN) {
    w.put(walk.calls > 0 ? NEXT_CALL_ID : walk.emptyContent ? NULL_CALLS_ID : CALLS_ID);
  } else {
    open(w, walk, NEW_CALL);
    walk.state = ASSISTANT_OPEN;
    walk.emptyContent = false;
    walk.spoken++;
  }
  walk.calls++;
  w.piece(idAt, end(walk, CALL_ID));
  w.put(CALL_FUNCTION);
  w.piece(nameAt, end(walk, NAME));
  w.put(ARGUMENTS_KEY);
  w.piece(argsAt, end(walk, ARGUMENTS));
  return true;
}

function functionOutput(w: SpanWriter, raw: Buffer, walk: Walk): boolean {
  const idAt = at(walk, CALL_ID);
  const outAt = at(walk, OUTPUT);
  const outEnd = end(walk, OUTPUT);
  if (!nonEmptyString(raw, idAt, end(walk, CALL_ID)) || outAt < 0) return false;
  // An output given as input_text parts is their text joined.
  const parts = raw[outAt] === ARR ? textParts(raw, scanRecords(raw, outAt, PART_KEYS, PARTS_DEPTH, MAX_JSON_DEPTH, OUTPUT_PARTS_REGION), false, walk) : -1;
  if (parts < 0 && raw[outAt] !== STR) return false;
  open(w, walk, TOOL_MESSAGE);
  w.piece(idAt, end(walk, CALL_ID));
  if (parts < 0) {
    w.put(CONTENT_KEY);
    w.piece(outAt, outEnd);
  } else {
    joined(w, walk, parts);
  }
  walk.spoken++;
  return true;
}

/** A new message's opening `h`, after the end of the one before (the constant for how it ends). */
function open(w: SpanWriter, walk: Walk, h: readonly Constant[]): void {
  w.put(h[walk.count === 0 ? FIRST : ending(walk)]);
  walk.state = CLOSED;
  walk.count++;
}

/** How the last message written ends (CLOSED_END…), its end not yet written. */
function ending(walk: Walk): number {
  if (walk.state !== ASSISTANT_OPEN) return CLOSED_END;
  if (walk.calls > 0) return CALLS_END;
  return walk.emptyContent ? EMPTY_END : CLOSED_END;
}

/** A string value of at least one character (an escape always stands for one). */
function nonEmptyString(raw: Buffer, from: number, to: number): boolean {
  return from >= 0 && raw[from] === STR && to - from > 2;
}
