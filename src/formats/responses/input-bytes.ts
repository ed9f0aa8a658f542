import type { ByteWriter } from '../../lib/byte-writer.js';
import { copyInner, copyString, firstElement, nextElement, readMembers, spells, stringEnd, ws } from '../../lib/json-skeleton.js';
import type { LiteralTable } from '../../lib/json-literals.js';

// The chat messages for a Responses request's input, written from the bytes of its skeleton
// (lib/json-skeleton.ts): each string the client sent (a turn's text, a call's arguments, a
// tool's output) is copied as its literal, and nothing is decoded. Codex sends its whole
// conversation on every turn; the object translation (items.ts) decoded it into ~1,000 values
// and wrote them again (docs/benchmarks.md, gateway-responses at agent size). This covers a
// string input and the items such a turn is made of: messages whose content is a string or text
// parts, function calls, their outputs (a string or text parts), and reasoning items (left out,
// as items.ts leaves them). Anything
// else (an image, an unknown item, a value of another type) answers null, and the caller
// translates the request as objects, which also gives the errors. test/formats/responses-input-
// bytes.test.ts holds the two to the same messages.

const q = (s: string): Buffer => Buffer.from(JSON.stringify(s));

// Item members, at 2k and 2k + 1 of `members`.
const TYPE = 0;
const ROLE = 1;
const CONTENT = 2;
const CALL_ID = 3;
const NAME = 4;
const ARGUMENTS = 5;
const OUTPUT = 6;
const ITEM_KEYS = ['type', 'role', 'content', 'call_id', 'name', 'arguments', 'output'].map(q);
const PART_KEYS = ['type', 'text'].map(q);

const MESSAGE = q('message');
const FUNCTION_CALL = q('function_call');
const FUNCTION_CALL_OUTPUT = q('function_call_output');
const REASONING = q('reasoning');
const INPUT_TEXT = q('input_text');
const OUTPUT_TEXT = q('output_text');
// Roles as the client spells them, and as chat completions takes them (developer is system).
const ROLES = ['user', 'assistant', 'system', 'developer'].map(q);
const CHAT_ROLE = ['{"role":"user"', '{"role":"assistant"', '{"role":"system"', '{"role":"system"'].map((s) => Buffer.from(s));
const USER = 0;
const ASSISTANT = 1;
const SYSTEM = 2;

const CONTENT_KEY = Buffer.from(',"content":');
const CONTENT_NULL = Buffer.from(',"content":null');
const CONTENT_EMPTY = Buffer.from(',"content":""');
const TOOL_CALLS = Buffer.from(',"tool_calls":[');
const NEW_CALL = Buffer.from('{"role":"assistant","content":null,"tool_calls":[');
const CALL_ID_KEY = Buffer.from('{"id":');
const CALL_FUNCTION = Buffer.from(',"type":"function","function":{"name":');
const ARGUMENTS_KEY = Buffer.from(',"arguments":');
const CALL_END = Buffer.from('}}');
const TOOL_MESSAGE = Buffer.from('{"role":"tool","tool_call_id":');
const TEXT_PART = Buffer.from('{"type":"text","text":');
const COMMA = Buffer.from(',');
const QUOTE = Buffer.from('"');
const OPEN = Buffer.from('[');
const CLOSE = Buffer.from('}');
const CLOSE_ARRAY = Buffer.from(']');
const CLOSE_CALLS = Buffer.from(']}');

const STR = 0x22;
const CLOSE_BRACKET_BYTE = 0x5d;
const ARR = 0x5b;
const OBJ = 0x7b;

// Scratch for a message's text parts (start and end of each part's text) and an item's members.
const members = new Int32Array(2 * ITEM_KEYS.length);
const part = new Int32Array(2 * PART_KEYS.length);
let texts = new Int32Array(64);

/** What the last message written is, for the function calls that may follow it onto the same message. */
const CLOSED = 0;
/** An assistant message still open: its calls, if any, go on it. */
const ASSISTANT_OPEN = 1;

/** The writer's state over one array of items (a `var`-style record: one object, fields reused). */
export class Walk {
  /** The offset after the input array. */
  end = 0;
  state = CLOSED;
  /** Messages written so far, and those of them that are not system messages. */
  count = 0;
  spoken = 0;
  /** The open assistant message's calls so far, and whether its content was empty (null once a call joins it, as items.ts has it). */
  calls = 0;
  emptyContent = false;
}

/**
 * Writes the chat messages for the input at `inputAt` (a string, or an array of items) into `w`,
 * comma-separated, without the brackets around them. Returns the walk (the offset after the array, the number of
 * messages that are not system messages), or null for input this does not cover (nothing useful
 * is then left in `w`).
 */
