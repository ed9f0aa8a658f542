import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { estimatePromptTokens, tokensForBytes } from '../../src/billing/token-estimate.js';

test('four UTF-8 bytes a token, rounded up: Devanagari counts by its bytes, not its characters', () => {
  assert.is(tokensForBytes(0), 0);
  assert.is(tokensForBytes(1), 1);
  assert.is(tokensForBytes(8), 2);
  assert.is(tokensForBytes(Buffer.byteLength('नमस्ते')), 5, '6 characters, 18 bytes');
});

test('a chat prompt: text of every message, names and tool calls, 3 tokens a message, 3 to prime the reply', () => {
  const payload = {
    model: 'm',
    messages: [
      { role: 'system', content: 'Be brief.' }, // 9 bytes → 3
      { role: 'user', name: 'asha', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'data:…' } }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'look', arguments: '{"q":"x"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'found' },
    ],
  };
  // 3 + (3+3) + (3+1+4+85) + (3+1+3) + (3+2)
  assert.is(estimatePromptTokens('chat', payload), 114);
  const tools = [{ type: 'function', function: { name: 'look', parameters: { type: 'object' } } }];
  assert.is(estimatePromptTokens('chat', { ...payload, tools }), 114 + tokensForBytes(JSON.stringify(tools).length));
});

test('embedding inputs: text by its bytes, token ids exactly', () => {
  assert.is(estimatePromptTokens('embeddings', { input: 'hello world!' }), 3);
  assert.is(estimatePromptTokens('embeddings', { input: ['hello', 'world!'] }), 4);
  assert.is(estimatePromptTokens('embeddings', { input: [1, 2, 3] }), 3);
  assert.is(estimatePromptTokens('embeddings', { input: [[1, 2], [3, 4, 5]] }), 5);
});

test.run();
