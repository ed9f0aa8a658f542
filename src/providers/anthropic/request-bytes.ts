import { literalBytes, nestedRecords, RecordKeys, valueIs, type Records } from '../../lib/json-records.js';
import { scanRecords, WantedNames } from '../../lib/json-scan.js';
import { outBuffer } from '../../lib/out-slab.js';
import { constant, SpanWriter } from '../../lib/span-writer.js';
import type { ScannedChat } from '../types.js';
import { DEFAULT_MAX_TOKENS, positiveInt, stopSequences } from './request.js';

// A chat request's Anthropic body written from the client's bytes: the conversation is not
// decoded. The scan that checked the body left its members' offsets; one more walk in
// WebAssembly (scanRecords) finds each message's role and content, and each text part's text;
// every text goes on as the literal the client wrote, noted in a SpanWriter and copied in the
// module (lib/span-writer.ts). The few members around the conversation (max_tokens, stop,
// temperature…) are decoded one by one. Decoding the bench's 1 KB chat body, building the
// Anthropic request as objects, writing it as a string and encoding that cost ~11 µs of the
// gateway's CPU a request, a third of the chat → Anthropic path's cost over the pass-through
// (measured by serving that request's bytes from a cache instead: 77 → 66 µs a request, issue 17).
// Written so, the request takes 1.6 µs alone where the objects took 3.6 µs, and gateway-anthropic
// 169.7k → 149.6k instructions a request (bench:instructions, main thread; docs/benchmarks.md).
// This covers turns of text: system, developer, user and assistant messages whose content is a
// string, null, or text parts. Anything else (tool calls and results, images, cache_control
// marks, tools, an escaped member name) answers null, and toMessagesRequest translates the
// decoded payload, which also gives the errors. test/providers/anthropic-request-bytes.test.ts
// holds the two to the same request.

const PART_KEYS = new RecordKeys(['type', 'text', 'cache_control']);
/** The message members read; a message's content parts are recorded in the same walk. */
const MESSAGE_KEYS = new RecordKeys(['role', 'content', 'tool_calls', 'cache_control'], { key: 'content', keys: PART_KEYS });
const ROLE = 1;
const CONTENT = 3;
const TOOL_CALLS = 5;
const CACHE = 7;
const TYPE = 1;
const TEXT = 3;
const PART_CACHE = 5;

const USER = literalBytes('user');
const ASSISTANT = literalBytes('assistant');
const SYSTEM = literalBytes('system');
const DEVELOPER = literalBytes('developer');
const TEXT_TYPE = literalBytes('text');

/** The top-level members toMessagesRequest reads besides `messages` (request.ts); every other one it leaves out. */
const READ = new WantedNames(['n', 'max_tokens', 'max_completion_tokens', 'stop', 'temperature', 'top_p', 'top_k', 'stream', 'user', 'tools']);
const N = 0;
const MAX_TOKENS = 1;
const MAX_COMPLETION_TOKENS = 2;
const STOP = 3;
const TEMPERATURE = 4;
const STREAM = 7;
const USER_MEMBER = 8;
const TOOLS = 9;
/** Each read member's value span, start and end, the last one given winning as in JSON.parse; -1 when absent. */
const spans = new Int32Array(2 * READ.names.length);
const SAMPLING = ['temperature', 'top_p', 'top_k'].map((name) => constant(`,"${name}":`));

const MODEL_KEY = constant('{"model":');
const MAX_TOKENS_KEY = constant(',"max_tokens":');
const MESSAGES_KEY = constant(',"messages":[');
const USER_TURN = constant('{"role":"user","content":[');
const ASSISTANT_TURN = constant('{"role":"assistant","content":[');
const TURN_END = constant(']}');
const NEXT_TURN = constant(']},');
const TEXT_BLOCK = constant('{"type":"text","text":');
const SYSTEM_KEY = constant('],"system":[');
const STOP_KEY = constant(',"stop_sequences":');
const STREAM_TRUE = constant(',"stream":true');
const METADATA_KEY = constant(',"metadata":{"user_id":');
const CLOSE_ARRAY = constant(']');
const CLOSE = constant('}');
const COMMA = constant(',');

const STR = 0x22;
const ARR = 0x5b;
const OBJ = 0x7b;
const BACKSLASH = 0x5c;
const NUL = 0x6e;

const NO_ROLE = 0;
const USER_ROLE = 1;
const ASSISTANT_ROLE = 2;
const SYSTEM_ROLE = 3;

const writer = new SpanWriter();

