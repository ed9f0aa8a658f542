import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chatToResponse, responseObject, type ResponseStatus, type ResponseUsage } from '../../src/formats/responses/answer.js';
import { responsesToChat } from '../../src/formats/responses/request.js';
import { outputJson, ResponseJson } from '../../src/formats/responses/response-json.js';

// The response written around pieces made once (response-json.ts) against JSON.stringify of the
// object answer.ts builds: the same bytes, whatever the request echoes and the answer holds.

const REQUESTS: Record<string, unknown>[] = [
  { model: 'm', input: 'x' },
  { model: 'm', input: 'x', instructions: 'Sé "breve".\nनमस्ते 😀', max_output_tokens: 50, temperature: 0.5, top_p: 1, user: 'u-1', store: false,
    metadata: { k: 'v', 'ключ': 'значение' }, parallel_tool_calls: false, previous_response_id: 'resp_prev', reasoning: { effort: 'low', summary: 'auto' },
    text: { format: { type: 'json_schema', name: 's', schema: { type: 'object', properties: { a: { type: 'string', enum: ['x', 'y'] } } }, strict: true } },
    tools: [{ type: 'function', name: 'f', description: 'does "f"', parameters: { type: 'object' } }, { type: 'web_search' }], tool_choice: 'required' },
  { model: 'catalog/model-ü', input: 'x', instructions: '', reasoning: null, temperature: null, tool_choice: { type: 'function', name: 'f' },
    tools: [{ type: 'function', name: 'f' }] },
  // The defaults written as constants, given explicitly.
  { model: 'm', input: 'x', tool_choice: 'auto', metadata: {}, text: { format: { type: 'text' } } },
];

const CHATS: Record<string, unknown>[] = [
  { choices: [{ message: { role: 'assistant', content: 'Hello "there"\n😀 नमस्ते' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 } },
  { choices: [{ message: { role: 'assistant', content: null, reasoning_content: 'think \\ hard', tool_calls: [{ id: 'call_1', function: { name: 'f', arguments: '{"a":"x"}' } }, { function: { name: 'g' } }] }, finish_reason: 'tool_calls' }] },
  { choices: [{ message: { role: 'assistant', content: 'cut', refusal: 'no' }, finish_reason: 'length' }], usage: { prompt_tokens: 1, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 1 }, completion_tokens_details: { reasoning_tokens: 1 } } },
  { choices: [{ message: { role: 'assistant', content: '', refusal: '' }, finish_reason: 'content_filter' }] },
  { choices: [] },
];

const ids = (s: string) => s.replace(/"(msg|fc|rs|call)_[0-9a-f]{48}"/g, '"$1_ID"');

test('a whole answer: the same bytes as JSON.stringify of the response object', () => {
  for (const p of REQUESTS) {
    const { echo } = responsesToChat(structuredClone(p), []);
    const ctx = { id: 'resp_1', createdAt: 1741570283, model: p.model as string, echo };
    for (const chat of CHATS) {
      const r = chatToResponse(ctx, chat);
      const written = Buffer.from(new ResponseJson(ctx).write(r.status as ResponseStatus, outputJson(r.output as Record<string, unknown>[]),
        r.usage as ResponseUsage | null, r.incomplete_details as { reason: string } | null), 'latin1').toString('utf8');
      assert.is(ids(written), ids(JSON.stringify(r)));
    }
  }
});

test('a failed response with an error, and one in progress with no output', () => {
  const { echo } = responsesToChat(structuredClone(REQUESTS[1]), []);
  const ctx = { id: 'resp_1', createdAt: 1, model: 'm', echo };
  const json = new ResponseJson(ctx);
  const error = { code: 'server_error', message: 'The "provider" went away' };
  assert.is(Buffer.from(json.write('failed', '[]', null, null, error), 'latin1').toString('utf8'),
    JSON.stringify(responseObject(ctx, 'failed', [], null, null, error)));
  assert.is(Buffer.from(json.write('in_progress', '[]', null), 'latin1').toString('utf8'), JSON.stringify(responseObject(ctx, 'in_progress', [], null)));
});

test.run();
