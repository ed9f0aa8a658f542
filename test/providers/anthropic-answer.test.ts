// The answer translator: an Anthropic message → an OpenAI chat.completion (golden fixtures).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { toChatCompletion } from '../../src/providers/anthropic/answer.js';
import { anthropicAdapter } from '../../src/providers/anthropic/adapter.js';
import { finishReason } from '../../src/providers/anthropic/stop-reason.js';
import { canonicalUsage, emptyCounts, mergeUsage } from '../../src/providers/anthropic/usage.js';
import { FIXED_NOW, fixtureBytes, fixtureJson } from './anthropic-fixtures.js';

const translate = (name: string) => JSON.parse(toChatCompletion(fixtureBytes(name), 'fallback-model', FIXED_NOW));

test('a text answer: content, finish_reason stop from end_turn, id and model kept, usage canonical', () => {
  assert.equal(translate('answer-text.message.json'), fixtureJson('answer-text.chat.json'));
});

test('a tool call: tool_use becomes a tool call with its input as JSON text; thinking is left out; finish_reason tool_calls', () => {
  assert.equal(translate('answer-tool.message.json'), fixtureJson('answer-tool.chat.json'));
});

test('a cached prompt cut by max_tokens: finish_reason length, cache reads and writes counted in prompt_tokens', () => {
  assert.equal(translate('answer-cached.message.json'), fixtureJson('answer-cached.chat.json'));
});

test('stop reasons map to OpenAI finish reasons', () => {
  const cases: [string, string][] = [['end_turn', 'stop'], ['stop_sequence', 'stop'], ['max_tokens', 'length'], ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'], ['pause_turn', 'stop'], ['something_new', 'stop'], ['toString', 'stop'], ['constructor', 'stop'],
    ['__proto__', 'stop']];
  for (const [reason, finish] of cases) {
    const msg = { ...fixtureJson('answer-text.message.json'), stop_reason: reason };
    assert.is(JSON.parse(toChatCompletion(Buffer.from(JSON.stringify(msg)), 'm', FIXED_NOW)).choices[0].finish_reason, finish, reason);
  }
});

test('an answer of tool calls only has null content, as OpenAI gives it', () => {
  const msg = { ...fixtureJson('answer-tool.message.json') };
  msg.content = msg.content.filter((b: any) => b.type === 'tool_use');
  const out = JSON.parse(toChatCompletion(Buffer.from(JSON.stringify(msg)), 'm', FIXED_NOW));
  assert.is(out.choices[0].message.content, null);
  assert.is(out.choices[0].message.tool_calls.length, 1);
});

test('a body that is not a message throws (the data plane fails the route over)', () => {
  assert.throws(() => toChatCompletion(Buffer.from('<html>bad gateway</html>'), 'm', FIXED_NOW));
  assert.throws(() => toChatCompletion(Buffer.from('{"type":"message"}'), 'm', FIXED_NOW));
});

test('the adapter reads a chat answer as application/json', () => {
  const out = anthropicAdapter.readAnswer!('chat', fixtureBytes('answer-text.message.json'), 'application/json', '');
  assert.is(out.contentType, 'application/json');
  assert.is(JSON.parse(out.body as string).choices[0].message.content, 'Hi! My name is Claude.');
});

/** The answer as the translator wrote it before it was written as text: JSON.stringify of this object. */
function asObject(answer: Buffer, upstreamModel: string, answerModel?: string): string {
  const msg = JSON.parse(answer.toString('utf8'));
  let text: string | null = null;
  const toolCalls: Record<string, unknown>[] = [];
  for (const b of msg.content) {
    if (b?.type === 'text' && typeof b.text === 'string') text = (text ?? '') + b.text;
    else if (b?.type === 'tool_use') toolCalls.push({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } });
  }
  const message: Record<string, unknown> = { role: 'assistant', content: text };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const counts = emptyCounts();
  mergeUsage(counts, msg.usage);
  return JSON.stringify({
    id: typeof msg.id === 'string' ? msg.id : 'msg', object: 'chat.completion', created: Math.floor(FIXED_NOW / 1000),
    model: answerModel ?? (typeof msg.model === 'string' ? msg.model : upstreamModel),
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(msg.stop_reason) }], usage: canonicalUsage(counts),
  });
}

test('the answer is written byte for byte as JSON.stringify wrote its object', () => {
  const odd = { id: 7, model: null, content: [{ type: 'text', text: 'a "quoted"\nनमस्ते 😀' }, { type: 'text', text: '' }, { type: 'tool_use', name: 'f' },
    { type: 'thinking', thinking: 'x' }], stop_reason: 'pause_turn', usage: { input_tokens: 3, output_tokens: null } };
  const noText = { id: 'msg_1', model: 'claude', content: [], stop_reason: null };
  const answers = ['answer-text.message.json', 'answer-tool.message.json', 'answer-cached.message.json'].map(fixtureBytes)
    .concat([Buffer.from(JSON.stringify(odd)), Buffer.from(JSON.stringify(noText))]);
  for (const a of answers) {
    assert.is(toChatCompletion(a, 'fallback-model', FIXED_NOW), asObject(a, 'fallback-model'));
    assert.is(toChatCompletion(a, 'fallback-model', FIXED_NOW, 'asked-for'), asObject(a, 'fallback-model', 'asked-for'));
  }
});

test.run();
