// A whole Anthropic answer read in place (chatCompletionInPlace: one match of its layout, its
// literals copied, its usage alone parsed) against its full parse (toChatCompletion): where it
// takes an answer, the chat.completion must be the same bytes, and it must take nothing
// JSON.parse refuses or toChatCompletion would refuse; it must take every answer of text
// written as Anthropic writes one. The adapter's readAnswer must give the parse's answer and
// counts for any answer.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { anthropicAdapter } from '../../src/providers/anthropic/adapter.js';
import { toChatCompletion } from '../../src/providers/anthropic/answer.js';
import { chatCompletionInPlace } from '../../src/providers/anthropic/answer-in-place.js';
import { AnthropicStreamTranslator } from '../../src/providers/anthropic/stream.js';
import { emptyCounts, type UsageCounts } from '../../src/providers/anthropic/usage.js';
import { compactCanonical, COUNTS, mutatedSweep, pick, randomSweep, written, type ReaderSweep } from '../support/in-place-readers.js';
import { rng } from '../support/seeded-random.js';

const NOW = 1_764_000_000_000;
const TEXTS = ['Hi! My name is Claude.', '', 'café — ünïcode 🎉', 'a "quoted" \\ back\nslash\ttab', 'ctl \u0001 \u001f', 'x'.repeat(3000),
  'slash / and \u2028 line sep', '\u00e9'];
const STOPS = ['end_turn', 'max_tokens', 'tool_use', 'stop_sequence', 'pause_turn', 'refusal', 'model_context_window_exceeded', 'toString',
  'constructor', '__proto__', 'End_Turn', 'new_reason', 'é', null, 5];

interface Read {
  body: Buffer;
  counts: UsageCounts;
}

/** The in-place reading (null where it leaves the answer to the parse). */
function inPlace(answer: Buffer, answerModel?: string): Read | null {
  const counts = emptyCounts();
  const body = chatCompletionInPlace(answer, NOW, answerModel, counts);
  return body === null ? null : { body: Buffer.from(body), counts };
}

/** The full parse's reading, or null where it throws. */
function parsed(answer: Buffer, answerModel?: string): Read | null {
  const counts = emptyCounts();
  try {
    return { body: Buffer.from(toChatCompletion(answer, '', NOW, answerModel, counts)), counts };
  } catch {
    return null;
  }
}

function message(r: () => number): Record<string, unknown> {
  const usage: Record<string, unknown> = {};
  for (const k of ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'output_tokens']) if (r() < 0.85) usage[k] = pick(r, COUNTS);
  if (r() < 0.3) usage.cache_creation = { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 12 };
  if (r() < 0.3) usage.service_tier = 'standard';
  const content: unknown[] = [];
  const blocks = pick(r, [0, 1, 1, 1, 1, 2]);
  for (let i = 0; i < blocks; i++) {
    const kind = r();
    if (kind < 0.8) content.push({ type: 'text', text: pick(r, TEXTS) });
    else if (kind < 0.9) content.push({ type: 'tool_use', id: 'toolu_1', name: 'get', input: { q: pick(r, TEXTS) } });
    else content.push({ type: 'thinking', thinking: 'hmm', signature: 'sig' });
  }
  if (r() < 0.05) content.push({ type: 'text', text: 'cited', citations: null });
  const m: Record<string, unknown> = {
    id: pick(r, ['msg_01', 'msg_é', 'msg_"q"', 7, null]), type: pick(r, ['message', 'message', null]), role: 'assistant',
    model: pick(r, ['claude-sonnet-4-5', 'claude/é', 'c\\x', 3, null]), content: r() < 0.97 ? content : pick(r, [null, 'x', {}]),
    stop_reason: pick(r, STOPS), stop_sequence: pick(r, [null, null, '\n\nHuman:', 3]),
    usage: r() < 0.9 ? usage : pick(r, [null, [], 'none', 5]),
  };
  if (r() < 0.1) m.container = null;
  // Members in another order (a newer API version could write them so).
  const keys = Object.keys(m);
  if (r() < 0.2) keys.sort(() => r() - 0.5);
  if (r() < 0.05) keys.splice(Math.floor(r() * keys.length), 1);
  return Object.fromEntries(keys.map((k) => [k, m[k]]));
}

/** Whether `m` is as Anthropic writes an answer of text (and so must be read in place). */
function usual(m: Record<string, unknown>, json: string): boolean {
  const keys = Object.keys(m).join();
  const content = m.content as Record<string, unknown>[];
  return keys === 'id,type,role,model,content,stop_reason,stop_sequence,usage' && typeof m.id === 'string' && typeof m.model === 'string' &&
    Array.isArray(content) && content.length <= 1 && content.every((b) => b.type === 'text' && Object.keys(b).length === 2) &&
    typeof m.type === 'string' && (typeof m.stop_reason === 'string' || m.stop_reason === null) &&
    (typeof m.stop_sequence === 'string' || m.stop_sequence === null) && typeof m.usage === 'object' && m.usage !== null && !Array.isArray(m.usage) &&
    compactCanonical(json);
}

function same(answer: Buffer, i: number, answerModel?: string): boolean {
  const fast = inPlace(answer, answerModel);
  const slow = parsed(answer, answerModel);
  if (fast === null) return false;
  assert.ok(slow !== null, `case ${i}: read in place what the parse refuses: ${answer.toString('latin1')}`);
  assert.ok(fast.body.equals(slow.body), `case ${i}: ${answer.toString('latin1')}\n in place: ${fast.body.toString('latin1')}\n parsed:   ${slow.body.toString('latin1')}`);
  assert.equal(fast.counts, slow.counts, `case ${i}: counts`);
  return true;
}

