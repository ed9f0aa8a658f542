import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { clampUsage, PROMPT_ALLOWANCE, type UsageRequest } from '../../src/billing/usage-bounds.js';

const text: UsageRequest = {
  endpoint: 'chat', payload: { messages: [{ role: 'user', content: 'hi' }] }, bytes: 100, maxTokens: null, contextLength: 8_192,
};

test('usage within the bounds is left alone, with nothing allocated', () => {
  assert.is(clampUsage({ promptTokens: 100 + PROMPT_ALLOWANCE, completionTokens: 8_192 }, text), null);
});

test('a text prompt is cut to its bytes plus the allowance, and output to max_tokens', () => {
  assert.equal(clampUsage({ promptTokens: 1e15, completionTokens: 1e15 }, { ...text, maxTokens: 20 }),
    { promptTokens: 100 + PROMPT_ALLOWANCE, completionTokens: 20 });
});

test('counts too long for a double (Infinity) are cut like any other', () => {
  assert.equal(clampUsage({ promptTokens: Infinity, completionTokens: Infinity }, text), { promptTokens: 100 + PROMPT_ALLOWANCE, completionTokens: 8_192 });
});

test('a prompt with an image part is bounded by the context window only', () => {
  const payload = { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/a.png' } }] }] };
  assert.is(clampUsage({ promptTokens: 5_000, completionTokens: 1 }, { ...text, payload }), null);
  assert.equal(clampUsage({ promptTokens: 9_000, completionTokens: 1 }, { ...text, payload }), { promptTokens: 8_192, completionTokens: 1 });
});

test('max_tokens above the context window still stops at the window; embeddings generate nothing', () => {
  assert.equal(clampUsage({ promptTokens: 1, completionTokens: 1e9 }, { ...text, maxTokens: 1e12 }), { promptTokens: 1, completionTokens: 8_192 });
  assert.equal(clampUsage({ promptTokens: 5, completionTokens: 3 }, { ...text, endpoint: 'embeddings', payload: { input: 'x' } }),
    { promptTokens: 5, completionTokens: 0 });
});

test.run();
