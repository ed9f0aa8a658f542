import { readExtensions, type Extensions } from '../../domain/extensions.js';
import { ByteWriter } from '../../lib/byte-writer.js';
import { MAX_JSON_DEPTH } from '../../domain/json-body.js';
import { scanObject, WantedNames } from '../../lib/json-scan.js';
import { inputBound, ITEM_KEYS, writeInputMessages } from './input-bytes.js';
import { inputItems, type Item } from './items.js';
import { chatOptions, refuseUnsupported, RESPONSES_CHECK, type ResponseEcho } from './request.js';

// A Responses request (Codex's agent turn) translated to its chat request without decoding the
// conversation: one scan checks the body and records where each input item's members are, the
// members around `input` are decoded as objects (they are small: model, instructions, tools), and
// the messages are written from the input's bytes (input-bytes.ts), each string copied from the
// client's body. Anything this does not cover, errors included, answers null: the object
// translation (request.ts) then makes the request, and refuses what it always refused.

/** A Responses request's chat request, written. */
export interface WrittenChat {
  /** The request's members, `input` left out (as `[]`): what the response echoes, and the extensions. */
  body: Record<string, unknown>;
  ext: Extensions;
  echo: ResponseEcho;
  /** The chat request's bytes, and where its model value stands in them (quotes included). */
  bytes: Buffer;
  modelStart: number;
  modelEnd: number;
  /** The request's own input as items, decoded: for a stored response. */
  input(): Item[];
}

const WANTED = new WantedNames(['input', 'instructions']);
const INPUT = 0;
const INSTRUCTIONS = 1;
const SCAN = { wanted: WANTED, records: INPUT, recordKeys: ITEM_KEYS, maxDepth: MAX_JSON_DEPTH };
const MODEL_KEY = Buffer.from('{"model":');
const MESSAGES_KEY = Buffer.from(',"messages":[');
const SYSTEM = Buffer.from('{"role":"system","content":');
const SYSTEM_END = Buffer.from('},');
const END_MESSAGES = Buffer.from(']');
const END = Buffer.from('}');
const COMMA = Buffer.from(',');
const QUOTE = 0x22;

/** The messages, written first (the members around them are read after), then the request assembled around them. */
const messages = new ByteWriter();
const request = new ByteWriter();

/** The chat request for the Responses body `raw`, or null when the object translation must make it. */
export function writtenChat(raw: Buffer): WrittenChat | null {
  // Null for a body that is not valid JSON, names `input` or `instructions` twice or with escapes,
  // or whose items the module leaves to JavaScript.
  const scan = scanObject(raw, SCAN);
  if (scan === null) return null;
  const inputSpan = scan.members[INPUT];
  if (inputSpan === null) return null;
  const items = scan.records ?? null;
  if (items === null && raw[inputSpan.start] !== QUOTE) return null;
  const body = JSON.parse(raw.toString('utf8', 0, inputSpan.start) + '[]' + raw.toString('utf8', inputSpan.end)) as Record<string, unknown>;
  if (!RESPONSES_CHECK.Check(body) || typeof body.previous_response_id === 'string') return null;
  let ext: Extensions;
  let options: Record<string, unknown>;
  let echo: ResponseEcho;
  try {
    ext = readExtensions(body);
    refuseUnsupported(body);
    ({ options, echo } = chatOptions(body));
  } catch {
    return null;
  }
  messages.begin(inputBound(inputSpan.start, inputSpan.end), raw);
  const spoken = writeInputMessages(messages, raw, items, inputSpan.start, inputSpan.end);
  if (spoken <= 0) return null;
  const model = JSON.stringify(body.model);
  const rest = JSON.stringify(options);
  const instructions = typeof body.instructions === 'string' && body.instructions !== '' ? scan.members[INSTRUCTIONS] : null;
  const size = MODEL_KEY.length + Buffer.byteLength(model) + MESSAGES_KEY.length
    + (instructions !== null ? SYSTEM.length + (instructions.end - instructions.start) + SYSTEM_END.length : 0)
    + (messages.at - messages.start) + END_MESSAGES.length + (rest.length > 2 ? Buffer.byteLength(rest) : 1);
  // Out of the scratch into a buffer of its own, the request assembled around the messages: it is held until answered.
  const w = request;
  w.beginIn(Buffer.allocUnsafe(size));
  w.put(MODEL_KEY);
  const modelStart = w.at;
  w.text(model);
  const modelEnd = w.at;
  w.put(MESSAGES_KEY);
  if (instructions !== null) {
    w.put(SYSTEM);
    w.copySource(raw, instructions.start, instructions.end);
    w.put(SYSTEM_END);
  }
  w.copySource(messages.buf, messages.start, messages.at);
  w.put(END_MESSAGES);
  if (rest.length > 2) {
    w.put(COMMA);
    w.text(rest.slice(1));
  } else {
    w.put(END);
  }
  const input = (): Item[] => inputItems(JSON.parse(raw.toString('utf8', inputSpan.start, inputSpan.end)));
  return { body, ext, echo, bytes: w.buf, modelStart, modelEnd, input };
}