export function writeInputMessages(w: ByteWriter, s: Buffer, t: LiteralTable, inputAt: number): Walk | null {
  const walk = new Walk();
  if (s[inputAt] === STR) {
    // A string is one user message (items.ts's inputItems).
    w.put(CHAT_ROLE[USER]);
    w.put(CONTENT_KEY);
    walk.end = stringEnd(s, inputAt);
    copyString(w, s, inputAt, walk.end, t);
    w.put(CLOSE);
    walk.count = walk.spoken = 1;
    return walk;
  }
  let i = ws(s, inputAt + 1);
  if (s[i] !== CLOSE_BRACKET_BYTE) {
    for (;;) {
      if (s[i] !== OBJ) return null;
      const end = readMembers(s, i, ITEM_KEYS, members);
      if (end < 0 || !item(w, s, t, walk)) return null;
      i = ws(s, end);
      if (s[i] === CLOSE_BRACKET_BYTE) break;
      i = ws(s, i + 1);
    }
  }
  walk.end = i + 1;
  if (walk.state === ASSISTANT_OPEN) closeAssistant(w, walk);
  return walk;
}

/** A bound for what writeInputMessages writes for input in the skeleton `s`. */
export function inputBound(s: Buffer, t: LiteralTable): number {
  let literals = 0;
  for (let k = 0; k < t.spans.length; k += 2) literals += t.spans[k + 1] - t.spans[k];
  // Every item's own bytes at most double (a function call's keys are the longest growth), plus the literals it names.
  return 2 * s.length + literals + 64;
}

/** One item (its members read into `members`); false for one this does not cover. */
function item(w: ByteWriter, s: Buffer, t: LiteralTable, walk: Walk): boolean {
  const typeAt = members[2 * TYPE];
  const typeEnd = members[2 * TYPE + 1];
  if (typeAt < 0) return members[2 * ROLE] >= 0 && message(w, s, t, walk);
  if (spells(s, typeAt, typeEnd, MESSAGE)) return message(w, s, t, walk);
  if (spells(s, typeAt, typeEnd, FUNCTION_CALL)) return functionCall(w, s, t, walk);
  if (spells(s, typeAt, typeEnd, FUNCTION_CALL_OUTPUT)) return functionOutput(w, s, t, walk);
  return spells(s, typeAt, typeEnd, REASONING);
}

function message(w: ByteWriter, s: Buffer, t: LiteralTable, walk: Walk): boolean {
  const roleAt = members[2 * ROLE];
  const roleEnd = members[2 * ROLE + 1];
  let role = -1;
  for (let r = 0; r < ROLES.length; r++) {
    if (roleAt >= 0 && spells(s, roleAt, roleEnd, ROLES[r])) {
      role = r;
      break;
    }
  }
  const contentAt = members[2 * CONTENT];
  const contentEnd = members[2 * CONTENT + 1];
  if (role < 0 || contentAt < 0) return false;
  let parts = -1;
  if (s[contentAt] === ARR) {
    parts = textParts(s, contentAt, true);
    if (parts < 0) return false;
  } else if (s[contentAt] !== STR) {
    return false;
  }
  open(w, walk);
  w.put(CHAT_ROLE[role]);
  const chatRole = role === USER ? USER : role === ASSISTANT ? ASSISTANT : SYSTEM;
  if (chatRole !== SYSTEM) walk.spoken++;
  if (chatRole === ASSISTANT) {
    walk.state = ASSISTANT_OPEN;
    walk.calls = 0;
    // Written when known: null if a call joins the message, "" if none does.
    walk.emptyContent = parts < 0 ? contentEnd - contentAt === 2 : partsEmpty(parts);
    if (walk.emptyContent) return true;
  }
  w.put(CONTENT_KEY);
  if (parts < 0) copyString(w, s, contentAt, contentEnd, t);
  else if (chatRole === USER && parts !== 1) textArray(w, s, t, parts);
  else joined(w, s, t, parts);
  if (chatRole !== ASSISTANT) {
    w.put(CLOSE);
    walk.state = CLOSED;
  }
  return true;
}

/**
 * The text parts of the content array at `at` into `texts`: their number, or -1 when one is not
 * a text part (input_text, or with `output`, output_text too).
 */
