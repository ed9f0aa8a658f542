import { jsonBytes, textBytes } from '../../lib/byte-text.js';
import { CANONICAL_LITERAL, execAnswer } from '../../lib/json-literal.js';
import { finishReason } from './stop-reason.js';
import { canonicalUsageJson, mergeUsageText, type UsageCounts } from './usage.js';

// A whole Anthropic answer of text read in place: the answer held as byte text
// (lib/byte-text.ts) is matched by one regular expression of Anthropic's compact layout, its
// id, model and text block's literals are copied into the chat.completion as they came, and
// only its usage object is given to JSON.parse. The parse of the whole answer was ~16,700
// instructions of gateway-anthropic's main thread, and writing its text's literal again and
// encoding the answer ~8,000 more (callgrind, issue 17); now 16,800 in all. On the bench's
// 427-byte answer the translation takes 1.7 µs against 2.7 µs (node 20), the match 0.38 µs of
// it; on a 9.9 KB answer of escaped text the match takes 10.7 µs, the parse alone 13.3 µs.
// Tried and slower: readers of the members in any order, in JavaScript. One built on the body
// scanner (WebAssembly, every member's offsets) did no better than the parse; one over the
// answer's bytes in a Buffer took 0.9 µs to read it (its loops ~1 ns a byte) and 1.3 µs to
// write a buffer byte by byte; one over byte text 1.65 µs to read it, most of it comparing the
// members' keys a character at a time.

/**
 * A message as Anthropic writes one with text alone: its members in its order, compact, at most
 * one text block, and usage last. Captured: the id, the model, the text's literal, a stop reason
 * of lowercase letters and underscores (any other is no reason finishReason knows), the usage.
 */
const TEXT_MESSAGE = new RegExp(String.raw`^\{"id":(${CANONICAL_LITERAL}),"type":${CANONICAL_LITERAL},` +
  String.raw`"role":${CANONICAL_LITERAL},"model":(${CANONICAL_LITERAL}),` +
  String.raw`"content":\[(?:\{"type":"text","text":(${CANONICAL_LITERAL})\})?\],` +
  String.raw`"stop_reason":(?:"([a-z_]*)"|${CANONICAL_LITERAL}|null),"stop_sequence":(?:${CANONICAL_LITERAL}|null),` +
  String.raw`"usage":(\{.*\})\}[ \t\r\n]*$`, 's');

/** The answer model's JSON literal, kept for the next answer: a route names the same one each time. */
let namedModel = '';
let namedJson = '';

/**
 * The chat.completion for `answer` (what toChatCompletion writes for it, byte for byte), or
 * null when the answer is not as Anthropic writes an answer of text (TEXT_MESSAGE). The answer
 * is then those members and the usage object between fixed text, each literal JSON as
 * JSON.stringify writes its value, so it is JSON exactly when its usage is, and means what its
 * parse would. Anything else (a tool call, thinking, several blocks, another member or order,
 * space, an escape JSON.stringify writes otherwise, bytes that are not UTF-8) is left to
 * toChatCompletion, which parses the answer whole.
 */
export function chatCompletionInPlace(answer: Buffer, now: number, answerModel: string | undefined, counts: UsageCounts): Buffer | null {
  const m = execAnswer(TEXT_MESSAGE, answer);
  if (m === null) return null;
  if (!mergeUsageText(counts, m[5])) return null;
  let model = m[2];
  if (answerModel !== undefined) {
    if (answerModel !== namedModel) {
      namedJson = jsonBytes(answerModel);
      namedModel = answerModel;
    }
    model = namedJson;
  }
  return textBytes(`{"id":${m[1]},"object":"chat.completion","created":${Math.floor(now / 1000)},"model":${model},` +
    `"choices":[{"index":0,"message":{"role":"assistant","content":${m[3] ?? 'null'}},"logprobs":null,` +
    `"finish_reason":"${finishReason(m[4])}"}],"usage":${canonicalUsageJson(counts)}}`);
}
