import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { geminiAdapter } from '../../src/providers/gemini/adapter.js';
import { fixtureBytes } from './gemini-fixtures.js';

/** Feeds the bytes in pieces of `size` (1: every line and every UTF-8 character cut), then ends; returns the chat SSE. */
function translate(bytes: Buffer, size = bytes.length): string {
  const t = geminiAdapter.streamTranslator!('chat', 'gemini-2.5-flash');
  let out = '';
  for (let i = 0; i < bytes.length; i += size) out += t.push(bytes.subarray(i, i + size));
  return out + t.end();
}

function events(sse: string): any[] {
  assert.ok(sse.endsWith('\n\n') || sse === '', 'whole events only');
  return sse.split('\n\n').filter((e) => e !== '').map((e) => {
    assert.ok(e.startsWith('data: '), e);
    const data = e.slice(6);
    return data === '[DONE]' ? '[DONE]' : JSON.parse(data);
  });
}

const content = (ev: any[]) => ev.filter((e) => e !== '[DONE]' && e.choices.length > 0).map((e) => e.choices[0].delta.content ?? '').join('');
const withoutIds = (ev: any[]) => ev.map((e) => (e === '[DONE]' ? e : { ...e, id: null, created: null }));

test('a Gemini text stream becomes chat chunks: role first, the text, finish_reason stop, a usage chunk with no choices, then [DONE]', () => {
  const ev = events(translate(fixtureBytes('stream-text.sse')));
  assert.is(ev[ev.length - 1], '[DONE]');
  assert.is(ev[0].choices[0].delta.role, 'assistant');
  assert.ok(ev.slice(0, -1).every((e) => e.object === 'chat.completion.chunk' && e.model === 'gemini-2.5-flash' && e.id === 'chatcmpl-s-1'));
  assert.is(content(ev), 'नमस्ते! How can I help? 🙏');
  const finish = ev.filter((e) => e !== '[DONE]' && e.choices[0]?.finish_reason);
  assert.equal(finish.map((e) => e.choices[0].finish_reason), ['stop']);
  const usage = ev[ev.length - 2];
  assert.equal(usage.choices, []);
  assert.equal(usage.usage, {
    prompt_tokens: 2310, completion_tokens: 243, total_tokens: 2553,
    prompt_tokens_details: { cached_tokens: 2048 }, completion_tokens_details: { reasoning_tokens: 156 },
  });
  assert.ok(ev.slice(0, -2).every((e) => !('usage' in e)), 'only the last chunk carries usage');
});

test('cut anywhere (every byte apart: mid-line, mid-CRLF, inside multi-byte characters) the stream translates to the same chunks', () => {
  const bytes = fixtureBytes('stream-text.sse');
  const whole = withoutIds(events(translate(bytes)));
  for (const size of [1, 2, 3, 7, 64]) assert.equal(withoutIds(events(translate(bytes, size))), whole, `pieces of ${size}`);
});

test('streamed function calls become tool_call deltas with indexes, ids and JSON arguments, then finish_reason tool_calls and [DONE]', () => {
  const ev = events(translate(fixtureBytes('stream-function-call.sse'), 5));
  const calls = ev.filter((e) => e !== '[DONE]' && e.choices[0]?.delta?.tool_calls).flatMap((e) => e.choices[0].delta.tool_calls);
  assert.equal(calls.map((c: any) => [c.index, c.type, c.function.name, c.function.arguments]),
    [[0, 'function', 'get_weather', '{"city":"Pune"}'], [1, 'function', 'get_weather', '{"city":"Delhi"}']]);
  assert.ok(calls.every((c: any) => /^call_/.test(c.id)));
  assert.is(ev.find((e) => e !== '[DONE]' && e.choices[0]?.finish_reason)?.choices[0].finish_reason, 'tool_calls');
  assert.is(ev[ev.length - 1], '[DONE]');
});

test('a stream that ends with no finishReason is not passed on as complete: no [DONE], its text and last usage kept', () => {
  const sse = translate(fixtureBytes('stream-cut.sse'), 11);
  assert.not.match(sse, /\[DONE\]/);
  const ev = events(sse);
  assert.is(content(ev), 'Once upon a time');
  assert.ok(ev.every((e) => e.choices.every((c: any) => c.finish_reason === null)));
  assert.equal([ev[ev.length - 1].usage.prompt_tokens, ev[ev.length - 1].usage.completion_tokens], [12, 4]);
});

test('a stream cut inside an event (its last line incomplete) has no [DONE] either', () => {
  const bytes = fixtureBytes('stream-text.sse');
  const sse = translate(bytes.subarray(0, bytes.length - 40));
  assert.not.match(sse, /\[DONE\]/);
  assert.not.match(sse, /finish_reason":"stop/);
});

test('a prompt blocked in a stream: one chunk with finish_reason content_filter and empty content, then usage and [DONE]', () => {
  const ev = events(translate(fixtureBytes('stream-blocked.sse')));
  assert.equal(ev[0].choices[0], {
    index: 0, delta: { role: 'assistant', content: '', refusal: 'Gemini blocked the prompt (promptFeedback.blockReason PROHIBITED_CONTENT)' },
    logprobs: null, finish_reason: 'content_filter',
  });
  assert.is(ev[1].usage.prompt_tokens, 8);
  assert.is(ev[2], '[DONE]');
});

test('an error event in the stream (Google\'s envelope) means the answer is not complete: no [DONE]', () => {
  const bytes = Buffer.concat([
    fixtureBytes('stream-cut.sse'),
    Buffer.from('data: {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}\r\n\r\n'),
  ]);
  assert.not.match(translate(bytes), /\[DONE\]/);
});

test('a safety stop mid-answer is finish_reason content_filter', () => {
  const line = JSON.stringify({ candidates: [{ content: { parts: [{ text: 'Here is' }], role: 'model' }, finishReason: 'SAFETY', index: 0 }] });
  const ev = events(translate(Buffer.from(`data: ${line}\r\n\r\n`)));
  assert.is(ev.find((e) => e !== '[DONE]' && e.choices[0]?.finish_reason)?.choices[0].finish_reason, 'content_filter');
  assert.is(ev[ev.length - 1], '[DONE]');
});

test.run();
