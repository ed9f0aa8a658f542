import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chatToMessage, messagesUsage, stopReason } from '../../src/formats/messages/answer.js';
import { fixture } from './messages-fixture.js';

for (const name of ['answer-text', 'answer-tool', 'answer-cache-usage', 'answer-stop-sequence']) {
  test(`the golden chat answer of ${name} becomes its Anthropic message`, () => {
    const f = fixture(name);
    const out = chatToMessage(f.chat, f.model, f.stops) as Record<string, unknown>;
    assert.match(out.id as string, /^msg_/);
    if (f.message.id === undefined) delete out.id;
    assert.equal(out, f.message);
  });
}

test('usage: input_tokens is prompt_tokens less the cached reads and the cache writes, never below zero', () => {
  assert.equal(messagesUsage({ prompt_tokens: 1000, completion_tokens: 10, prompt_tokens_details: { cached_tokens: 900, cache_write_tokens: 60 } }),
    { input_tokens: 40, output_tokens: 10, cache_read_input_tokens: 900, cache_creation_input_tokens: 60 });
  assert.equal(messagesUsage({ prompt_tokens: 5, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 9 } }).input_tokens, 0);
  assert.equal(messagesUsage(null), { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
});

test('stop reasons: length → max_tokens, content_filter → refusal, a stop that is not one of ours → end_turn', () => {
  assert.is(stopReason('length', null, []).stop_reason, 'max_tokens');
  assert.is(stopReason('content_filter', null, []).stop_reason, 'refusal');
  assert.equal(stopReason('stop', 'xyz', ['###']), { stop_reason: 'end_turn', stop_sequence: null });
  assert.equal(stopReason('stop', 128009, ['###']), { stop_reason: 'end_turn', stop_sequence: null });
});

test('a tool call under finish_reason stop is still a tool_use turn, and bad tool JSON is kept, not lost', () => {
  const out = chatToMessage({ choices: [{ finish_reason: 'stop', message: { content: null, tool_calls: [{ id: 'c', function: { name: 'f', arguments: '{oops' } }] } }] }, 'm', []) as any;
  assert.is(out.stop_reason, 'tool_use');
  assert.equal(out.content, [{ type: 'tool_use', id: 'toolu_c', name: 'f', input: { _raw_arguments: '{oops' } }]);
});

test('a refusal with no content becomes the text of the answer', () => {
  const out = chatToMessage({ choices: [{ finish_reason: 'content_filter', message: { content: null, refusal: 'I cannot help with that.' } }] }, 'm', []) as any;
  assert.equal(out.content, [{ type: 'text', text: 'I cannot help with that.' }]);
  assert.is(out.stop_reason, 'refusal');
});

test.run();