/**
 * The Anthropic Messages body for `chat` (JSON.stringify(toMessagesRequest(payload, upstreamModel))
 * up to how its strings are escaped), or null when this does not cover the request.
 */
export function anthropicRequestBytes(chat: ScannedChat, upstreamModel: string): Buffer | null {
  const raw = chat.bytes;
  if (!readMembers(raw, chat.layout)) return null;
  const messages = scanRecords(raw, chat.messagesAt, MESSAGE_KEYS, 2, chat.maxDepth, 2);
  if (messages === null) return null;
  let n: unknown;
  let tools: unknown;
  let stop: string[] | null;
  try {
    n = valueOf(raw, N);
    tools = valueOf(raw, TOOLS);
    stop = stopSequences(valueOf(raw, STOP));
  } catch {
    return null;
  }
  if ((typeof n === 'number' && n > 1) || !(tools === undefined || tools === null || (Array.isArray(tools) && tools.length === 0))) return null;
  const w = writer;
  w.begin();
  w.put(MODEL_KEY);
  w.text(modelLiteral(upstreamModel));
  w.put(MAX_TOKENS_KEY);
  w.text(String(positiveInt(valueOf(raw, MAX_COMPLETION_TOKENS)) ?? positiveInt(valueOf(raw, MAX_TOKENS)) ?? DEFAULT_MAX_TOKENS));
  w.put(MESSAGES_KEY);
  const systemBlocks = writeTurns(w, raw, messages);
  if (systemBlocks < 0) return null;
  if (systemBlocks > 0) {
    w.put(SYSTEM_KEY);
    writeSystem(w, raw, messages);
  }
  w.put(CLOSE_ARRAY);
  if (stop !== null) {
    w.put(STOP_KEY);
    w.text(JSON.stringify(stop));
  }
  for (let f = 0; f < SAMPLING.length; f++) {
    const v = valueOf(raw, TEMPERATURE + f);
    if (typeof v !== 'number') continue;
    w.put(SAMPLING[f]);
    w.text(JSON.stringify(v));
  }
  if (valueOf(raw, STREAM) === true) w.put(STREAM_TRUE);
  const user = valueOf(raw, USER_MEMBER);
  if (typeof user === 'string' && user !== '') {
    w.put(METADATA_KEY);
    w.text(JSON.stringify(user));
    w.put(CLOSE);
  }
  w.put(CLOSE);
  const written = w.write(raw);
  if (written === null) return null;
  // Out of the module's memory: the body is held until the provider has read it.
  const out = outBuffer(written.to - written.from);
  out.set(written.bytes.subarray(written.from, written.to));
  return out;
}

/** The read members' spans from the scan's layout; false for a member name spelled with an escape (it may spell one of them). */
function readMembers(raw: Buffer, layout: readonly number[]): boolean {
  spans.fill(-1);
  for (let i = 0; i < layout.length; i += 2) {
    const key = layout[i];
    let k = key + 1;
    while (raw[k] !== STR) {
      if (raw[k] === BACKSLASH) return false;
      k++;
    }
    const f = READ.indexOf(raw, key + 1, k);
    if (f < 0) continue;
    k++;
    // Past the colon and the whitespace around it: the scan proved them there.
    while (raw[k] !== 0x3a) k++;
    k++;
    while (raw[k] === 0x20 || raw[k] === 0x0a || raw[k] === 0x0d || raw[k] === 0x09) k++;
    spans[2 * f] = k;
    spans[2 * f + 1] = layout[i + 1];
  }
  return true;
}

/**
 * A read member's value, decoded (it is small); undefined when absent. The scan proved it JSON,
 * so `true`, `false`, `null` and a run of digits are read from their bytes: a decode and a
 * JSON.parse for each cost ~80 ns: the benchmark's stream request (`max_tokens`, `stream`) 1.71 →
 * 1.55 µs alone, gateway-anthropic-stream 237.5k → 235.6k instructions a request (main thread,
 * bench:instructions, issue 17).
 */
function valueOf(raw: Buffer, f: number): unknown {
  const from = spans[2 * f];
  if (from < 0) return undefined;
  const to = spans[2 * f + 1];
  const c = raw[from];
  if (c === 0x74 /* t */) return true;
  if (c === 0x6e /* n */) return null;
  if (c === 0x66 /* f */) return false;
  if (to - from <= 15) {
    let v = 0;
    let i = from;
    for (; i < to; i++) {
      const d = raw[i] - 0x30;
      if (d < 0 || d > 9) break;
      v = v * 10 + d;
    }
    if (i === to) return v;
  }
  return JSON.parse(raw.toString('utf8', from, to));
}

