import { EXTENSION_NAMES, NO_EXTENSIONS, readExtensions, type Extensions } from '../../domain/extensions.js';
import { MAX_JSON_DEPTH } from '../../domain/json-body.js';
import { scanObject, WantedNames, type MemberSpan, type ObjectScan } from '../../lib/json-scan.js';
import { booleanAt, NO_STOPS, numberValue, stopsAt, stringAt, tokensAt } from '../body-spans.js';
import { assembleChatRequest, type WrittenRequest } from '../chat-request-bytes.js';
import { SpanWriter } from '../../lib/span-writer.js';
import { MESSAGE_KEYS, stringConversationTokens, writeConversation, writeSystem } from './content-bytes.js';
import { chatMembers, MESSAGES_CHECK } from './request.js';

// A Messages request (Claude Code's agent turn, an API client's small one) translated to its chat
// request without decoding the conversation: one scan checks the body and records where each
// message's role and content are, the members around `messages` and `system` are read from their
// spans when they are the plain ones (plainMembers) or decoded as objects (they are small beside
// it: the tools, the settings), and the system prompt and messages are written from the client's
// bytes (content-bytes.ts). Anything this does not cover, errors included, answers null: the object
// translation (request.ts) then makes the request, and refuses what it always refused.

/** A Messages request's chat request, written. */
export interface WrittenMessagesChat extends WrittenRequest {
  /**
   * The request's members around the conversation, as the data plane reads them: the model,
   * max_tokens, stream and the stop sequences (all of them, `messages` stood in for by one empty
   * user message and `system` by `""`, when they were decoded as objects).
   */
  body: Record<string, unknown>;
  ext: Extensions;
  /**
   * The prompt's estimate of the written request, when asked for, its members around the
   * conversation are plain (plainMembers: no tools) and every message is a string
   * (stringConversationTokens); null otherwise.
   */
  estimate: number | null;
}

// The members around the conversation are wanted too, so that a body of only the plain ones
// (plainMembers) has them read from their spans.
const WANTED = new WantedNames(['messages', 'system', 'model', 'max_tokens', 'stream', 'stop_sequences', 'temperature', 'top_p', 'top_k',
  'metadata', 'tools', 'tool_choice', ...EXTENSION_NAMES]);
const MODEL = 2;
const MAX_TOKENS = 3;
const STREAM = 4;
const STOPS = 5;
const TEMPERATURE = 6;
const TOP_P = 7;
const TOP_K = 8;
/** From here on (metadata, tools, tool_choice, the gateway's extensions) a member is read as an object, by parsedMembers. */
const FIRST_DECODED = 9;
const SCAN = { wanted: WANTED, records: 0, recordKeys: MESSAGE_KEYS, maxDepth: MAX_JSON_DEPTH };
/** The conversation's pieces, noted as it is walked and copied in the scan's memory (lib/span-writer.ts). */
const writer = new SpanWriter();
/** What `messages` and `system` are decoded as, so that the schema checks the members around them. */
const STAND_IN = '[{"role":"user","content":""}]';
const SYSTEM_STAND_IN = '""';

/**
 * The chat request for the Messages body `raw`, or null when the object translation must make it;
 * `estimated`: with the prompt's estimate where stringConversationTokens reads it.
 */
export function writtenMessagesChat(raw: Buffer, estimated = false): WrittenMessagesChat | null {
  // Null for a body that is not valid JSON, names `messages` twice or with escapes, or whose
  // messages the module leaves to JavaScript.
  const scan = scanObject(raw, SCAN);
  if (scan === null) return null;
  const span = scan.members[0];
  const system = scan.members[1];
  const messages = scan.records ?? null;
  if (span === null || messages === null || messages.count === 0) return null;
  const plain = plainMembers(raw, scan);
  const members = plain ?? parsedMembers(raw, span, system);
  if (members === null) return null;
  const { body, ext, rest } = members;
  // Tools count in the estimate too: only a plain body's is the conversation's alone.
  const estimate = estimated && plain !== null ? stringConversationTokens(raw, system, messages) : null;
  writer.begin();
  const out = { first: true };
  if (system !== null && !writeSystem(writer, out, raw, system.start, system.end)) return null;
  if (!writeConversation(writer, raw, messages, out)) return null;
  const written = writer.write(raw);
  if (written === null) return null;
  const request = assembleChatRequest(body.model as string, null, rest, written.bytes, written.from, written.to);
  return { body, ext, estimate, ...request };
}

