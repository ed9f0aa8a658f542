/**
 * Anthropic's stop_reason → OpenAI's finish_reason. `pause_turn` (a server tool paused a long
 * turn) ends this answer as a normal stop; an unknown or absent reason too.
 */
const FINISH = new Map<string, string>([
  ['end_turn', 'stop'],
  ['stop_sequence', 'stop'],
  ['pause_turn', 'stop'],
  ['max_tokens', 'length'],
  ['model_context_window_exceeded', 'length'],
  ['tool_use', 'tool_calls'],
  ['refusal', 'content_filter'],
]);

export function finishReason(stopReason: unknown): string {
  // A Map, not an object's members: a reason named like one of Object.prototype's ("toString")
  // gave that function, which the answer then wrote as no JSON at all.
  return (typeof stopReason === 'string' ? FINISH.get(stopReason) : undefined) ?? 'stop';
}
