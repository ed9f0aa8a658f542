import { guardToolCalls } from '../guardrails/content-guard.js';
import type { Guard } from '../guardrails/guard.js';

/**
 * A whole chat answer checked by the request's guardrail: each choice's message content and
 * tool calls' arguments redacted (re-serialised only when something was), or refused (the guard throws 400
 * guardrail_blocked). An answer that is not a chat completion (embeddings' vectors) has no text
 * to check and goes as it came.
 */
export function guardedAnswer(answer: Buffer, guard: Guard): Buffer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.toString('utf8'));
  } catch {
    return answer;
  }
  const choices = (parsed as { choices?: unknown }).choices;
  if (!Array.isArray(choices)) return answer;
  let changed = false;
  for (const c of choices) {
    const message = (c as { message?: { content?: unknown; tool_calls?: unknown } } | null)?.message;
    if (message == null) continue;
    if (Array.isArray(message.tool_calls) && guardToolCalls(message.tool_calls, guard, 'answer')) changed = true;
    if (typeof message.content !== 'string') continue;
    const text = guard.text(message.content, 'answer');
    if (text !== message.content) {
      message.content = text;
      changed = true;
    }
  }
  return changed ? Buffer.from(JSON.stringify(parsed)) : answer;
}