/** A message's role as one of the kinds above; -1 for one this does not write. */
function roleOf(raw: Buffer, words: Int32Array, at: number): number {
  const from = words[at + ROLE];
  const to = words[at + ROLE + 1];
  if (valueIs(raw, from, to, USER)) return USER_ROLE;
  if (valueIs(raw, from, to, ASSISTANT)) return ASSISTANT_ROLE;
  if (valueIs(raw, from, to, SYSTEM) || valueIs(raw, from, to, DEVELOPER)) return SYSTEM_ROLE;
  return -1;
}

/**
 * The text blocks message e's content makes (contentBlocks: empty texts left out), written into
 * `w` comma-separated when `w` is given; -1 for content this does not cover.
 */
function blocks(w: SpanWriter | null, raw: Buffer, messages: Records, e: number, at: number): number {
  const words = messages.words;
  const from = words[at + CONTENT];
  if (from < 0 || raw[from] === NUL) return 0;
  const to = words[at + CONTENT + 1];
  if (raw[from] === STR) {
    if (to - from === 2) return 0;
    if (w !== null) textBlock(w, from, to);
    return 1;
  }
  if (raw[from] !== ARR) return -1;
  const parts = nestedRecords(messages, e, MESSAGE_KEYS, to);
  if (parts === null) return -1;
  const pw = parts.words;
  let count = 0;
  for (let j = 0; j < parts.count; j++) {
    const p = parts.from + j * parts.stride;
    if (raw[pw[p]] !== OBJ || pw[p + PART_CACHE] >= 0 || !valueIs(raw, pw[p + TYPE], pw[p + TYPE + 1], TEXT_TYPE)) return -1;
    const textAt = pw[p + TEXT];
    if (textAt < 0 || raw[textAt] !== STR) return -1;
    const textEnd = pw[p + TEXT + 1];
    if (textEnd - textAt === 2) continue;
    if (w !== null) {
      if (count > 0) w.put(COMMA);
      textBlock(w, textAt, textEnd);
    }
    count++;
  }
  return count;
}

function textBlock(w: SpanWriter, from: number, to: number): void {
  w.put(TEXT_BLOCK);
  w.piece(from, to);
  w.put(CLOSE);
}

/**
 * The user and assistant turns (toConversation: consecutive turns of one role merged, a turn
 * with no blocks left out); the system messages' block count, or -1 for a conversation this
 * does not cover.
 */
function writeTurns(w: SpanWriter, raw: Buffer, messages: Records): number {
  const words = messages.words;
  let open = NO_ROLE;
  let system = 0;
  for (let e = 0; e < messages.count; e++) {
    const at = messages.from + e * messages.stride;
    if (raw[words[at]] !== OBJ || words[at + CACHE] >= 0) return -1;
    const calls = words[at + TOOL_CALLS];
    if (calls >= 0 && raw[calls] !== NUL) return -1;
    const role = roleOf(raw, words, at);
    if (role < 0) return -1;
    const count = blocks(null, raw, messages, e, at);
    if (count < 0) return -1;
    if (role === SYSTEM_ROLE) {
      system += count;
      continue;
    }
    if (count === 0) continue;
    if (open === role) w.put(COMMA);
    else {
      if (open !== NO_ROLE) w.put(NEXT_TURN);
      w.put(role === USER_ROLE ? USER_TURN : ASSISTANT_TURN);
      open = role;
    }
    blocks(w, raw, messages, e, at);
  }
  if (open !== NO_ROLE) w.put(TURN_END);
  return system;
}

/** The system and developer messages' blocks, in order (a body with at least one). */
function writeSystem(w: SpanWriter, raw: Buffer, messages: Records): void {
  const words = messages.words;
  let first = true;
  for (let e = 0; e < messages.count; e++) {
    const at = messages.from + e * messages.stride;
    if (roleOf(raw, words, at) !== SYSTEM_ROLE) continue;
    const count = blocks(null, raw, messages, e, at);
    if (count === 0) continue;
    if (!first) w.put(COMMA);
    first = false;
    blocks(w, raw, messages, e, at);
  }
}

let lastModel = '';
let lastModelLiteral = '""';

/** The model's JSON literal: most requests name the model the one before named (JSON.stringify ~1.3k instructions a call, callgrind). */
function modelLiteral(model: string): string {
  if (model !== lastModel) {
    lastModelLiteral = JSON.stringify(model);
    lastModel = model;
  }
  return lastModelLiteral;
}
