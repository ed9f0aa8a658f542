import { readExtensions, type Extensions } from '../../domain/extensions.js';
import { assembleChatRequest, type WrittenRequest } from '../chat-request-bytes.js';
import { MAX_JSON_DEPTH } from '../../domain/json-body.js';
import { scanObject, WantedNames } from '../../lib/json-scan.js';
import { SpanWriter } from '../../lib/span-writer.js';
import { ITEM_KEYS, writeInputMessages } from './input-bytes.js';
import { inputItems, type Item } from './items.js';
import { chatOptions, refuseUnsupported, RESPONSES_CHECK, type ResponseEcho } from './request.js';

// A Responses request (Codex's agent turn) translated to its chat request without decoding the
// conversation: one scan checks the body and records where each input item's members are, the
// members around `input` are decoded as objects (they are small: model, instructions, tools), and
// the messages are written from the input's bytes (input-bytes.ts), each string copied from the
// client's body. Anything this does not cover, errors included, answers null: the object
// translation (request.ts) then makes the request, and refuses what it always refused.

/** A Responses request's chat request, written. */
export interface WrittenChat extends WrittenRequest {
  /** The request's members, `input` left out (as `[]`): what the response echoes, and the extensions. */
  body: Record<string, unknown>;
  ext: Extensions;
  echo: ResponseEcho;
  /** The request's own input as items, decoded: for a stored response. */
  input(): Item[];
}

const WANTED = new WantedNames(['input', 'instructions']);
const INPUT = 0;
const INSTRUCTIONS = 1;
const SCAN = { wanted: WANTED, records: INPUT, recordKeys: ITEM_KEYS, maxDepth: MAX_JSON_DEPTH };
const QUOTE = 0x22;
/** The messages' pieces, noted as the input is walked and copied in the scan's memory. */
const writer = new SpanWriter();

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
  writer.begin();
  if (writeInputMessages(writer, raw, items, inputSpan.start, inputSpan.end) <= 0) return null;
  const messages = writer.write(raw);
  if (messages === null) return null;
  const instructions = typeof body.instructions === 'string' && body.instructions !== '' ? scan.members[INSTRUCTIONS] : null;
  const system = instructions === null ? null : raw.subarray(instructions.start, instructions.end);
  const written = assembleChatRequest(body.model as string, system, JSON.stringify(options), messages.bytes, messages.from, messages.to);
  const input = (): Item[] => inputItems(JSON.parse(raw.toString('utf8', inputSpan.start, inputSpan.end)));
  return { body, ext, echo, ...written, input };
}
