import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { messagesToChat } from '../../src/formats/messages/request.js';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import { fixture } from './messages-fixture.js';

const body = (o: unknown) => Buffer.from(JSON.stringify(o));
const base = { model: 'sandbox/echo', max_tokens: 10 };

function refusal(o: unknown): { status: number; code: string; message: string } {
  try {
    messagesToChat(body(o));
  } catch (e) {
    assert.ok(isGatewayError(e), String(e));
    return e;
  }
  throw new Error('expected a refusal');
}

test('every translated field of a Messages request becomes the golden chat body, extensions read and removed', () => {
  const f = fixture('request-full');
  const raw = body(f.messages);
  const out = messagesToChat(raw);
  assert.equal(out.payload, f.chat);
  assert.equal(out.ext, f.ext);
  assert.is(out.model, f.messages.model);
  assert.is(out.stream, true);
  assert.is(out.maxTokens, 1024);
  assert.is(out.bytes, raw.length);
  assert.is(out.raw, null, 'a translated body is never forwarded as sent');
});

test('a string system prompt and string contents pass as strings; a plain request asks for no stream options', () => {
  const out = messagesToChat(body({ ...base, system: 'Be brief.', messages: [{ role: 'user', content: 'hi' }] }));
  assert.equal(out.payload, { model: 'sandbox/echo', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }], max_tokens: 10 });
  assert.is(out.stream, false);
});

test("Claude Code's mid-conversation system message becomes a chat system message in place", () => {
  const out = messagesToChat(body({ ...base, messages: [{ role: 'user', content: 'a' }, { role: 'system', content: [{ type: 'text', text: 'note' }] }, { role: 'user', content: 'b' }] }));
  assert.equal((out.payload.messages as unknown[])[1], { role: 'system', content: 'note' });
});

test('tool_choice auto, none and a named tool map to chat; without tools it is dropped', () => {
  const tools = [{ name: 't', input_schema: { type: 'object' } }];
  const m = [{ role: 'user', content: 'x' }];
  assert.is(messagesToChat(body({ ...base, messages: m, tools, tool_choice: { type: 'auto' } })).payload.tool_choice, 'auto');
  assert.is(messagesToChat(body({ ...base, messages: m, tools, tool_choice: { type: 'none' } })).payload.tool_choice, 'none');
  assert.equal(messagesToChat(body({ ...base, messages: m, tools, tool_choice: { type: 'tool', name: 't' } })).payload.tool_choice,
    { type: 'function', function: { name: 't' } });
  assert.not.ok('tool_choice' in messagesToChat(body({ ...base, messages: m, tool_choice: { type: 'auto' } })).payload);
});

test('an assistant turn of tool calls alone has null content', () => {
  const out = messagesToChat(body({ ...base, messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } }] }] }));
  assert.equal((out.payload.messages as any[])[1], { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] });
});

test('an image in a tool result follows the tool message as a user message', () => {
  const out = messagesToChat(body({ ...base, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [
    { type: 'text', text: 'screenshot:' }, { type: 'image', source: { type: 'url', url: 'https://x/y.png' } }] }] }] }));
  assert.equal(out.payload.messages, [
    { role: 'tool', tool_call_id: 'toolu_1', content: 'screenshot:' },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] },
  ]);
});

test('count_tokens bodies need no max_tokens', () => {
  const out = messagesToChat(body({ model: 'm', messages: [{ role: 'user', content: 'x' }] }), true);
  assert.is(out.maxTokens, null);
  assert.not.ok('max_tokens' in out.payload);
});

test('a missing max_tokens, as Anthropic requires it, is 400 bad_request naming the field', () => {
  const e = refusal({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
  assert.is(e.status, 400);
  assert.is(e.code, 'bad_request');
  assert.match(e.message, "'max_tokens'");
});

test('bad bodies are 400s naming the offending place, never something else', () => {
  const m = (content: unknown) => ({ ...base, messages: [{ role: 'user', content }] });
  assert.match(refusal({ ...base, messages: [] }).message, "'messages'");
  assert.match(refusal({ ...base, messages: [{ role: 'tool', content: 'x' }] }).message, "'messages.0.role'");
  assert.match(refusal(m([{ type: 'document', source: {} }])).message, "'document' at 'messages.0.content.0'");
  assert.match(refusal(m([{ type: 'text' }])).message, "'messages.0.content.0.text'");
  assert.match(refusal(m([{ type: 'image', source: { type: 'file', file_id: 'f' } }])).message, "'messages.0.content.0.source'");
  assert.match(refusal({ ...base, messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'web_search_20250305', name: 'web_search' }] }).message,
    "tool type 'web_search_20250305'");
  assert.match(refusal({ ...base, messages: [{ role: 'user', content: 'x' }], tool_choice: { type: 'maybe' } }).message, 'tool_choice.type');
  assert.match(refusal({ ...base, messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'f', input: [1] }] }] }).message, '.input');
  assert.match(refusal({ ...base, messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'text', text: 'a' }, { type: 'tool_use', name: 'f', input: {} }] }] }).message,
    "'messages.1.content.1.id'");
  assert.match(refusal(m([{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'ok' }, { type: 'text' }] }])).message, "'messages.0.content.0.content.1.text'");
  assert.match(refusal(m([{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'video' }] }])).message, "'video' at 'messages.0.content.0.content.0'");
  assert.match(refusal(m([{ type: 'tool_result', content: 'x' }])).message, "'messages.0.content.0.tool_use_id'");
  assert.match(refusal({ ...base, messages: [{ role: 'user', content: 'x' }], provider: 7 }).message, "'provider'");
  assert.is(refusal([1]).status, 400);
});

test.run();
