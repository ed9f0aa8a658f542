// Anthropic's usage convention → the gateway's canonical one, with real numbers. Anthropic's
// input_tokens leaves out cache reads and writes; OpenAI's prompt_tokens includes them. Counting
// them once, here, is what keeps billing from dropping or doubling the cached part.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scanUsage } from '../../src/lib/usage-scan.js';
import { toChatCompletion } from '../../src/providers/anthropic/answer.js';
import { AnthropicStreamTranslator } from '../../src/providers/anthropic/stream.js';
import { anthropicAdapter } from '../../src/providers/anthropic/adapter.js';
import { canonicalUsage, canonicalUsageJson, emptyCounts, mergeUsage } from '../../src/providers/anthropic/usage.js';
import { FIXED_NOW, fixtureBytes, sseData } from './anthropic-fixtures.js';

test('100,000 tokens read from the cache, 248 written, 50 not cached: prompt_tokens 100,298 with the cached parts named', () => {
  const c = emptyCounts();
  mergeUsage(c, { input_tokens: 50, cache_creation_input_tokens: 248, cache_read_input_tokens: 100_000, output_tokens: 503 });
  assert.equal(canonicalUsage(c), {
    prompt_tokens: 100_298, completion_tokens: 503, total_tokens: 100_801,
    prompt_tokens_details: { cached_tokens: 100_000, cache_write_tokens: 248 },
  });
});

test('a request with no cache fields (older models, Batches) counts input_tokens alone', () => {
  const c = emptyCounts();
  mergeUsage(c, { input_tokens: 25, output_tokens: 15 });
  assert.equal(canonicalUsage(c).prompt_tokens, 25);
  mergeUsage(c, { input_tokens: 25, cache_read_input_tokens: null, output_tokens: 16 });
  assert.equal([canonicalUsage(c).prompt_tokens, canonicalUsage(c).completion_tokens], [25, 16], 'null counts change nothing');
});

test('in a stream, message_delta\'s output_tokens is the running total, not an increment', () => {
  const c = emptyCounts();
  mergeUsage(c, { input_tokens: 12, cache_creation_input_tokens: 1500, cache_read_input_tokens: 0, output_tokens: 1 });
  mergeUsage(c, { output_tokens: 60 });
  mergeUsage(c, { output_tokens: 120 });
  assert.equal([canonicalUsage(c).prompt_tokens, canonicalUsage(c).completion_tokens], [1512, 120]);
});

test('the gateway\'s usage scan reads the translated answer\'s and stream\'s counts, cache included', () => {
  const answer = Buffer.from(toChatCompletion(fixtureBytes('answer-cached.message.json'), 'm', FIXED_NOW));
  assert.equal(scanUsage(answer), { promptTokens: 100_298, completionTokens: 503, cachedTokens: 100_000, cacheWriteTokens: 248, reasoningTokens: 0 });
  const t = new AnthropicStreamTranslator('m', FIXED_NOW);
  const out = t.push(fixtureBytes('stream-tool.sse')).toString() + t.end().toString();
  const usageChunk = sseData(out).find((d: any) => d !== '[DONE]' && d.usage !== undefined) as any;
  assert.equal(scanUsage(Buffer.from(JSON.stringify(usageChunk))), { promptTokens: 849 + 2048, completionTokens: 47, cachedTokens: 2048,
    cacheWriteTokens: 0, reasoningTokens: 0 });
});

test('the usage written as text is JSON.stringify of the usage object', () => {
  for (const counts of [emptyCounts(), { input: 21, output: 9, cacheRead: 1800, cacheWrite: 200 }, { input: 1e9, output: 0, cacheRead: 0, cacheWrite: 7 }]) {
    assert.is(canonicalUsageJson(counts), JSON.stringify(canonicalUsage(counts)));
  }
});

test('the counts a translated answer hands the data plane are those its usage scan reads from the answer, whatever the usage held', () => {
  const odd = [undefined, null, -1, 1.5, 2 ** 53, 1e21, '7', Number.NaN, 0, 3, 4096, 2 ** 31];
  let seed = 17;
  const pick = <T>(xs: T[]): T => xs[(seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % xs.length];
  for (let i = 0; i < 2_000; i++) {
    const usage = i % 7 === 0 ? pick([undefined, null, 'none', []]) : {
      input_tokens: pick(odd), output_tokens: pick(odd), cache_read_input_tokens: pick(odd), cache_creation_input_tokens: pick(odd),
    };
    const msg = { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [{ type: 'text', text: `"usage": {"prompt_tokens": ${i}}` }],
      stop_reason: 'end_turn', usage };
    const out = anthropicAdapter.readAnswer!('chat', Buffer.from(JSON.stringify(msg)), 'application/json', '');
    assert.equal(out.usage, scanUsage(Buffer.from(out.body)), JSON.stringify(usage));
  }
});

test.run();
