// The stream translator: Anthropic's Messages SSE → OpenAI chat.completion.chunk SSE (golden
// fixtures), whatever the cuts between the chunks it is given.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { anthropicAdapter } from '../../src/providers/anthropic/adapter.js';
import { AnthropicStreamTranslator } from '../../src/providers/anthropic/stream.js';
import { FIXED_NOW, fixtureBytes, fixtureChunks, sseData } from './anthropic-fixtures.js';

/** Feeds `bytes` cut at `cuts` (byte offsets) and returns everything the translator wrote. */
function translate(bytes: Buffer, cuts: number[] = []): string {
  const t = new AnthropicStreamTranslator('fallback-model', FIXED_NOW);
  let out = '';
  let at = 0;
  for (const c of [...cuts, bytes.length]) {
    out += t.push(bytes.subarray(at, c));
    at = c;
  }
  return out + t.end();
}

for (const name of ['text', 'tool', 'thinking']) {
  test(`stream-${name}: the golden chunks, the usage chunk with empty choices, then [DONE]`, () => {
    const out = translate(fixtureBytes(`stream-${name}.sse`));
    assert.equal(sseData(out), fixtureChunks(`stream-${name}.chunks.jsonl`));
  });
}

test('cut into single bytes (mid-line and mid-UTF-8: Devanagari and an emoji), the output is the same', () => {
  const bytes = fixtureBytes('stream-text.sse');
  const whole = translate(bytes);
  const every = Array.from({ length: bytes.length - 1 }, (_, i) => i + 1);
  assert.is(translate(bytes, every), whole);
  const text = sseData(whole).flatMap((d: any) => (d === '[DONE]' ? [] : d.choices.map((c: any) => c.delta.content ?? ''))).join('');
  assert.is(text, 'Hello! नमस्ते 🙏');
});

test('cut inside a multi-byte character and inside `data:`, a tool call\'s arguments arrive whole and in order', () => {
  const bytes = fixtureBytes('stream-tool.sse');
  const cuts = [7, bytes.indexOf('partial_json') + 3, bytes.indexOf('Mum') + 1, bytes.length - 5];
  assert.is(translate(bytes, cuts), translate(bytes));
  const emoji = fixtureBytes('stream-text.sse');
  const e = emoji.indexOf(Buffer.from('🙏'));
  assert.is(translate(emoji, [e + 1, e + 2, e + 3]), translate(emoji), 'an emoji split over three pushes');
});

test('a stream cut before message_stop ends with no usage chunk and no [DONE]', () => {
  const bytes = fixtureBytes('stream-text.sse');
  const cut = bytes.subarray(0, bytes.indexOf('event: message_delta'));
  const data = sseData(translate(cut));
  assert.ok(data.length > 0);
  assert.not.ok(data.includes('[DONE]'));
  assert.not.ok(data.some((d: any) => d.usage !== undefined));
});

test('a stream cut after message_delta (stop reason known) still has no [DONE]: only message_stop completes it', () => {
  const bytes = fixtureBytes('stream-text.sse');
  const data = sseData(translate(bytes.subarray(0, bytes.indexOf('event: message_stop'))));
  assert.is((data[data.length - 1] as any).choices[0].finish_reason, 'stop');
  assert.not.ok(data.includes('[DONE]'));
});

test('an error event mid-stream: what came before is passed on, then nothing, and no [DONE]', () => {
  const bytes = fixtureBytes('stream-error.sse');
  const more = Buffer.concat([bytes, fixtureBytes('stream-text.sse')]);
  assert.equal(sseData(translate(bytes)), fixtureChunks('stream-error.chunks.jsonl'));
  assert.equal(sseData(translate(more)), fixtureChunks('stream-error.chunks.jsonl'), 'events after the error are not read');
});

test('an error event before any content translates to nothing at all (so the data plane can still fail over)', () => {
  const bytes = fixtureBytes('stream-error.sse');
  const beforeText = bytes.subarray(0, bytes.indexOf('event: content_block_delta'));
  const error = bytes.subarray(bytes.indexOf('event: error'));
  assert.is(translate(Buffer.concat([beforeText, error])), '');
});

test('a last line with no newline is read at the end; pings and unknown events write nothing', () => {
  const t = new AnthropicStreamTranslator('m', FIXED_NOW);
  assert.is(t.push(Buffer.from('event: ping\ndata: {"type":"ping"}\n\nevent: future\ndata: {"type":"future_event"}\n\n')).toString(), '');
  assert.is(t.push(Buffer.from('data: {"type":"message_stop"}')).toString(), '');
  assert.match(t.end().toString(), 'data: [DONE]\n\n');
});

test('the adapter gives a fresh translator per stream', () => {
  const a = anthropicAdapter.streamTranslator!('chat', 'm');
  const b = anthropicAdapter.streamTranslator!('chat', 'm');
  assert.is.not(a, b);
  a.push(Buffer.from('data: {"type":"message_st'));
  assert.is(b.push(Buffer.from('data: {"type":"message_stop"}\n\n')).toString().endsWith('data: [DONE]\n\n'), true);
});

test.run();