function textParts(s: Buffer, at: number, output: boolean): number {
  let n = 0;
  for (let i = firstElement(s, at); i >= 0;) {
    if (s[i] !== OBJ) return -1;
    const end = readMembers(s, i, PART_KEYS, part);
    if (end < 0) return -1;
    const typeAt = part[0];
    const textAt = part[2];
    if (typeAt < 0 || !(spells(s, typeAt, part[1], INPUT_TEXT) || (output && spells(s, typeAt, part[1], OUTPUT_TEXT)))) return -1;
    if (textAt < 0 || s[textAt] !== STR) return -1;
    if (2 * n + 2 > texts.length) {
      const more = new Int32Array(2 * texts.length);
      more.set(texts);
      texts = more;
    }
    texts[2 * n] = textAt;
    texts[2 * n + 1] = part[3];
    n++;
    i = nextElement(s, end);
  }
  return n;
}

/** Whether every text part is empty (a string with an escape is never: it stands for at least one character). */
function partsEmpty(n: number): boolean {
  for (let j = 0; j < n; j++) if (texts[2 * j + 1] - texts[2 * j] !== 2) return false;
  return true;
}

/** The text parts' texts joined, as one string. */
function joined(w: ByteWriter, s: Buffer, t: LiteralTable, n: number): void {
  w.put(QUOTE);
  for (let j = 0; j < n; j++) copyInner(w, s, texts[2 * j], texts[2 * j + 1], t);
  w.put(QUOTE);
}

/** A user message's several text parts, as chat's text parts. */
function textArray(w: ByteWriter, s: Buffer, t: LiteralTable, n: number): void {
  w.put(OPEN);
  for (let j = 0; j < n; j++) {
    if (j > 0) w.put(COMMA);
    w.put(TEXT_PART);
    copyString(w, s, texts[2 * j], texts[2 * j + 1], t);
    w.put(CLOSE);
  }
  w.put(CLOSE_ARRAY);
}

function functionCall(w: ByteWriter, s: Buffer, t: LiteralTable, walk: Walk): boolean {
  const idAt = members[2 * CALL_ID];
  const nameAt = members[2 * NAME];
  const argsAt = members[2 * ARGUMENTS];
  if (!nonEmptyString(s, idAt, members[2 * CALL_ID + 1]) || !nonEmptyString(s, nameAt, members[2 * NAME + 1])) return false;
  if (argsAt < 0 || s[argsAt] !== STR) return false;
  // An assistant turn's calls go on one assistant message, as chat completions writes them.
  if (walk.state === ASSISTANT_OPEN) {
    if (walk.calls === 0) {
      if (walk.emptyContent) w.put(CONTENT_NULL);
      w.put(TOOL_CALLS);
    } else {
      w.put(COMMA);
    }
  } else {
    open(w, walk);
    w.put(NEW_CALL);
    walk.state = ASSISTANT_OPEN;
    walk.emptyContent = false;
    walk.spoken++;
  }
  walk.calls++;
  w.put(CALL_ID_KEY);
  copyString(w, s, idAt, members[2 * CALL_ID + 1], t);
  w.put(CALL_FUNCTION);
  copyString(w, s, nameAt, members[2 * NAME + 1], t);
  w.put(ARGUMENTS_KEY);
  copyString(w, s, argsAt, members[2 * ARGUMENTS + 1], t);
  w.put(CALL_END);
  return true;
}

function functionOutput(w: ByteWriter, s: Buffer, t: LiteralTable, walk: Walk): boolean {
  const idAt = members[2 * CALL_ID];
  const outAt = members[2 * OUTPUT];
  if (!nonEmptyString(s, idAt, members[2 * CALL_ID + 1]) || outAt < 0) return false;
  // An output given as input_text parts is their text joined.
  const parts = s[outAt] === ARR ? textParts(s, outAt, false) : -1;
  if (parts < 0 && s[outAt] !== STR) return false;
  open(w, walk);
  w.put(TOOL_MESSAGE);
  copyString(w, s, idAt, members[2 * CALL_ID + 1], t);
  w.put(CONTENT_KEY);
  if (parts < 0) copyString(w, s, outAt, members[2 * OUTPUT + 1], t);
  else joined(w, s, t, parts);
  w.put(CLOSE);
  walk.state = CLOSED;
  walk.spoken++;
  return true;
}

/** Before a new message: the open one closed, and the comma after the one before. */
function open(w: ByteWriter, walk: Walk): void {
  if (walk.state === ASSISTANT_OPEN) closeAssistant(w, walk);
  if (walk.count > 0) w.put(COMMA);
  walk.count++;
}

function closeAssistant(w: ByteWriter, walk: Walk): void {
  if (walk.calls > 0) w.put(CLOSE_CALLS);
  else {
    if (walk.emptyContent) w.put(CONTENT_EMPTY);
    w.put(CLOSE);
  }
  walk.state = CLOSED;
}

/** A string value of at least one character (an escape always stands for one). */
function nonEmptyString(s: Buffer, at: number, end: number): boolean {
  return at >= 0 && s[at] === STR && end - at > 2;
}
