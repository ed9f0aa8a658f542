import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseInferenceBody } from '../../src/dataplane/inference-body.js';
import { withEstimatedUsage } from '../../src/dataplane/usage-estimate.js';

// 'hi': 3 to prime the reply + 3 for the message + 1 for its text.
const chat = (extra: Record<string, unknown> = {}) =>
  parseInferenceBody('chat', Buffer.from(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...extra })));
const USAGE_7_3 = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 };

test('usage and the marker are spliced in before the closing brace; every other byte stays as the provider sent it', () => {
  const original = '{"id":"c1", "choices":[{"index":0,"message":{"role":"assistant","content":"Twelve bytes"}}]}\n';
  const { usage, answer } = withEstimatedUsage('chat', chat(), Buffer.from(original));
  assert.equal(usage, { promptTokens: 7, completionTokens: 3, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });
  const out = answer.toString();
  assert.ok(out.startsWith(original.slice(0, original.lastIndexOf('}'))), out);
  assert.ok(out.endsWith('}\n'));
  const doc = JSON.parse(out);
  assert.equal(doc.usage, USAGE_7_3);
  assert.equal(doc.x_gw, { usage_estimated: true });
  assert.is(doc.choices[0].message.content, 'Twelve bytes');
});

test('"usage": null is replaced in place; reasoning, refusal and tool-call arguments count as output; escapes as what they stand for', () => {
  const original = JSON.stringify({
    choices: [{ message: { content: null, reasoning_content: 'ab\ncd', refusal: 'no', tool_calls: [{ function: { name: 'f', arguments: '{"content":"x"}' } }] } }],
    usage: null,
  }).replace('"usage":null', '"usage" : null');
  const { usage, answer } = withEstimatedUsage('chat', chat(), Buffer.from(original));
  // 5 + 2 + 15 bytes: the "content" key inside the arguments string is part of that string, not another text.
  assert.equal(usage, { promptTokens: 7, completionTokens: 6, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });
  const doc = JSON.parse(answer.toString());
  assert.equal(doc.usage, { prompt_tokens: 7, completion_tokens: 6, total_tokens: 13 });
  assert.equal(Object.keys(doc), ['choices', 'usage', 'x_gw'], 'one usage key, where the null was');
});

test('an empty object, max_tokens, embeddings, and an answer that is not a JSON object', () => {
  assert.equal(JSON.parse(withEstimatedUsage('chat', chat(), Buffer.from(' {} ')).answer.toString()),
    { usage: { prompt_tokens: 7, completion_tokens: 0, total_tokens: 7 }, x_gw: { usage_estimated: true } });
  const long = Buffer.from(JSON.stringify({ choices: [{ message: { content: 'x'.repeat(400) } }] }));
  assert.is(withEstimatedUsage('chat', chat({ max_tokens: 20 }), long).usage.completionTokens, 20);
  const emb = parseInferenceBody('embeddings', Buffer.from(JSON.stringify({ model: 'e', input: ['hello', 'world!'] })));
  const e = withEstimatedUsage('embeddings', emb, Buffer.from('{"object":"list","data":[{"embedding":[0.5]}]}'));
  assert.equal(JSON.parse(e.answer.toString()).usage, { prompt_tokens: 4, total_tokens: 4 });
  const text = Buffer.from('plain answer');
  const t = withEstimatedUsage('chat', chat(), text);
  assert.is(t.answer, text, 'untouched');
  assert.equal(t.usage, { promptTokens: 7, completionTokens: 3, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });
  assert.is(withEstimatedUsage('chat', chat(), Buffer.from('[1,2]')).answer.toString(), '[1,2]');
});

test.run();