/** The members around the conversation: as `body` has them, the extensions, and the chat request's members after `messages` as JSON text. */
interface AroundMembers {
  body: Record<string, unknown>;
  ext: Extensions;
  rest: string;
}

/**
 * The members around the conversation decoded as objects, the conversation stood in for: what
 * the schema checks, and chatMembers translates. Null when the object translation must refuse it.
 */
function parsedMembers(raw: Buffer, messages: MemberSpan, system: MemberSpan | null): AroundMembers | null {
  const body = JSON.parse(around(raw, messages, system)) as Record<string, unknown>;
  if (!MESSAGES_CHECK.Check(body)) return null;
  try {
    return { body, ext: readExtensions(body), rest: JSON.stringify(chatMembers(body, false)) };
  } catch {
    return null;
  }
}

/**
 * What parsedMembers makes of a body whose members around the conversation are only model,
 * max_tokens, stream, stop_sequences, temperature, top_p and top_k (and others the translation
 * drops), read from their spans with the schema's checks (formats/body-spans.ts): the usual
 * request of an API client. Null for any other body, which parsedMembers reads. On the bench's
 * 1 KB request, parsedMembers' text stood in for, parsed, checked, translated and stringified was
 * a third of this translation's time (--cpu-prof). With it, small requests take this path too:
 * gateway-messages-stream 223.1k → 211.6k and gateway-messages 144.9k → 136.9k instructions on the
 * main thread (bench:instructions, paired; docs/benchmarks.md, "small requests on the byte path").
 */
function plainMembers(raw: Buffer, scan: ObjectScan): AroundMembers | null {
  const m = scan.members;
  for (let i = FIRST_DECODED; i < m.length; i++) if (m[i] !== null) return null;
  const modelSpan = m[MODEL];
  const model = modelSpan === null ? null : stringAt(raw, modelSpan);
  if (model === null || model.length === 0) return null;
  const maxTokens = tokensAt(raw, m[MAX_TOKENS]);
  if (typeof maxTokens !== 'number') return null;
  const stream = booleanAt(raw, m[STREAM]);
  if (stream === null) return null;
  const stops = stopsAt(raw, m[STOPS]);
  if (stops === null) return null;
  const temperature = m[TEMPERATURE] === null ? null : numberValue(raw, m[TEMPERATURE], false);
  const topP = m[TOP_P] === null ? null : numberValue(raw, m[TOP_P], false);
  if (Number.isNaN(temperature) || Number.isNaN(topP) || (m[TOP_K] !== null && Number.isNaN(numberValue(raw, m[TOP_K], true)))) return null;
  // chatMembers' members, in its order, as JSON.stringify writes them.
  let rest = `{"max_tokens":${maxTokens}`;
  if (stream) rest += ',"stream":true,"stream_options":{"include_usage":true}';
  if (stops.length > 0) rest += `,"stop":${JSON.stringify(stops)}`;
  if (temperature !== null) rest += `,"temperature":${JSON.stringify(temperature)}`;
  if (topP !== null) rest += `,"top_p":${JSON.stringify(topP)}`;
  const body: Record<string, unknown> = { model, max_tokens: maxTokens, stream, stop_sequences: stops === NO_STOPS ? undefined : stops };
  return { body, ext: NO_EXTENSIONS, rest: `${rest}}` };
}

/** The body's text with its messages, and its system prompt when it has one, stood in for. */
function around(raw: Buffer, messages: MemberSpan, system: MemberSpan | null): string {
  if (system === null) return raw.toString('utf8', 0, messages.start) + STAND_IN + raw.toString('utf8', messages.end);
  const [a, b, aIn, bIn] = system.start < messages.start ? [system, messages, SYSTEM_STAND_IN, STAND_IN] : [messages, system, STAND_IN, SYSTEM_STAND_IN];
  return raw.toString('utf8', 0, a.start) + aIn + raw.toString('utf8', a.end, b.start) + bIn + raw.toString('utf8', b.end);
}
