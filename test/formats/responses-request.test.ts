import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { responsesToChat } from '../../src/formats/responses/request.js';
import { isGatewayError } from '../../src/errors/gateway-error.js';

// Golden pairs: Responses API request bodies (OpenAI's published shapes) and the chat-completions
// body each must become (test/fixtures/responses/request-*.json).
const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/responses/', import.meta.url));
const read = (name: string) => JSON.parse(readFileSync(FIXTURES + name, 'utf8'));

for (const c of read('request-cases.json') as { name: string; responses: Record<string, unknown>; chat: unknown }[]) {
  test(`translates ${c.name} into the chat body`, () => {
    assert.equal(responsesToChat(structuredClone(c.responses), []).chat, c.chat);
  });
}

for (const c of read('request-refusals.json') as { name: string; responses: Record<string, unknown>; message: string }[]) {
  test(`refuses ${c.name} with 400 bad_request naming it`, () => {
    try {
      responsesToChat(structuredClone(c.responses), []);
      assert.unreachable('accepted');
    } catch (e) {
      assert.ok(isGatewayError(e), String(e));
      assert.is(e.status, 400);
      assert.is(e.code, 'bad_request');
      assert.ok(e.message.includes(c.message), e.message);
    }
  });
}

test('a stored conversation comes after the instructions and before the new input', () => {
  const history = [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'My name is Asha.' }] },
    { id: 'msg_1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hello Asha.', annotations: [] }] },
  ];
  const { chat, input } = responsesToChat({ model: 'm', instructions: 'Be kind.', input: 'What is my name?' }, history);
  assert.equal(chat.messages, [
    { role: 'system', content: 'Be kind.' },
    { role: 'user', content: 'My name is Asha.' },
    { role: 'assistant', content: 'Hello Asha.' },
    { role: 'user', content: 'What is my name?' },
  ]);
  assert.equal(input, [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is my name?' }] }], 'a string input is kept as the item it stands for');
});

test('the echoed fields default as OpenAI answers them: store true, tool_choice auto, parallel tool calls on', () => {
  const { echo } = responsesToChat({ model: 'm', input: 'x', metadata: { a: 'b' } }, []);
  assert.equal(echo, {
    instructions: null, max_output_tokens: null, temperature: null, top_p: null, tools: [], tool_choice: 'auto',
    text: { format: { type: 'text' } }, metadata: { a: 'b' }, parallel_tool_calls: true, previous_response_id: null, store: true, reasoning: null,
  });
  assert.is(responsesToChat({ model: 'm', input: 'x', store: false }, []).echo.store, false);
});

test('hosted tools alone leave no tools and no tool_choice in the chat body', () => {
  const { chat } = responsesToChat({ model: 'm', input: 'x', tools: [{ type: 'web_search' }, { type: 'namespace', name: 'n', tools: [] }], tool_choice: 'auto' }, []);
  assert.is(chat.tools, undefined);
  assert.is(chat.tool_choice, undefined);
});

test.run();
