// The request translator: OpenAI chat payload → Anthropic Messages body (golden fixtures).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import { anthropicAdapter } from '../../src/providers/anthropic/adapter.js';
import { DEFAULT_MAX_TOKENS, toMessagesRequest } from '../../src/providers/anthropic/request.js';
import { fixtureJson } from './anthropic-fixtures.js';

const chat = (extra: Record<string, unknown> = {}) => ({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }], ...extra });

function refused(payload: Record<string, unknown>): string {
  try {
    toMessagesRequest(payload, 'claude-sonnet-4-5-20250929');
  } catch (e) {
    assert.ok(isGatewayError(e), `a GatewayError, not ${String(e)}`);
    assert.equal([(e as any).status, (e as any).code], [400, 'bad_request']);
    return (e as Error).message;
  }
  throw new Error('the payload was accepted');
}

test('system and developer messages are lifted into system, consecutive user turns merged, images and cache_control mapped', () => {
  const out = toMessagesRequest(fixtureJson('request-basic.chat.json'), 'claude-sonnet-4-5-20250929');
  assert.equal(out, fixtureJson('request-basic.messages.json'));
});

test('tool calls become tool_use blocks, tool messages tool_result blocks in one user turn, tools and tool_choice mapped', () => {
  const out = toMessagesRequest(fixtureJson('request-tools.chat.json'), 'claude-haiku-4-5-20251001');
  assert.equal(out, fixtureJson('request-tools.messages.json'));
});

test('max_tokens is always set: max_completion_tokens first, then max_tokens, else the default', () => {
  assert.is(toMessagesRequest(chat({ max_completion_tokens: 10, max_tokens: 20 }), 'm').max_tokens, 10);
  assert.is(toMessagesRequest(chat({ max_tokens: 20 }), 'm').max_tokens, 20);
  assert.is(toMessagesRequest(chat({ max_tokens: null }), 'm').max_tokens, DEFAULT_MAX_TOKENS);
  assert.is(DEFAULT_MAX_TOKENS, 4096);
});

test('tool_choice: auto, none, and a named function; no tools means no tool_choice', () => {
  const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }];
  assert.equal(toMessagesRequest(chat({ tools, tool_choice: 'auto' }), 'm').tool_choice, { type: 'auto' });
  assert.equal(toMessagesRequest(chat({ tools, tool_choice: 'none' }), 'm').tool_choice, { type: 'none' });
  assert.equal(toMessagesRequest(chat({ tools, tool_choice: { type: 'function', function: { name: 'f' } } }), 'm').tool_choice, { type: 'tool', name: 'f' });
  assert.equal(toMessagesRequest(chat({ tools, parallel_tool_calls: false }), 'm').tool_choice, { type: 'auto', disable_parallel_tool_use: true });
  assert.is(toMessagesRequest(chat({ tools }), 'm').tool_choice, undefined);
  const none = toMessagesRequest(chat({ tool_choice: 'auto' }), 'm');
  assert.equal([none.tools, none.tool_choice], [undefined, undefined]);
});

test('stop as an array passes as stop_sequences; an empty list is left out', () => {
  assert.equal(toMessagesRequest(chat({ stop: ['a', 'b'] }), 'm').stop_sequences, ['a', 'b']);
  assert.is(toMessagesRequest(chat({ stop: [] }), 'm').stop_sequences, undefined);
});

test('what Anthropic cannot take is refused with 400 bad_request naming the field', () => {
  assert.match(refused(chat({ n: 2 })), "'n'");
  assert.match(refused(chat({ messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }] }] })),
    "'messages[0].content[0].type'");
  assert.match(refused(chat({ messages: [{ role: 'function', name: 'f', content: 'x' }] })), "'messages[0].role'");
  assert.match(refused(chat({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png,abc' } }] }] })), 'base64');
  const badArgs = { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{oops' } }] };
  assert.match(refused(chat({ messages: [{ role: 'user', content: 'x' }, badArgs] })), "'messages[1].tool_calls[0].function.arguments'");
  assert.match(refused(chat({ tools: [{ type: 'web_search' }] })), "'tools[0]'");
  assert.match(refused(chat({ tools: [{ type: 'function', function: { name: 'f' } }], tool_choice: 'sometimes' })), "'tool_choice'");
  assert.match(refused(chat({ messages: [{ role: 'tool', content: 'x' }] })), "'messages[0].tool_call_id'");
});

test('the adapter posts to /messages with x-api-key and anthropic-version, and serves chat only', () => {
  const call = anthropicAdapter.buildCall('chat', chat({ stream: true }), 'claude-sonnet-4-5-20250929', { streamOptions: false });
  assert.is(call.path, '/messages');
  const body = JSON.parse(call.body as string);
  assert.equal([body.model, body.stream, body.max_tokens], ['claude-sonnet-4-5-20250929', true, 4096], 'the raw client bytes are never sent');
  assert.equal(anthropicAdapter.authHeaders('sk-ant-test'), { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' });
  assert.equal([...anthropicAdapter.endpoints], ['chat']);
});

test.run();
