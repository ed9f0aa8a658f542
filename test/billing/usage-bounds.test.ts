import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TokenUsage } from '../../src/lib/usage-scan.js';
import { clampUsage, PROMPT_ALLOWANCE, type UsageRequest } from '../../src/billing/usage-bounds.js';

/** Canonical usage: cached and cache-write parts of the prompt, reasoning a part of the completion. */
const u = (promptTokens: number, completionTokens: number, cachedTokens = 0, cacheWriteTokens = 0, reasoningTokens = 0): TokenUsage =>
  ({ promptTokens, completionTokens, cachedTokens, cacheWriteTokens, reasoningTokens });

const text: UsageRequest = {
  endpoint: 'chat', request: { payload: { messages: [{ role: 'user', content: 'hi' }] } }, bytes: 100, maxTokens: null, contextLength: 8_192,
};

test('usage within the bounds is left alone, with nothing allocated', () => {
  assert.is(clampUsage(u(100 + PROMPT_ALLOWANCE, 8_192), text), null);
});

test('a text prompt is cut to its bytes plus the allowance, and output to max_tokens', () => {
  assert.equal(clampUsage(u(1e15, 1e15), { ...text, maxTokens: 20 }),
    u(100 + PROMPT_ALLOWANCE, 20));
});

test('counts too long for a double (Infinity) are cut like any other', () => {
  assert.equal(clampUsage(u(Infinity, Infinity), text), u(100 + PROMPT_ALLOWANCE, 8_192));
});

test('a prompt with an image part is bounded by the context window only', () => {
  const payload = { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/a.png' } }] }] };
  assert.is(clampUsage(u(5_000, 1), { ...text, request: { payload } }), null);
  assert.equal(clampUsage(u(9_000, 1), { ...text, request: { payload } }), u(8_192, 1));
});

test('max_tokens above the context window still stops at the window; embeddings generate nothing', () => {
  assert.equal(clampUsage(u(1, 1e9), { ...text, maxTokens: 1e12 }), u(1, 8_192));
  assert.equal(clampUsage(u(5, 3), { ...text, endpoint: 'embeddings', request: { payload: { input: 'x' } } }),
    u(5, 0));
});

test('cache and reasoning parts within their totals are left alone', () => {
  assert.is(clampUsage(u(1_000, 300, 600, 400, 300), text), null);
});

test('cached reads plus cache writes beyond the prompt are cut to it, reads kept first; the usage is marked clamped', () => {
  assert.equal(clampUsage(u(1_000, 10, 1_200, 500), text), u(1_000, 10, 1_000, 0));
  assert.equal(clampUsage(u(1_000, 10, 700, 500), text), u(1_000, 10, 700, 300));
});

test('reasoning beyond the completion is cut to it', () => {
  assert.equal(clampUsage(u(10, 300, 0, 0, 301), text), u(10, 300, 0, 0, 300));
});

test('a prompt cut to its bounds takes its cached part down with it', () => {
  assert.equal(clampUsage(u(1e6, 1, 900_000), text), u(100 + PROMPT_ALLOWANCE, 1, 100 + PROMPT_ALLOWANCE));
});

test.run();
