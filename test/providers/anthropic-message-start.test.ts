// A stream's message_start read in place (AnthropicStreamTranslator#fastStart: its members
// matched, its usage alone parsed) against its full parse: the translator's output (every chunk
// names the id and the model, the last carries the usage) must be the same for any event,
// whatever its key order, the members a newer API adds, its escapes, or bytes JSON.parse
// refuses. A second space after `data:` makes the translator parse the event whole instead, as
// in anthropic-stream-fast.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AnthropicStreamTranslator } from '../../src/providers/anthropic/stream.js';
import { mutate } from '../support/json-mutate.js';
import { rng } from '../support/seeded-random.js';
const NOW = 1_764_000_000_000;
const ev = (type: string, data: string): string => `event: ${type}\ndata: ${data}\n\n`;
const REST = ev('content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}') +
  ev('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}') +
  ev('content_block_stop', '{"type":"content_block_stop","index":0}') +
  ev('message_delta', '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9}}') +
  ev('message_stop', '{"type":"message_stop"}');

function translate(bytes: Buffer, answerModel?: string): string {
  const t = new AnthropicStreamTranslator('claude-upstream', NOW, answerModel);
  return Buffer.concat([t.push(bytes), t.end()]).toString('latin1');
}

/** Whether the translator read the message_start `data` in place: it parsed no whole event. */
function readInPlace(data: Buffer): boolean {
  const parse = JSON.parse;
  // The whole event's parse reads the line from past `data:`, the space included.
  const event = ` ${data.toString('utf8')}`;
  let whole = false;
  JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
    if (text === event) whole = true;
    return parse(text, reviver);
  }) as typeof JSON.parse;
  try {
    translate(Buffer.concat([Buffer.from('data: '), data, Buffer.from(`\n\n${REST}`)]));
  } finally {
    JSON.parse = parse;
  }
  return !whole;
}

/** The translations of a stream opening with `data` as its message_start, read in place and parsed. */
function both(data: Buffer): [string, string] {
  const clean = Buffer.from(data.map((c) => (c === 0x0a || c === 0x0d ? 0x20 : c)));
  const stream = (space: string) => Buffer.concat([Buffer.from(`event: message_start\ndata:${space}`), clean, Buffer.from(`\n\n${REST}`)]);
  return [translate(stream(' ')), translate(stream('  '))];
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const COUNTS = [0, 1, 21, 1800, 2 ** 31, 2 ** 53, 1.5, -3, 1e21, null, '7', true];

function message(r: () => number): Record<string, unknown> {
  const usage: Record<string, unknown> = {};
  for (const k of ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'output_tokens']) if (r() < 0.85) usage[k] = pick(r, COUNTS);
  if (r() < 0.3) usage.cache_creation = { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 12 };
  if (r() < 0.3) usage.service_tier = 'standard';
  const m: Record<string, unknown> = {
    id: pick(r, ['msg_01', 'msg_é', 'msg_"q"', 7, null]), type: 'message', role: 'assistant',
    model: pick(r, ['claude-sonnet-4-5', 'claude/é', 'c\\x', 3, null]), content: [], stop_reason: null, stop_sequence: null,
    usage: r() < 0.9 ? usage : pick(r, [null, [], 'none', 5]),
  };
  if (r() < 0.2) m.container = { id: 'c1', expires_at: '2026-01-01' };
  // Members in another order (a newer API version could write the model first).
  const keys = Object.keys(m);
  if (r() < 0.4) keys.sort(() => r() - 0.5);
  return Object.fromEntries(keys.map((k) => [k, m[k]]));
}

/** Whether `m` is as Anthropic writes a message: the members it sends in its order, a string id and model, a usage object. */
function usual(m: Record<string, unknown>): boolean {
  return Object.keys(m).join() === 'id,type,role,model,content,stop_reason,stop_sequence,usage' && typeof m.id === 'string' &&
    typeof m.model === 'string' && typeof m.usage === 'object' && m.usage !== null && !Array.isArray(m.usage);
}

function written(e: Record<string, unknown>, r: () => number): Buffer {
  let s = JSON.stringify(e, null, r() < 0.15 ? 1 : undefined);
  if (r() < 0.2) s = s.replace(/é/g, '\\u00e9');
  if (r() < 0.05) s = s.replace('"model"', '"m\\u006fdel"');
  if (r() < 0.05) s = s.replace('"usage":', '"usage":{"input_tokens":1},"usage":');
  if (r() < 0.05) s = s.replace(/"input_tokens":(\d+)(?=[,}])/, '"input_tokens":$1.0');
  if (r() < 0.05) s = s.replace(/"input_tokens":(\d+)(?=[,}])/, '"input_tokens":$1e0');
  return Buffer.from(s.replace(/\n/g, ' '), 'utf8');
}

