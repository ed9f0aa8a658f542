import { CANONICAL_LITERAL, execAnswer } from '../lib/json-literal.js';

// A whole chat.completion of text read in place, for the formats that answer in another shape
// (Responses, Messages): the answer held as byte text (lib/byte-text.ts) is matched by one
// regular expression of the compact layout in OpenAI's member order (what the gateway's own
// Anthropic and Gemini adapters write, and servers that write compact JSON in that order; OpenAI
// pretty-prints its answers, which are parsed as before), its text's literal is copied into the
// other format's answer as it came, and only its usage object is given to JSON.parse. Parsing
// the whole answer, building the other format's object and serialising it was ~40k
// instructions of gateway-responses' and gateway-messages' main thread (callgrind, issue 17;
// docs/benchmarks.md). The readers of Anthropic answers do the same
// (providers/anthropic/answer-in-place.ts).

/**
 * A chat.completion with one choice of text (no tool calls, reasoning or refusal), compact, its
 * members in OpenAI's order, usage an object. Captured: the id's literal, the content's literal
 * (absent for null), a finish reason of lowercase letters and underscores (absent for null), the
 * usage object's text.
 */
const TEXT_ANSWER = new RegExp(String.raw`^\{"id":(${CANONICAL_LITERAL}),"object":"chat\.completion","created":(?:0|[1-9][0-9]{0,15}),` +
  String.raw`"model":${CANONICAL_LITERAL},(?:"system_fingerprint":(?:${CANONICAL_LITERAL}|null),)?` +
  String.raw`"choices":\[\{"index":0,"message":\{"role":"assistant","content":(?:(${CANONICAL_LITERAL})|null)` +
  String.raw`(?:,"refusal":null)?(?:,"annotations":\[\])?\},(?:"logprobs":null,)?"finish_reason":(?:"([a-z_]*)"|null)\}\],` +
  String.raw`"usage":(\{.*\})(?:,"service_tier":(?:${CANONICAL_LITERAL}|null))?(?:,"system_fingerprint":(?:${CANONICAL_LITERAL}|null))?\}[ \t\r\n]*$`, 's');

/** What the formats need of a chat answer of text, its literals as byte text. */
export interface ChatTextAnswer {
  /** The answer's `id` as its JSON literal. */
  id: string;
  /** The message's content as its JSON literal (exactly JSON.stringify's of its value); '""' for null. */
  content: string;
  /** The finish reason, or null. */
  finish: string | null;
  /** The usage object, parsed. */
  usage: Record<string, unknown>;
}

/**
 * The answer's parts, or null when it is not a chat.completion of text as TEXT_ANSWER has it
 * (then the caller parses it whole, which also handles everything else). A match is those parts
 * between fixed text, each literal as JSON.stringify writes its value, so the answer is JSON
 * exactly when its usage is, and the parts mean what its parse would give. Bytes that are not
 * UTF-8 are left to the parse, which reads them as U+FFFD.
 */
export function chatTextAnswer(answer: Buffer): ChatTextAnswer | null {
  const m = execAnswer(TEXT_ANSWER, answer);
  if (m === null) return null;
  let usage: unknown;
  try {
    usage = JSON.parse(m[4]);
  } catch {
    return null;
  }
  return { id: m[1], content: m[2] ?? '""', finish: m[3] ?? null, usage: usage as Record<string, unknown> };
}
