import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chatToResponse, responseUsage } from '../../src/formats/responses/answer.js';
import { responsesToChat } from '../../src/formats/responses/request.js';
import { ResponsesFormat } from '../../src/formats/responses/format.js';

// Golden answers: chat.completion bodies as OpenAI documents them → the Responses API `response`
// object's status, output items and usage (test/fixtures/responses/answer-*.json).
const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/responses/', import.meta.url));
const chats = JSON.parse(readFileSync(FIXTURES + 'answer-chat.json', 'utf8')) as Record<string, Record<string, unknown>>;
const expected = JSON.parse(readFileSync(FIXTURES + 'answer-expected.json', 'utf8')) as Record<string, unknown>;
const ids = (v: unknown) => JSON.parse(JSON.stringify(v).replace(/"(msg|fc|rs|call)_[0-9a-f]{48}"/g, '"$1_ID"'));
const { echo } = responsesToChat({ model: 'catalog/model', input: 'x' }, []);
const ctx = { id: 'resp_ID', createdAt: 1741570283, model: 'catalog/model', echo };

for (const name of ['text', 'tool_call', 'length', 'reasoning']) {
  test(`a ${name.replace('_', ' ')} chat answer becomes the golden response`, () => {
    const r = chatToResponse(ctx, chats[name]);
    assert.equal(ids({ status: r.status, incomplete_details: r.incomplete_details, output: r.output, usage: r.usage }), expected[name]);
  });
}

test('the response object names the catalog model, its id, and echoes the request', () => {
  const { echo: e } = responsesToChat({ model: 'catalog/model', input: 'x', instructions: 'Be brief.', metadata: { k: 'v' }, temperature: 0.5, max_output_tokens: 10 }, []);
  const r = chatToResponse({ ...ctx, echo: e }, chats.text);
  assert.is(r.id, 'resp_ID');
  assert.is(r.object, 'response');
  assert.is(r.created_at, 1741570283);
  assert.is(r.model, 'catalog/model', 'the catalog id asked for, not the provider model');
  assert.is(r.instructions, 'Be brief.');
  assert.equal(r.metadata, { k: 'v' });
  assert.is(r.temperature, 0.5);
  assert.is(r.max_output_tokens, 10);
  assert.is(r.error, null);
});

test('usage keeps the canonical convention: cached tokens inside input, reasoning inside output', () => {
  assert.equal(responseUsage({ prompt_tokens: 1117, completion_tokens: 46, total_tokens: 1163, prompt_tokens_details: { cached_tokens: 1024, cache_write_tokens: 50 }, completion_tokens_details: { reasoning_tokens: 12 } }), {
    input_tokens: 1117, input_tokens_details: { cached_tokens: 1024 }, output_tokens: 46, output_tokens_details: { reasoning_tokens: 12 }, total_tokens: 1163,
  });
  assert.equal(responseUsage({ prompt_tokens: 3, completion_tokens: 4 }), {
    input_tokens: 3, input_tokens_details: { cached_tokens: 0 }, output_tokens: 4, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 7,
  });
  assert.is(responseUsage(undefined), null);
});

test('each answer gets its own OpenAI-style item ids', () => {
  const a = chatToResponse(ctx, chats.text).output as { id: string }[];
  const b = chatToResponse(ctx, chats.text).output as { id: string }[];
  assert.match(a[0].id, /^msg_[0-9a-f]{48}$/);
  assert.is.not(a[0].id, b[0].id);
});

test('an answer that is not JSON becomes a failed response, not a throw, and is not stored', () => {
  const f = new ResponsesFormat();
  const stored: unknown[] = [];
  f.begin(ctx, (r) => stored.push(r));
  const r = JSON.parse(f.answer(Buffer.from('<html>bad gateway</html>')).toString());
  assert.is(r.status, 'failed');
  assert.is(r.error.code, 'server_error');
  assert.is(stored.length, 0);
  f.answer(Buffer.from(JSON.stringify(chats.text)));
  assert.is(stored.length, 1, 'a readable answer is handed on to be stored');
});

test.run();
