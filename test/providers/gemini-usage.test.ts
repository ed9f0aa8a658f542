import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chatUsage } from '../../src/providers/gemini/usage.js';

test('promptTokenCount already includes cachedContentTokenCount: prompt_tokens is it as it is, cached_tokens the cached part', () => {
  // gemini-2.5-flash on a long system prompt with an implicit cache hit (numbers from a real answer's shape).
  const u = chatUsage({ promptTokenCount: 2310, cachedContentTokenCount: 2048, candidatesTokenCount: 87, thoughtsTokenCount: 156, totalTokenCount: 2553 });
  assert.equal(u, {
    prompt_tokens: 2310, completion_tokens: 243, total_tokens: 2553,
    prompt_tokens_details: { cached_tokens: 2048 }, completion_tokens_details: { reasoning_tokens: 156 },
  });
  assert.is(u.total_tokens, 2553, 'agrees with Gemini\'s totalTokenCount');
});

test('thinking is output: completion_tokens = candidatesTokenCount + thoughtsTokenCount, reasoning_tokens the thoughts', () => {
  const u = chatUsage({ promptTokenCount: 12, candidatesTokenCount: 87, thoughtsTokenCount: 156 });
  assert.equal([u.completion_tokens, u.completion_tokens_details.reasoning_tokens], [243, 156]);
});

test('tool-use prompt tokens are input; absent counts are zero (a blocked prompt reports only promptTokenCount)', () => {
  assert.equal(chatUsage({ promptTokenCount: 100, toolUsePromptTokenCount: 40, candidatesTokenCount: 5, totalTokenCount: 145 }).prompt_tokens, 140);
  assert.equal(chatUsage({ promptTokenCount: 8 }), {
    prompt_tokens: 8, completion_tokens: 0, total_tokens: 8, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 },
  });
});

test.run();
