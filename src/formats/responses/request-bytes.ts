import { EXTENSION_NAMES, NO_EXTENSIONS, readExtensions, type Extensions } from '../../domain/extensions.js';
import { assembleChatRequest, type WrittenRequest } from '../chat-request-bytes.js';
import { MAX_JSON_DEPTH } from '../../domain/json-body.js';
import { scanObject, WantedNames, type MemberSpan, type ObjectScan } from '../../lib/json-scan.js';
import { booleanAt, numberValue, stringAt, tokensAt } from '../body-spans.js';
import { SpanWriter } from '../../lib/span-writer.js';
import { ITEM_KEYS, writeInputMessages } from './input-bytes.js';
import { inputItems, type Item } from './items.js';
import { chatOptions, DEFAULT_TEXT, NO_METADATA, refuseUnsupported, RESPONSES_CHECK, type ResponseEcho } from './request.js';

// A Responses request (Codex's agent turn, an API client's small one) translated to its chat
// request without decoding the conversation: one scan checks the body and records where each
// input item's members are, the members around `input` are read from their spans when they are
// the plain ones (plainMembers) or decoded as objects (they are small: model, instructions, tools), and
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

// The members around the input are wanted too, so that a body of only the plain ones
// (plainMembers) has them read from their spans.
const WANTED = new WantedNames(['input', 'instructions', 'model', 'max_output_tokens', 'temperature', 'top_p', 'stream', 'store',
  'tools', 'tool_choice', 'text', 'metadata', 'parallel_tool_calls', 'user', 'previous_response_id', 'reasoning',
  'background', 'conversation', 'prompt', ...EXTENSION_NAMES]);
const INPUT = 0;
const INSTRUCTIONS = 1;
const MODEL = 2;
const MAX_OUTPUT_TOKENS = 3;
const TEMPERATURE = 4;
const TOP_P = 5;
const STREAM = 6;
const STORE = 7;
/** From here on (tools … prompt, the gateway's extensions) a member is read as an object, by parsedMembers. */
const FIRST_DECODED = 8;
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
  const members = plainMembers(raw, scan) ?? parsedMembers(raw, inputSpan);
  if (members === null) return null;
  const { body, ext, options, echo } = members;
  writer.begin();
  if (writeInputMessages(writer, raw, items, inputSpan.start, inputSpan.end) <= 0) return null;
  const messages = writer.write(raw);
  if (messages === null) return null;
  const instructions = echo.instructions !== null && echo.instructions !== '' ? scan.members[INSTRUCTIONS] : null;
  const system = instructions === null ? null : raw.subarray(instructions.start, instructions.end);
  const written = assembleChatRequest(body.model as string, system, options, messages.bytes, messages.from, messages.to);
  const input = (): Item[] => inputItems(JSON.parse(raw.toString('utf8', inputSpan.start, inputSpan.end)));
  return { body, ext, echo, ...written, input };
}

/** The members around the input: as `body` has them, the extensions, the chat request's members after `messages` as JSON text, the echo. */
interface AroundMembers {
  body: Record<string, unknown>;
  ext: Extensions;
  options: string;
  echo: ResponseEcho;
}

/**
 * The members around the input decoded as objects, the input stood in for: what the schema
 * checks, and chatOptions translates. Null when the object translation must refuse it.
 */
function parsedMembers(raw: Buffer, input: MemberSpan): AroundMembers | null {
  const body = JSON.parse(raw.toString('utf8', 0, input.start) + '[]' + raw.toString('utf8', input.end)) as Record<string, unknown>;
  if (!RESPONSES_CHECK.Check(body) || typeof body.previous_response_id === 'string') return null;
  try {
    const ext = readExtensions(body);
    refuseUnsupported(body);
    const { options, echo } = chatOptions(body);
    return { body, ext, options: JSON.stringify(options), echo };
  } catch {
    return null;
  }
}

/**
 * What parsedMembers makes of a body whose members around the input are only model,
 * instructions, max_output_tokens, temperature, top_p, stream and store (and others the
 * translation drops), read from their spans with the schema's checks (formats/body-spans.ts):
 * the usual request of an API client. Null for any other body, which parsedMembers reads. With
 * it, small requests take this path too: gateway-responses-stream 256.7k → 247.6k and
 * gateway-responses 143.8k → 138.8k instructions on the main thread (bench:instructions, paired;
 * docs/benchmarks.md, "small requests on the byte path").
 */
function plainMembers(raw: Buffer, scan: ObjectScan): AroundMembers | null {
  const m = scan.members;
  for (let i = FIRST_DECODED; i < m.length; i++) if (m[i] !== null) return null;
  const model = m[MODEL] === null ? null : stringAt(raw, m[MODEL]);
  if (model === null || model.length === 0) return null;
  const instructions = nullableAt(raw, m[INSTRUCTIONS], stringAt);
  const maxTokens = tokensAt(raw, m[MAX_OUTPUT_TOKENS]);
  const temperature = nullableAt(raw, m[TEMPERATURE], numberIn2);
  const topP = nullableAt(raw, m[TOP_P], numberIn1);
  const stream = nullableAt(raw, m[STREAM], booleanAt);
  const store = nullableAt(raw, m[STORE], booleanAt);
  if (instructions === undefined || maxTokens === undefined || temperature === undefined || topP === undefined || stream === undefined || store === undefined) return null;
  // chatOptions' members, in its order, as JSON.stringify writes them.
  let options = '{';
  if (temperature !== null) options += `"temperature":${JSON.stringify(temperature)},`;
  if (topP !== null) options += `"top_p":${JSON.stringify(topP)},`;
  if (maxTokens !== null) options += `"max_tokens":${maxTokens},`;
  if (stream === true) options += '"stream":true,"stream_options":{"include_usage":true},';
  options = options.length > 1 ? `${options.slice(0, -1)}}` : '{}';
  const echo: ResponseEcho = {
    instructions, max_output_tokens: maxTokens, temperature, top_p: topP, tools: [], tool_choice: 'auto', text: DEFAULT_TEXT,
    metadata: NO_METADATA, parallel_tool_calls: true, previous_response_id: null, store: store !== false, reasoning: null,
  };
  return { body: { model, max_output_tokens: maxTokens, stream }, ext: NO_EXTENSIONS, options, echo };
}

/** A Nullable member: null when absent or null, its value as `read` takes it, undefined when the schema refuses it. */
function nullableAt<T>(raw: Buffer, span: MemberSpan | null, read: (raw: Buffer, span: MemberSpan) => T | null): T | null | undefined {
  if (span === null || raw[span.start] === NULL_BYTE) return null;
  const v = read(raw, span);
  return v === null ? undefined : v;
}

const NULL_BYTE = 0x6e;

/** A finite number in [0, max], as the schema takes it; null when it does not. */
function numberIn(raw: Buffer, span: MemberSpan, max: number): number | null {
  const v = numberValue(raw, span, false);
  return v >= 0 && v <= max ? v : null;
}

const numberIn1 = (raw: Buffer, span: MemberSpan): number | null => numberIn(raw, span, 1);
const numberIn2 = (raw: Buffer, span: MemberSpan): number | null => numberIn(raw, span, 2);
