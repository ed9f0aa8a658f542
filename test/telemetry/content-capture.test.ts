import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inputContent, outputContent } from '../../src/telemetry/content-capture.js';
import { parseTraceparent } from '../../src/telemetry/trace-context.js';

const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));
const parsed = (attrs: Record<string, string | null>, name: string): unknown => (attrs[name] == null ? null : JSON.parse(attrs[name]!));

test('a chat request\'s tool call and tool result become tool_call and tool_call_response parts, its system message the instructions', () => {
  const a = inputContent('chat', json({ model: 'm', messages: [
    { role: 'system', content: 'sys' },
    { role: 'user', content: [{ type: 'text', text: 'weather?' }, { type: 'image_url', image_url: { url: 'data:…' } }] },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'wx', arguments: '{"city":"Pune"}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: '31 C' },
  ] }));
  assert.equal(parsed(a, 'gen_ai.system_instructions'), [{ type: 'text', content: 'sys' }]);
  assert.equal(parsed(a, 'gen_ai.input.messages'), [
    { role: 'user', parts: [{ type: 'text', content: 'weather?' }, { type: 'image_url' }] },
    { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'wx', arguments: '{"city":"Pune"}' }] },
    { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: '31 C' }] },
  ]);
});

test('a Responses request reads its instructions and input items; its streamed answer is taken from response.completed', () => {
  const a = inputContent('responses', json({ model: 'm', instructions: 'be kind', input: [
    { role: 'user', content: [{ type: 'input_text', text: 'hello' }] },
    { type: 'function_call', call_id: 'f1', name: 'wx', arguments: '{}' },
    { type: 'function_call_output', call_id: 'f1', output: 'sunny' },
  ] }));
  assert.equal(parsed(a, 'gen_ai.system_instructions'), [{ type: 'text', content: 'be kind' }]);
  assert.equal(parsed(a, 'gen_ai.input.messages'), [
    { role: 'user', parts: [{ type: 'text', content: 'hello' }] },
    { role: 'assistant', parts: [{ type: 'tool_call', id: 'f1', name: 'wx', arguments: '{}' }] },
    { role: 'tool', parts: [{ type: 'tool_call_response', id: 'f1', response: 'sunny' }] },
  ]);
  const sse = 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"Hi"}\n\n'
    + 'event: response.completed\ndata: {"type":"response.completed","response":{"output":[{"type":"message","content":[{"type":"output_text","text":"Hi there"}]}]}}\n\n';
  assert.equal(parsed(outputContent('responses', 'text/event-stream', Buffer.from(sse)), 'gen_ai.output.messages'),
    [{ role: 'assistant', parts: [{ type: 'text', content: 'Hi there' }] }]);
});

test('an Anthropic stream is joined from its text deltas with its stop reason; a body that is not JSON gives nothing', () => {
  const sse = ['{"type":"message_start","message":{}}', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Nam"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"aste"}}', '{"type":"message_delta","delta":{"stop_reason":"end_turn"}}']
    .map((d) => `event: x\ndata: ${d}\n\n`).join('');
  assert.equal(parsed(outputContent('messages', 'text/event-stream', Buffer.from(sse)), 'gen_ai.output.messages'),
    [{ role: 'assistant', parts: [{ type: 'text', content: 'Namaste' }], finish_reason: 'end_turn' }]);
  assert.equal(inputContent('chat', Buffer.from('{not json')), {});
  assert.equal(outputContent('chat', 'application/json', Buffer.from('')), { 'gen_ai.output.messages': null });
});

test('traceparent: version 00 with a non-zero trace and span is continued; anything else starts a new trace', () => {
  assert.equal(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'),
    { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentId: '00f067aa0ba902b7' });
  for (const bad of [undefined, '', 'garbage', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`, `00-4bf92f3577b34da6a3ce929d0e0e4736-${'0'.repeat(16)}-01`]) {
    assert.is(parseTraceparent(bad), null, String(bad));
  }
});

test.run();
