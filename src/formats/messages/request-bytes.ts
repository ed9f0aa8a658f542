import { readExtensions, type Extensions } from '../../domain/extensions.js';
import { MAX_JSON_DEPTH } from '../../domain/json-body.js';
import { scanObject, WantedNames } from '../../lib/json-scan.js';
import { assembleChatRequest, type WrittenRequest } from '../chat-request-bytes.js';
import { SpanWriter } from '../../lib/span-writer.js';
import { MESSAGE_KEYS, writeConversation } from './content-bytes.js';
import { chatMembers, MESSAGES_CHECK, systemText } from './request.js';

// A Messages request (Claude Code's agent turn) translated to its chat request without decoding
// the conversation: one scan checks the body and records where each message's role and content
// are, the members around `messages` are decoded as objects (they are small beside it: the
// system prompt, the tools), and the messages are written from the client's bytes
// (content-bytes.ts). Anything this does not cover, errors included, answers null: the object
// translation (request.ts) then makes the request, and refuses what it always refused.

/** A Messages request's chat request, written. */
export interface WrittenMessagesChat extends WrittenRequest {
  /** The request's members, `messages` stood in for by one empty user message: the model, the stop sequences, the extensions. */
  body: Record<string, unknown>;
  ext: Extensions;
}

const WANTED = new WantedNames(['messages']);
const SCAN = { wanted: WANTED, records: 0, recordKeys: MESSAGE_KEYS, maxDepth: MAX_JSON_DEPTH };
/** The conversation's pieces, noted as it is walked and copied in the scan's memory (lib/span-writer.ts). */
const writer = new SpanWriter();
/** What `messages` is decoded as, so that the schema checks the members around it. */
const STAND_IN = '[{"role":"user","content":""}]';

/** The chat request for the Messages body `raw`, or null when the object translation must make it. */
export function writtenMessagesChat(raw: Buffer): WrittenMessagesChat | null {
  // Null for a body that is not valid JSON, names `messages` twice or with escapes, or whose
  // messages the module leaves to JavaScript.
  const scan = scanObject(raw, SCAN);
  if (scan === null) return null;
  const span = scan.members[0];
  const messages = scan.records ?? null;
  if (span === null || messages === null || messages.count === 0) return null;
  const body = JSON.parse(raw.toString('utf8', 0, span.start) + STAND_IN + raw.toString('utf8', span.end)) as Record<string, unknown>;
  if (!MESSAGES_CHECK.Check(body)) return null;
  let ext: Extensions;
  let system: string | null;
  let rest: Record<string, unknown>;
  try {
    ext = readExtensions(body);
    system = systemText(body);
    rest = chatMembers(body, false);
  } catch {
    return null;
  }
  writer.begin();
  if (!writeConversation(writer, raw, messages)) return null;
  const written = writer.write(raw);
  if (written === null) return null;
  const request = assembleChatRequest(body.model as string, system === null ? null : Buffer.from(JSON.stringify(system)), JSON.stringify(rest),
    written.bytes, written.from, written.to);
  return { body, ext, ...request };
}
