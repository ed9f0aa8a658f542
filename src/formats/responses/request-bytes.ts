import { readExtensions, type Extensions } from '../../domain/extensions.js';
import { ByteWriter } from '../../lib/byte-writer.js';
import type { CompactBody } from '../../lib/json-literals.js';
import { copyString, hasBackslash, spells, stringBytes, stringEnd, valueEnd, ws } from '../../lib/json-skeleton.js';
import { inputBound, writeInputMessages, type Walk } from './input-bytes.js';
import { inputItems, type Item } from './items.js';
import { chatOptions, refuseUnsupported, RESPONSES_CHECK, type ResponseEcho } from './request.js';

// A Responses request (Codex's agent turn) translated to its chat request without decoding the
// conversation: the members around `input` are decoded from the skeleton as objects (they are
// small: model, instructions, tools), and the messages are written from the input's bytes
// (input-bytes.ts), each long string copied from the client's body. Anything this does not
// cover, errors included, answers null: the object translation (request.ts) then makes the
// request, and refuses what it always refused.

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

const INPUT_KEY = Buffer.from('"input"');
const INSTRUCTIONS_KEY = Buffer.from('"instructions"');
const MODEL_KEY = Buffer.from('{"model":');
const MESSAGES_KEY = Buffer.from(',"messages":[');
const SYSTEM = Buffer.from('{"role":"system","content":');
const SYSTEM_END = Buffer.from('},');
const END_MESSAGES = Buffer.from(']');
const END = Buffer.from('}');
const COMMA = Buffer.from(',');
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const QUOTE = 0x22;
const CLOSE_BRACE = 0x7d;

/** The messages, written first (the members around them are read after), then the request assembled around them. */
const messages = new ByteWriter();
const request = new ByteWriter();

/** The chat request for the Responses body `c` (compacted), or null when the object translation must make it. */
export function writtenChat(c: CompactBody): WrittenChat | null {
  const s = c.text;
  const t = c.literals;
  messages.begin(inputBound(s, t), t.raw);
  // The top-level members in one walk; the input's items are written as they are met.
  let walk: Walk | null = null;
  let inputAt = -1;
  let instructionsAt = -1;
  let instructionsEnd = -1;
  let i = ws(s, 1);
  if (s[i] !== CLOSE_BRACE) {
    for (;;) {
      const k = i;
      const keyEnd = stringEnd(s, k);
      if (hasBackslash(s, k, keyEnd)) return null;
      i = ws(s, keyEnd);
      if (s[i] !== COLON) return null;
      i = ws(s, i + 1);
      const at = i;
      if (spells(s, k, keyEnd, INPUT_KEY)) {
        // Given twice, the last counts (as JSON.parse has it): left to the object translation.
        if (inputAt >= 0 || (s[at] !== OPEN_BRACKET && s[at] !== QUOTE)) return null;
        walk = writeInputMessages(messages, s, t, at);
        if (walk === null) return null;
        inputAt = at;
        i = walk.end;
      } else {
        i = valueEnd(s, at);
        if (spells(s, k, keyEnd, INSTRUCTIONS_KEY)) {
          instructionsAt = at;
          instructionsEnd = i;
        }
      }
      i = ws(s, i);
      if (s[i++] === CLOSE_BRACE) break;
      i = ws(s, i);
    }
  }
  if (walk === null || walk.spoken === 0) return null;
  const inputEnd = walk.end;
  const body = JSON.parse(s.toString('utf8', 0, inputAt) + '[]' + s.toString('utf8', inputEnd)) as Record<string, unknown>;
  if (t.spans.length > 0) for (const k of Object.keys(body)) if (k !== 'input') body[k] = t.expand(body[k]);
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
  const model = JSON.stringify(body.model);
  const rest = JSON.stringify(options);
  const instructions = typeof body.instructions === 'string' && body.instructions !== '';
  const modelBytes = Buffer.byteLength(model);
  const restBytes = rest.length > 2 ? Buffer.byteLength(rest) : 1;
  const size = MODEL_KEY.length + modelBytes + MESSAGES_KEY.length
    + (instructions ? SYSTEM.length + stringBytes(s, instructionsAt, instructionsEnd, t) + SYSTEM_END.length : 0)
    + (messages.at - messages.start) + END_MESSAGES.length + restBytes;
  // Out of the scratch into a buffer of its own, the request assembled around the messages: it is held until answered.
  const w = request;
  w.beginIn(Buffer.allocUnsafe(size));
  w.put(MODEL_KEY);
  const modelStart = w.at;
  w.text(model);
  const modelEnd = w.at;
  w.put(MESSAGES_KEY);
  if (instructions) {
    w.put(SYSTEM);
    copyString(w, s, instructionsAt, instructionsEnd, t);
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
  const bytes = w.buf;
  const input = (): Item[] => t.expand(inputItems(JSON.parse(s.toString('utf8', inputAt, inputEnd))));
  return { body, ext, echo, bytes, modelStart, modelEnd, input };
}
