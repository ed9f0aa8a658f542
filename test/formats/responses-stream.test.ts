import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ResponsesStream } from '../../src/formats/responses/stream.js';
import { responsesToChat } from '../../src/formats/responses/request.js';

// Golden streams: chat-completion SSE as OpenAI documents it (and the data plane's error ending)
// → the Responses API's typed events (test/fixtures/responses/stream-*).
const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/responses/', import.meta.url));
const { echo } = responsesToChat({ model: 'catalog/model', input: 'x' }, []);
const ctx = { id: 'resp_ID', createdAt: 1, model: 'catalog/model', echo };

interface Event { type: string; sequence_number: number; response?: Record<string, unknown>; [k: string]: unknown }

function events(sse: string): Event[] {
  return sse.split('\n\n').filter(Boolean).map((block) => {
    const [name, data] = block.split('\n');
    assert.ok(name.startsWith('event: ') && data.startsWith('data: '), block);
    const e = JSON.parse(data.slice(6).replace(/"(msg|fc|rs|call)_[0-9a-f]{48}"/g, '"$1_ID"')) as Event;
    assert.is(name.slice(7), e.type, 'the SSE event name is the event type');
    if (e.response) {
      const r = e.response;
      e.response = { status: r.status, error: r.error, incomplete_details: r.incomplete_details, output: r.output, usage: r.usage };
    }
    return e;
  });
}

function run(input: Buffer, pieceBytes: number): { events: Event[]; completed: Record<string, unknown>[] } {
  const completed: Record<string, unknown>[] = [];
  const s = new ResponsesStream(ctx, (r) => completed.push(r));
  let out = '';
  for (let i = 0; i < input.length; i += pieceBytes) out += s.push(input.subarray(i, i + pieceBytes));
  out += s.end();
  return { events: events(out), completed };
}

for (const name of ['text', 'tool-call', 'failure', 'length']) {
  const input = readFileSync(`${FIXTURES}stream-${name}.sse`);
  const expected = JSON.parse(readFileSync(`${FIXTURES}stream-${name}.expected.json`, 'utf8')) as Event[];
  test(`the ${name} chat stream becomes the golden event sequence`, () => {
    assert.equal(run(input, input.length).events, expected);
  });
  test(`the ${name} chat stream cut into 1-byte pieces (mid UTF-8) gives the same events`, () => {
    assert.equal(run(input, 1).events, expected);
  });
}

test('sequence numbers count up from 0 without gaps', () => {
  const { events: ev } = run(readFileSync(`${FIXTURES}stream-tool-call.sse`), 64);
  assert.equal(ev.map((e) => e.sequence_number), ev.map((_, i) => i));
});

test('a finished stream hands its final response (with usage) to be stored; an incomplete one too', () => {
  const { completed } = run(readFileSync(`${FIXTURES}stream-text.sse`), 100);
  assert.is(completed.length, 1);
  assert.is(completed[0].status, 'completed');
  assert.equal(completed[0].usage, { input_tokens: 2048, input_tokens_details: { cached_tokens: 1920 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2057 });
  assert.is(run(readFileSync(`${FIXTURES}stream-length.sse`), 100).completed[0].status, 'incomplete');
});

test('a failed stream is never stored', () => {
  assert.is(run(readFileSync(`${FIXTURES}stream-failure.sse`), 100).completed.length, 0);
});

test('a chat stream that stops without [DONE] ends with response.failed, never response.completed', () => {
  const text = readFileSync(`${FIXTURES}stream-text.sse`, 'utf8');
  const cut = Buffer.from(text.slice(0, text.indexOf('data: [DONE]')));
  const { events: ev, completed } = run(cut, cut.length);
  const types = ev.map((e) => e.type);
  assert.equal(types.slice(-2), ['error', 'response.failed']);
  assert.not.ok(types.includes('response.completed'));
  assert.is(ev.at(-1)!.response!.status, 'failed');
  assert.equal(ev.at(-1)!.response!.error, { code: 'stream_interrupted', message: 'The upstream stream ended before the answer was complete' });
  assert.is(completed.length, 0);
});

test('two tool calls in one chat stream become two function_call items, each with its own arguments', () => {
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const sse = chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"a":' } }] }) +
    chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'g', arguments: '{}' } }] }) +
    chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }) + chunk({}, 'tool_calls') + 'data: [DONE]\n\n';
  const { completed } = run(Buffer.from(sse), 7);
  const out = completed[0].output as { type: string; call_id: string; name: string; arguments: string }[];
  assert.equal(out.map((o) => [o.type, o.call_id, o.name, o.arguments]), [['function_call', 'call_a', 'f', '{"a":1}'], ['function_call', 'call_b', 'g', '{}']]);
});

test('reasoning text streamed by a provider becomes a reasoning item before the message', () => {
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const sse = chunk({ role: 'assistant', reasoning_content: 'Compare ' }) + chunk({ reasoning_content: 'decimals.' }) +
    chunk({ content: '9.9' }) + chunk({}, 'stop') + 'data: [DONE]\n\n';
  const { events: ev, completed } = run(Buffer.from(sse), 5);
  assert.equal(ev.filter((e) => e.type.startsWith('response.reasoning_text')).map((e) => e.delta ?? e.text), ['Compare ', 'decimals.', 'Compare decimals.']);
  const out = completed[0].output as { type: string; content: { text: string }[] }[];
  assert.equal(out.map((o) => [o.type, o.content[0].text]), [['reasoning', 'Compare decimals.'], ['message', '9.9']]);
});

test.run();
