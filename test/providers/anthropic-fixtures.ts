// Reading test/fixtures/anthropic/ (the golden files of the Anthropic translators).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { finishReason } from '../../src/providers/anthropic/stop-reason.js';
import { canonicalUsage, emptyCounts, mergeUsage } from '../../src/providers/anthropic/usage.js';

const DIR = fileURLToPath(new URL('../../../test/fixtures/anthropic/', import.meta.url));

/** The `created` the golden answers and chunks carry: the translators take the clock as an argument. */
export const FIXED_NOW = 1_764_000_000_000;

export function fixtureBytes(name: string): Buffer {
  return readFileSync(DIR + name);
}

export function fixtureJson(name: string): any {
  return JSON.parse(readFileSync(DIR + name, 'utf8'));
}

/** A `.chunks.jsonl` file: the `data:` payloads expected, `[DONE]` kept as text. */
export function fixtureChunks(name: string): unknown[] {
  return readFileSync(DIR + name, 'utf8').split('\n').filter((l) => l !== '').map((l) => (l === '[DONE]' ? l : JSON.parse(l)));
}

/** Chat SSE text → its `data:` payloads, parsed (`[DONE]` kept as text); every event must be a `data:` line ending in a blank line. */
export function sseData(text: string): unknown[] {
  if (text === '') return [];
  if (!text.endsWith('\n\n')) throw new Error(`SSE output does not end an event: ${JSON.stringify(text.slice(-40))}`);
  return text.slice(0, -2).split('\n\n').map((ev) => {
    if (!ev.startsWith('data: ')) throw new Error(`not a data line: ${ev}`);
    const d = ev.slice(6);
    return d === '[DONE]' ? d : JSON.parse(d);
  });
}

/** The answer as the translator wrote it before it was written as text: JSON.stringify of this object. */
export function answerAsObject(answer: Buffer, upstreamModel: string, answerModel?: string): string {
  const msg = JSON.parse(answer.toString('utf8'));
  let text: string | null = null;
  const toolCalls: Record<string, unknown>[] = [];
  for (const b of msg.content) {
    if (b?.type === 'text' && typeof b.text === 'string') text = (text ?? '') + b.text;
    else if (b?.type === 'tool_use') toolCalls.push({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } });
  }
  const message: Record<string, unknown> = { role: 'assistant', content: text };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const counts = emptyCounts();
  mergeUsage(counts, msg.usage);
  return JSON.stringify({
    id: typeof msg.id === 'string' ? msg.id : 'msg', object: 'chat.completion', created: Math.floor(FIXED_NOW / 1000),
    model: answerModel ?? (typeof msg.model === 'string' ? msg.model : upstreamModel),
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(msg.stop_reason) }], usage: canonicalUsage(counts),
  });
}
