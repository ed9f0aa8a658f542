import { readExtensions, type Extensions } from '../../domain/extensions.js';
import { MAX_JSON_DEPTH } from '../../domain/json-body.js';
import { scanObject, WantedNames, type MemberSpan } from '../../lib/json-scan.js';
import { assembleChatRequest, type WrittenRequest } from '../chat-request-bytes.js';
import { SpanWriter } from '../../lib/span-writer.js';
import { MESSAGE_KEYS, writeConversation, writeSystem } from './content-bytes.js';
import { chatMembers, MESSAGES_CHECK } from './request.js';

// A Messages request (Claude Code's agent turn) translated to its chat request without decoding
// the conversation: one scan checks the body and records where each message's role and content
// are, the members around `messages` and `system` are decoded as objects (they are small beside
// it: the tools, the settings), and the system prompt and messages are written from the client's
// bytes (content-bytes.ts). Anything this does not cover, errors included, answers null: the object
// translation (request.ts) then makes the request, and refuses what it always refused.

/** A Messages request's chat request, written. */
export interface WrittenMessagesChat extends WrittenRequest {
  /** The request's members, `messages` stood in for by one empty user message and `system` by `""`: the model, the stop sequences, the extensions. */
  body: Record<string, unknown>;
  ext: Extensions;
}

const WANTED = new WantedNames(['messages', 'system']);
const SCAN = { wanted: WANTED, records: 0, recordKeys: MESSAGE_KEYS, maxDepth: MAX_JSON_DEPTH };
/** The conversation's pieces, noted as it is walked and copied in the scan's memory (lib/span-writer.ts). */
const writer = new SpanWriter();
/** What `messages` and `system` are decoded as, so that the schema checks the members around them. */
const STAND_IN = '[{"role":"user","content":""}]';
const SYSTEM_STAND_IN = '""';

/** The chat request for the Messages body `raw`, or null when the object translation must make it. */
export function writtenMessagesChat(raw: Buffer): WrittenMessagesChat | null {
  // Null for a body that is not valid JSON, names `messages` twice or with escapes, or whose
  // messages the module leaves to JavaScript.
  const scan = scanObject(raw, SCAN);
  if (scan === null) return null;
  const span = scan.members[0];
  const system = scan.members[1];
  const messages = scan.records ?? null;
  if (span === null || messages === null || messages.count === 0) return null;
  const body = JSON.parse(around(raw, span, system)) as Record<string, unknown>;
  if (!MESSAGES_CHECK.Check(body)) return null;
  let ext: Extensions;
  let rest: Record<string, unknown>;
  try {
    ext = readExtensions(body);
    rest = chatMembers(body, false);
  } catch {
    return null;
  }
  writer.begin();
  const out = { first: true };
  if (system !== null && !writeSystem(writer, out, raw, system.start, system.end)) return null;
  if (!writeConversation(writer, raw, messages, out)) return null;
  const written = writer.write(raw);
  if (written === null) return null;
  const request = assembleChatRequest(body.model as string, null, JSON.stringify(rest), written.bytes, written.from, written.to);
  return { body, ext, ...request };
}

/** The body's text with its messages, and its system prompt when it has one, stood in for. */
function around(raw: Buffer, messages: MemberSpan, system: MemberSpan | null): string {
  if (system === null) return raw.toString('utf8', 0, messages.start) + STAND_IN + raw.toString('utf8', messages.end);
  const [a, b, aIn, bIn] = system.start < messages.start ? [system, messages, SYSTEM_STAND_IN, STAND_IN] : [messages, system, STAND_IN, SYSTEM_STAND_IN];
  return raw.toString('utf8', 0, a.start) + aIn + raw.toString('utf8', a.end, b.start) + bIn + raw.toString('utf8', b.end);
}
