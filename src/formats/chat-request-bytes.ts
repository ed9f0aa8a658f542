import { ByteWriter } from '../lib/byte-writer.js';
import { jsonString } from '../lib/json-write.js';
import { requestBuffer, type Lease } from '../lib/request-slabs.js';

// The chat-completions request a translation writes from the client's bytes (formats/responses/
// request-bytes.ts, formats/messages/request-bytes.ts): its messages are written first, by a
// SpanWriter in the scan's memory (lib/span-writer.ts); then the request is assembled around
// them, in a buffer of its own, as JSON.stringify would order it: model, messages, then the
// other members.

const request = new ByteWriter();

const MODEL_KEY = Buffer.from('{"model":');
const MESSAGES_KEY = Buffer.from(',"messages":[');
const SYSTEM = Buffer.from('{"role":"system","content":');
const SYSTEM_END = Buffer.from('}');
const END_MESSAGES = Buffer.from(']');
const END = Buffer.from('}');
const COMMA = Buffer.from(',');

/** A written request, and where its model value stands in it (quotes included). */
export interface WrittenRequest {
  bytes: Buffer;
  modelStart: number;
  modelEnd: number;
  /** When `bytes` are a lent slab's (a large request): its first hold, given back once the request has ended (InferenceBody.release). */
  lease: Lease | null;
}

/**
 * `{"model":…,"messages":[system, …messages],…rest}`: `system`, when given, is the system
 * message's content as a JSON string literal; `messages` the messages written, comma-separated,
 * at bytes[from, to) (a SpanWriter's); `rest` the JSON text of the members after messages (`{}`
 * for none).
 */
export function assembleChatRequest(model: string, system: Buffer | null, rest: string, bytes: Uint8Array, from: number, to: number): WrittenRequest {
  const written = to - from;
  // jsonString: a plain model id between quotes as it is (a JSON.stringify call was ~1k instructions, callgrind).
  const modelText = jsonString(model);
  const size = MODEL_KEY.length + roomFor(modelText) + MESSAGES_KEY.length
    + (system !== null ? SYSTEM.length + system.length + SYSTEM_END.length + (written > 0 ? 1 : 0) : 0)
    + written + END_MESSAGES.length + (rest.length > 2 ? roomFor(rest) : 1);
  const w = request;
  // Out of the scratch: the request is held until it is answered; a large one in a lent slab.
  const { buf, lease } = requestBuffer(size);
  w.beginIn(buf);
  w.put(MODEL_KEY);
  const modelStart = w.at;
  w.text(modelText);
  const modelEnd = w.at;
  w.put(MESSAGES_KEY);
  if (system !== null) {
    w.put(SYSTEM);
    w.bytes(system, 0, system.length);
    w.put(SYSTEM_END);
    if (written > 0) w.put(COMMA);
  }
  w.bytes(bytes, from, to);
  w.put(END_MESSAGES);
  if (rest.length > 2) {
    w.put(COMMA);
    w.text(rest.slice(1));
  } else {
    w.put(END);
  }
  return { bytes: w.at === size ? w.buf : w.buf.subarray(0, w.at), modelStart, modelEnd, lease };
}

/** Strings up to this long get room for their most bytes, not their count (roomFor). */
const SHORT_TEXT = 256;

/**
 * Bytes enough for `s` as UTF-8. A short one (the model, the usual members after messages) gets
 * three a UTF-16 unit, UTF-8's most for one, in place of a Buffer.byteLength call, and the request
 * is a view of what was written; a long one (an agent's tools) its count, so that a held request
 * keeps no more than 2 × SHORT_TEXT bytes it does not use. Callgrind, 20,000 calls after 50,000
 * with the members built afresh each time, as the translations build them: 9.8k → 8.8k
 * instructions a call (docs/benchmarks.md).
 */
function roomFor(s: string): number {
  return s.length <= SHORT_TEXT ? 3 * s.length : Buffer.byteLength(s);
}
