import { jsonString, writeJson } from '../../lib/json-write.js';
import { finishReason } from './stop-reason.js';
import { canonicalUsageJson, emptyCounts, mergeUsage, type AnthropicUsage, type UsageCounts } from './usage.js';

interface MessageAnswer {
  id?: unknown;
  model?: unknown;
  content?: unknown;
  stop_reason?: unknown;
  usage?: AnthropicUsage;
}

/**
 * A whole Anthropic `message` → an OpenAI `chat.completion` JSON text. Text blocks are joined
 * into `content`; `tool_use` blocks become `tool_calls` with their input as JSON text. Thinking
 * blocks are left out: the gateway never asks for them, and OpenAI's answer has no place for them.
 * Throws on a body that is not a message, which the data plane treats as a failed route.
 * `answerModel`, when given, is the model the answer names in place of the message's own.
 * `counts` is given the answer's token counts, those its usage is written from.
 */
export function toChatCompletion(answer: Buffer, upstreamModel: string, now: number, answerModel?: string,
  counts: UsageCounts = emptyCounts()): string {
  const msg = JSON.parse(answer.toString('utf8')) as MessageAnswer;
  if (typeof msg !== 'object' || msg === null || !Array.isArray(msg.content)) throw new Error('the Anthropic answer is not a message');
  let text: string | null = null;
  const toolCalls: Record<string, unknown>[] = [];
  for (const b of msg.content as Record<string, unknown>[]) {
    if (b?.type === 'text' && typeof b.text === 'string') text = (text ?? '') + b.text;
    else if (b?.type === 'tool_use') {
      toolCalls.push({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } });
    }
  }
  mergeUsage(counts, msg.usage);
  // Written around its values (the bytes JSON.stringify writes for the answer's object, in this
  // order): a walk of the object cost ~10,000 instructions more (callgrind, issue 17).
  const id = typeof msg.id === 'string' ? msg.id : 'msg';
  const model = answerModel ?? (typeof msg.model === 'string' ? msg.model : upstreamModel);
  const calls = toolCalls.length > 0 ? `,"tool_calls":${writeJson(toolCalls)}` : '';
  return `{"id":${jsonString(id)},"object":"chat.completion","created":${Math.floor(now / 1000)},"model":${jsonString(model)},` +
    `"choices":[{"index":0,"message":{"role":"assistant","content":${text === null ? 'null' : jsonString(text)}${calls}},"logprobs":null,` +
    `"finish_reason":${writeJson(finishReason(msg.stop_reason))}}],"usage":${canonicalUsageJson(counts)}}`;
}