const sweep = (seed: number): ReaderSweep => ({
  seed, answer: message, bytes: (m, r) => written(m, r, 'input_tokens'),
  same: (answer, i, r) => same(answer, i, r() < 0.3 ? pick(r, ['asked', 'claude/é', 'a"b']) : undefined),
});

test('4,000 random answers: read in place, the chat.completion is the full parse\'s, byte for byte', () => {
  randomSweep(sweep(1717), 4000, usual, 100);
});

test('20,000 mutated answers: nothing JSON.parse refuses is read in place, and the chat.completion is the full parse\'s', () => {
  mutatedSweep(sweep(2024), 20_000, ['"usage":', '"id":', '"model":', '{}', '[]', 'null', '"input_tokens":5,', '\\u0065', '{"type":"text","text":"x"}',
    '1e3', '-0', '\\/', '\\"'], 1000);
});

test('what it leaves to the parse, and what it reads', () => {
  const usual = '{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":2}}';
  const none = (a: string) => assert.is(inPlace(Buffer.from(a)), null, a);
  none(usual.replace('"id":"msg_1"', '"id":null'));
  none(usual.replace('"content":[', '"content":[{"type":"tool_use","id":"t","name":"n","input":{}},'));
  none(usual.replace('"text":"hi"}', '"text":"hi"},{"type":"text","text":"there"}'));
  none(usual.replace('"text":"hi"', '"text":"caf\\u00e9"'));
  none(usual.replace('"text":"hi"', '"text":"a\\/b"'));
  none(usual.replace('"model":"claude-x",', '').replace('"id":"msg_1",', '"id":"msg_1","model":"claude-x",'));
  none(usual.replace('"usage":{', '"usage": {'));
  none(usual.replace('}}', '},"container":null}'));
  none(usual.replace('"usage":{"input_tokens":3,"output_tokens":2}', '"usage":null'));
  none(usual.replace('"input_tokens":3', '"input_tokens":03'));
  none(`${usual} x`);
  none(` ${usual}`);
  none(usual.replace('"text":"hi"', '"text":"h\u0001i"'));
  const [before, after] = usual.split('"hi"');
  assert.is(inPlace(Buffer.concat([Buffer.from(`${before}"h`), Buffer.from([0xff]), Buffer.from(`i"${after}`)])), null, 'bytes not UTF-8');
  const read = (a: string) => assert.ok(same(Buffer.from(a), 0), a);
  read(usual);
  read(`${usual}\n`);
  read(usual.replace('"text":"hi"', '"text":"caf\u00e9 \\"q\\" \\n 🎉"'));
  read(usual.replace('[{"type":"text","text":"hi"}]', '[]'));
  read(usual.replace('"stop_reason":"end_turn"', '"stop_reason":"toString"'));
  read(usual.replace('"stop_reason":"end_turn"', '"stop_reason":null'));
  read(usual.replace('"input_tokens":3,"output_tokens":2', '"input_tokens":3,"cache_creation":{"ephemeral_5m_input_tokens":0},"output_tokens":2,"service_tier":"standard"'));
  const named = inPlace(Buffer.from(usual), 'claude/é')!.body.toString('utf8');
  assert.ok(named.includes('"model":"claude/é"'), named);
});

test('an answer too large for the expression\'s backtracking (millions of escapes) is left to the parse, not failed', () => {
  const answer = Buffer.from(JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x',
    content: [{ type: 'text', text: '\n'.repeat(5_000_000) }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 2 } }));
  assert.is(inPlace(answer), null);
  const out = anthropicAdapter.readAnswer!('chat', answer, 'application/json', '');
  assert.is(JSON.parse(Buffer.from(out.body).toString('utf8')).choices[0].message.content.length, 5_000_000);
  // The message_start of a stream likewise: an id of millions of escapes is parsed whole.
  const t = new AnthropicStreamTranslator('claude-x', NOW);
  const start = JSON.stringify({ type: 'message_start', message: { id: '\n'.repeat(6_000_000), type: 'message', role: 'assistant', model: 'claude-x',
    content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 3 } } });
  const stream = Buffer.concat([t.push(Buffer.from(`event: message_start\ndata: ${start}\n\n`)), t.push(Buffer.from(
    'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}\n\ndata: {"type":"message_stop"}\n\n')), t.end()]);
  assert.ok(stream.includes('"content":"hi"') && stream.includes('"prompt_tokens":3'), stream.subarray(0, 200).toString());
});

test('the adapter reads every answer as the parse does: in place where it can, parsed where not', () => {
  const r = rng(7);
  for (let i = 0; i < 2000; i++) {
    const answer = written(message(r), r, 'input_tokens');
    const slow = parsed(answer, 'asked');
    let got: { body: string | Buffer; usage?: unknown } | null;
    try {
      got = anthropicAdapter.readAnswer!('chat', answer, 'application/json', '', 'upstream', 'asked');
    } catch {
      got = null;
    }
    assert.is(got === null, slow === null, `case ${i}: ${answer.toString('latin1')}`);
    if (got === null || slow === null) continue;
    // The adapter's answer is made now, not at NOW.
    const created = (b: string) => b.replace(/"created":\d+/, '"created":0');
    assert.is(created(Buffer.from(got.body).toString('utf8')), created(slow.body.toString('utf8')), `case ${i}`);
  }
});

test.run();