test('4,000 random message_start events: read in place, the translation is the full parse\'s', () => {
  const r = rng(4242);
  let read = 0;
  for (let i = 0; i < 4000; i++) {
    const m = message(r);
    const data = written({ type: 'message_start', message: m }, r);
    const taken = readInPlace(data);
    if (taken) read++;
    // Compact and without \u escapes or a second usage, as Anthropic writes its events: read in place.
    const plain = usual(m) && !data.includes(': ') && !data.includes('\\u') && data.indexOf('"usage":') === data.lastIndexOf('"usage":');
    assert.ok(taken || !plain, `case ${i}: left to the parse: ${data.toString('utf8')}`);
    const [fast, parsed] = both(data);
    assert.is(fast, parsed, `case ${i}: ${data.toString('utf8')}`);
    assert.is(translate(Buffer.from(`data: ${data.toString('latin1')}\n\n${REST}`, 'latin1'), 'asked'),
      translate(Buffer.from(`data:  ${data.toString('latin1')}\n\n${REST}`, 'latin1'), 'asked'), `case ${i}, answer model given`);
  }
  assert.ok(read > 400, `read in place: ${read} of 4000`);
});

test('20,000 mutated events: nothing JSON.parse refuses is read in place, and the translation is the full parse\'s', () => {
  const r = rng(99);
  const seeds = Array.from({ length: 20 }, () => written({ type: 'message_start', message: message(r) }, r));
  const snippets = ['"usage":', '"id":', '"model":', '{}', '[]', 'null', '"input_tokens":5,', '\\u0065', '"type":"message_start",', '1e3', '-0'];
  for (let i = 0; i < 20_000; i++) {
    // On one line, as SSE carries it.
    const data = Buffer.from(mutate(pick(r, seeds), r, snippets).map((c) => (c === 0x0a || c === 0x0d ? 0x20 : c)));
    if (readInPlace(data)) {
      let valid = true;
      try {
        JSON.parse(data.toString('utf8'));
      } catch {
        valid = false;
      }
      assert.ok(valid, `case ${i}: read an event JSON.parse refuses: ${data.toString('latin1')}`);
    }
    const [fast, parsed] = both(data);
    assert.is(fast, parsed, `case ${i}: ${data.toString('latin1')}`);
  }
});

test('what it leaves to the parse: another order, space, escaped keys, other members, usage not last or not an object', () => {
  const none = (e: string) => assert.not.ok(readInPlace(Buffer.from(e)), e);
  none('{"message":{"usage":{}},"type":"message_start"}');
  none('{"type":"message_start","message":null}');
  none('{"type":"message_start","type":"message_start","message":{"usage":{}}}');
  none('{"type":"message_start","message":{"m\\u006fdel":"x","usage":{}}}');
  none('{"type":"message_start","message":{"id": "a","usage":{}}}');
  none('{"type":"message_start","message":{"id":"caf\\u00e9","usage":{}}}');
  none('{"type":"message_start","message":{"id":null,"usage":{}}}');
  none('{"type":"message_start","message":{"content":[{"type":"text","text":""}],"usage":{}}}');
  none('{"type":"message_start","message":{"container":null,"usage":{}}}');
  none('{"type":"message_start","message":{"usage":{},"id":"a"}}');
  none('{"type":"message_start","message":{"model":"claude-x","id":"msg_1","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3}}}');
  none('{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":null}}');
  none('{"type":"message_start","message":{"usage":{}}} x');
  none('{"type":"message_start","message":{"usage":{"input_tokens":01}}}');
  // What Anthropic sends, whatever the members of its usage.
  const read = (e: string) => assert.ok(readInPlace(Buffer.from(e)), e);
  read('{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3}}}');
  read('{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"cache_creation":{"ephemeral_5m_input_tokens":0},"service_tier":"standard"}}}  ');
  read('{"type":"message_start","message":{"id":"m\\"1","type":"message","role":"assistant","model":"né","content":[],"stop_reason":"x","stop_sequence":"\\n","usage":{}}}');
});

test('a later member of a name replaces an earlier one, as in a parse; the usage\'s counts reach the usage chunk', () => {
  const stream = (start: string) => Buffer.from(`data: ${start}\n\n${REST}`);
  const out = translate(stream('{"type":"message_start","message":{"id":"a","model":"m1","id":"b","model":"m2","usage":{"input_tokens":1,"input_tokens":2,"cache_read_input_tokens":30,"output_tokens":"x"}}}'));
  assert.ok(out.includes('"id":"b"') && !out.includes('"id":"a"'), out);
  assert.ok(out.includes('"model":"m2"'), out);
  assert.ok(out.includes('"usage":{"prompt_tokens":32,"completion_tokens":9,'), out);
  assert.ok(translate(stream('{"type":"message_start","message":{"model":"m1","usage":{}}}'), 'asked').includes('"model":"asked"'));
});

test.run();
