import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scanUsage, scanUsageText } from '../../src/lib/usage-scan.js';

const usage = (promptTokens: number, completionTokens: number, cachedTokens = 0, cacheWriteTokens = 0, reasoningTokens = 0) =>
  ({ promptTokens, completionTokens, cachedTokens, cacheWriteTokens, reasoningTokens });

// OpenAI's chat completion answer as it sends it (pretty-printed), its usage block ~450 characters.
const OPENAI_ANSWER = `{
  "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
  "object": "chat.completion",
  "created": 1741570283,
  "model": "gpt-4o-2024-08-06",
  "choices": [
    {
      "index": 0,
      "message": {
        "role": "assistant",
        "content": "The usage block follows.",
        "refusal": null,
        "annotations": []
      },
      "logprobs": null,
      "finish_reason": "stop"
    }
  ],
  "usage": {
    "prompt_tokens": 2000,
    "completion_tokens": 300,
    "total_tokens": 2300,
    "prompt_tokens_details": {
      "cached_tokens": 1500,
      "audio_tokens": 0
    },
    "completion_tokens_details": {
      "reasoning_tokens": 120,
      "audio_tokens": 0,
      "accepted_prediction_tokens": 0,
      "rejected_prediction_tokens": 0
    }
  },
  "service_tier": "default",
  "system_fingerprint": "fp_fc9f1d7035"
}`;

test('OpenAI\'s pretty-printed answer: cached and reasoning parts read from their details objects', () => {
  assert.equal(scanUsage(Buffer.from(OPENAI_ANSWER)), usage(2_000, 300, 1_500, 0, 120));
});

test('the same answer compact, and with details objects in the other order', () => {
  assert.equal(scanUsage(Buffer.from(JSON.stringify(JSON.parse(OPENAI_ANSWER)))), usage(2_000, 300, 1_500, 0, 120));
  const swapped = '{"usage":{"completion_tokens_details":{"reasoning_tokens":7},"prompt_tokens":10,"completion_tokens":9,'
    + '"prompt_tokens_details":{"cached_tokens":4}}}';
  assert.equal(scanUsage(Buffer.from(swapped)), usage(10, 9, 4, 0, 7));
});

test('the canonical cache write (OpenRouter\'s cache_write_tokens), as the Anthropic adapter emits it', () => {
  const text = '"usage":{"prompt_tokens":1600,"completion_tokens":50,"total_tokens":1650,'
    + '"prompt_tokens_details":{"cached_tokens":1000,"cache_write_tokens":500}}';
  assert.equal(scanUsageText(text), usage(1_600, 50, 1_000, 500, 0));
});

test('no details, null details, zeros and whitespace around colons all read as they should', () => {
  assert.equal(scanUsageText('"usage":{"prompt_tokens":5,"completion_tokens":9,"total_tokens":14}'), usage(5, 9));
  assert.equal(scanUsageText('"usage":{"prompt_tokens":5,"completion_tokens":9,"prompt_tokens_details":null,"completion_tokens_details":null}'),
    usage(5, 9));
  assert.equal(scanUsageText('"usage" : { "prompt_tokens" :\n 5 , "completion_tokens"\t: 9, "prompt_tokens_details" : { "cached_tokens" : 3 },'
    + ' "completion_tokens_details" :\r\n{ "reasoning_tokens":\t2 } }'), usage(5, 9, 3, 0, 2));
  assert.equal(scanUsageText('"usage":{"prompt_tokens":5,"completion_tokens":9,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0}}'),
    usage(5, 9));
});

test('only whole keys count: a longer name ending in one of them is passed over', () => {
  const text = '"usage":{"xprompt_tokens":1,"prompt_tokens":5,"completion_tokens":9,"prompt_tokens_details":{"precached_tokens":7,'
    + '"cached_tokens":3},"completion_tokens_details":{"output_reasoning_tokens":8}}';
  assert.equal(scanUsageText(text), usage(5, 9, 3, 0, 0));
});

test('embeddings usage (no completion) still reads; a null usage is none', () => {
  assert.equal(scanUsage(Buffer.from('{"data":[],"usage":{"prompt_tokens":7,"total_tokens":7}}')), usage(7, 0));
  assert.is(scanUsage(Buffer.from('{"usage":null}')), null);
});

test('usage anywhere in a long answer is found, the last one winning, whether in the tail read first or before it', () => {
  const block = (n: number) => `"usage":{"prompt_tokens":${n},"completion_tokens":${n + 1},"total_tokens":${2 * n + 1}}`;
  const filler = 'x'.repeat(5_000);
  assert.equal(scanUsage(Buffer.from(`{${block(3)},"content":"${filler}"}`)), usage(3, 4), 'usage first, 5 KB before the end');
  assert.equal(scanUsage(Buffer.from(`{${block(3)},"content":"${filler}",${block(5)}}`)), usage(5, 6), 'the last one');
  // A key cut by the start of the tail read first (the last 2,048 bytes): found by the search over the whole answer.
  for (let d = 1; d <= 6; d++) {
    const b = block(9);
    const text = `{"c":"${'p'.repeat(100)}",${b},"d":"${'q'.repeat(2048 + d - (b.length + 6 + 2))}"}`;
    assert.is(text.length - text.indexOf('"usage"'), 2048 + d);
    assert.equal(scanUsage(Buffer.from(text)), usage(9, 10), `key ${d} bytes before the tail`);
  }
  assert.is(scanUsage(Buffer.from(`{"content":"${filler}"}`)), null);
});

test.run();
