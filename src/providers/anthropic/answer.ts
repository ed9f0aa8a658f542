import { isUtf8 } from 'node:buffer';
import { jsonBytes } from '../../lib/byte-text.js';
import { jsonString, writeJson } from '../../lib/json-write.js';
import { MessageFields, mergeRead } from './message-read.js';
import { finishReason } from './stop-reason.js';
import { canonicalUsageJson, emptyCounts, mergeUsage, type AnthropicUsage, type UsageCounts } from './usage.js';

const FIELDS = new MessageFields();

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
 */
export function toChatCompletion(answer: Buffer, upstreamModel: string, now: number, answerModel?: string): Buffer {
  // A text answer is read in place (message-read.ts) and its text copied as the bytes it came as.
  if (isUtf8(answer)) {
    const text = answer.toString('latin1');
    const f = FIELDS;
    const end = f.read(text, 0, text.length);
    if (end > 0 && onlyJsonSpace(text, end)) {
      const counts = emptyCounts();
      mergeRead(counts, f.usage);
      const model = answerModel !== undefined ? jsonBytes(answerModel) : f.model !== '' ? f.model : jsonBytes(upstreamModel);
      return Buffer.from(head(f.id !== '' ? f.id : '"msg"', now, model) +
        `${f.text === null ? 'null' : `"${f.text}"`}${tail(f.stopReason, counts)}`, 'latin1');
    }
  }
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
  const counts = emptyCounts();
  mergeUsage(counts, msg.usage);
  // Written around its values (the bytes JSON.stringify writes for the answer's object, in this
  // order): a walk of the object cost ~10,000 instructions more (callgrind, issue 17).
  const id = typeof msg.id === 'string' ? msg.id : 'msg';
  const model = answerModel ?? (typeof msg.model === 'string' ? msg.model : upstreamModel);
  const calls = toolCalls.length > 0 ? `,"tool_calls":${writeJson(toolCalls)}` : '';
  return Buffer.from(head(jsonString(id), now, jsonString(model)) + (text === null ? 'null' : jsonString(text)) + calls +
    tail(msg.stop_reason, counts));
}

/** The answer up to its content's value; `id` and `model` are JSON. */
function head(id: string, now: number, model: string): string {
  return `{"id":${id},"object":"chat.completion","created":${Math.floor(now / 1000)},"model":${model},` +
    '"choices":[{"index":0,"message":{"role":"assistant","content":';
}

/** The answer after its content (and tool calls). */
function tail(stopReason: unknown, counts: UsageCounts): string {
  return `},"logprobs":null,"finish_reason":${writeJson(finishReason(stopReason))}}],"usage":${canonicalUsageJson(counts)}}`;
}

/** Whether text from `at` is only JSON whitespace, as JSON.parse allows after the value. */
function onlyJsonSpace(text: string, at: number): boolean {
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return false;
  }
  return true;
}
