import { ByteWriter } from '../lib/byte-writer.js';
import { jsonString } from '../lib/json-write.js';

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
  const size = MODEL_KEY.length + Buffer.byteLength(modelText) + MESSAGES_KEY.length
    + (system !== null ? SYSTEM.length + system.length + SYSTEM_END.length + (written > 0 ? 1 : 0) : 0)
    + written + END_MESSAGES.length + (rest.length > 2 ? Buffer.byteLength(rest) : 1);
  const w = request;
  // Out of the scratch: the request is held until it is answered.
  w.beginIn(Buffer.allocUnsafe(size));
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
  return { bytes: w.buf, modelStart, modelEnd };
}
