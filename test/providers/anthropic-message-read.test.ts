// The Anthropic message read in place (providers/anthropic/message-read.ts) against JSON.parse:
// whatever it accepts, JSON.parse reads, with the same id, model, joined text, stop reason and
// counts, and the literals it keeps are JSON.stringify's of their values; generated messages
// (members in any order, duplicated, of other types; blocks of every kind; usage as Anthropic
// writes it and otherwise), then random edits of them. And the whole answer's translation,
// through the reader or the parse, is JSON.stringify's of the object it stands for.
import { isUtf8 } from 'node:buffer';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { toChatCompletion } from '../../src/providers/anthropic/answer.js';
import { literalText, MessageFields, mergeRead } from '../../src/providers/anthropic/message-read.js';
import { mergeUsage, type UsageCounts } from '../../src/providers/anthropic/usage.js';
import { mutate } from '../support/json-mutate.js';
import { rng } from '../support/seeded-random.js';
import { answerAsObject, FIXED_NOW } from './anthropic-fixtures.js';

const STRINGS = ['', 'a', 'msg_01XFDUDYJgAACzvnptvVoYEL', 'claude-sonnet-4-5', 'hé', 'नमस्ते', '😀', 'say "hi"', 'back\\slash', 'line\nnext',
  'tab\t', '\u0001', '\u2028', 'end_turn', 'tool_use', 'text', 'max_tokens', 'a/b'];

function generator(r: () => number) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const str = (): string => pick(STRINGS) + (r() < 0.2 ? pick(STRINGS) : '');
  const value = (depth: number): unknown => {
    switch (Math.floor(r() * (depth > 2 ? 6 : 8))) {
      case 0: return str();
      case 1: return Math.floor(r() * 1e6);
      case 2: return pick([-1, 0.5, 1e21, -0, 3.25e-7, 1234567890123]);
      case 3: return null;
      case 4: return r() < 0.5;
      case 5: return pick([[], {}]);
      case 6: return Array.from({ length: Math.floor(r() * 3) }, () => value(depth + 1));
      default: return Object.fromEntries(Array.from({ length: Math.floor(r() * 3) }, () => [str(), value(depth + 1)]));
    }
  };
  const block = (): unknown => {
    switch (Math.floor(r() * 8)) {
      case 0: return { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: value(2) } };
      case 1: return { type: 'thinking', thinking: str(), signature: 'sig' };
      case 2: return { type: 'text' };
      case 3: return { text: str(), type: 'text', citations: value(2) };
      case 4: return value(2);
      default: return { type: 'text', text: str() };
    }
  };
  const count = (): unknown => (r() < 0.7 ? Math.floor(r() * 100000) : value(2));
  /** usage as JSON text: its members written one by one, so that a key may come twice. */
  const usage = (): string => {
    if (r() < 0.1) return JSON.stringify(value(1));
    const u: [string, unknown][] = [];
    for (const k of ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'output_tokens']) if (r() < 0.8) u.push([k, count()]);
    if (r() < 0.5) u.push(['cache_creation', { ephemeral_5m_input_tokens: count(), ephemeral_1h_input_tokens: 0 }]);
    if (r() < 0.5) u.push(['service_tier', 'standard']);
    if (r() < 0.1) u.push([pick(['input_tokens', 'output_tokens']), count()]);
    return `{${u.map(([k, x]) => `${JSON.stringify(k)}:${JSON.stringify(x)}`).join(',')}}`;
  };
  /** A message as JSON text, written member by member so that a key may come twice. */
  return (): string => {
    const members: [string, string][] = [['id', r() < 0.9 ? str() : value(1)], ['type', 'message'], ['role', 'assistant'],
      ['model', r() < 0.9 ? str() : value(1)], ['content', r() < 0.95 ? Array.from({ length: Math.floor(r() * 4) }, block) : value(1)],
      ['stop_reason', r() < 0.8 ? pick(['end_turn', 'max_tokens', 'tool_use', 'stop_sequence']) : value(1)], ['stop_sequence', null]]
      .map(([k, v]) => [k as string, JSON.stringify(v)]);
    members.push(['usage', usage()]);
    if (r() < 0.2) members.push([str(), JSON.stringify(value(1))]);
    if (r() < 0.1) members.push(pick(members));
    for (let i = members.length - 1; i > 0; i--) {
      if (r() < 0.3) {
        const j = Math.floor(r() * (i + 1));
        [members[i], members[j]] = [members[j], members[i]];
      }
    }
    return `{${members.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
  };
}

const fields = new MessageFields();
const START: UsageCounts = { input: 9, output: 9, cacheRead: 9, cacheWrite: 9 };

/** Reads `bytes` (valid UTF-8) as the answer is read: the message, then only whitespace. True when accepted. */
function check(bytes: Buffer): boolean {
  const text = bytes.toString('latin1');
  const end = fields.read(text, 0, text.length);
  if (end < 0 || !/^[ \t\r\n]*$/.test(text.slice(end))) return false;
  const source = bytes.toString('utf8');
  let m: any;
  try {
    m = JSON.parse(source);
  } catch {
    assert.unreachable(`accepted what JSON.parse refuses: ${source}`);
  }
  assert.ok(typeof m === 'object' && m !== null && Array.isArray(m.content), source);
  const utf8 = (literal: string) => Buffer.from(literal, 'latin1').toString('utf8');
  assert.is(fields.id === '' ? undefined : utf8(fields.id), typeof m.id === 'string' ? JSON.stringify(m.id) : undefined, `id of ${source}`);
  if (fields.id !== '') assert.is(literalText(fields.id), m.id);
  assert.is(fields.model === '' ? undefined : utf8(fields.model), typeof m.model === 'string' ? JSON.stringify(m.model) : undefined, `model of ${source}`);
  let joined: string | null = null;
  for (const b of m.content) {
    assert.ok(b?.type !== 'tool_use', `accepted a tool_use block: ${source}`);
    if (b?.type === 'text' && typeof b.text === 'string') joined = (joined ?? '') + b.text;
  }
  assert.is(fields.text === null ? null : utf8(`"${fields.text}"`), joined === null ? null : JSON.stringify(joined), `text of ${source}`);
  assert.is(fields.stopReason, typeof m.stop_reason === 'string' ? m.stop_reason : null, `stop_reason of ${source}`);
  const read = { ...START };
  const parsed = { ...START };
  mergeRead(read, fields.usage);
  mergeUsage(parsed, m.usage);
  assert.equal(read, parsed, `usage of ${source}`);
  return true;
}

test('generated messages: what the reader accepts, JSON.parse reads the same; the answer is the object JSON.stringify writes', () => {
  const next = generator(rng(29));
  let accepted = 0;
  for (let n = 0; n < 6000; n++) {
    const source = next();
    const bytes = Buffer.from(source);
    if (check(bytes)) accepted++;
    const m = JSON.parse(source);
    if (Array.isArray(m.content)) {
      assert.is(toChatCompletion(bytes, 'fallback', FIXED_NOW).toString(), answerAsObject(bytes, 'fallback'), source);
      assert.is(toChatCompletion(bytes, 'fallback', FIXED_NOW, 'asked').toString(), answerAsObject(bytes, 'fallback', 'asked'), source);
    } else {
      assert.throws(() => toChatCompletion(bytes, 'fallback', FIXED_NOW), source);
    }
  }
  assert.ok(accepted > 1500, `${accepted} of 6000 read in place`);
});

test('random edits: whatever the reader accepts, JSON.parse reads the same', () => {
  const r = rng(31);
  const next = generator(r);
  let accepted = 0;
  for (let n = 0; n < 30000; n++) {
    let bytes = mutate(Buffer.from(next()), r, ['{"type":"text","text":"x"}', '"usage":{"input_tokens":1}', ',"id":"a"', '"\\u0041"', '1.5', '00', '[]', '{}', '\\"']);
    // The translators read valid UTF-8 only: the stream's lines and the answer are made so first.
    if (!isUtf8(bytes)) bytes = Buffer.from(bytes.toString('utf8'));
    if (check(bytes)) accepted++;
  }
  assert.ok(accepted > 1000, `${accepted} edits accepted`);
});

test('as Anthropic writes them: a text answer and a message_start of today are read in place', () => {
  const answer = '{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Hi! I\'m Claude."}],' +
    '"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,' +
    '"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0},"output_tokens":12,"service_tier":"standard"}}';
  assert.ok(check(Buffer.from(answer)));
  assert.is(fields.text, "Hi! I'm Claude.");
  assert.equal(fields.usage, { input: 10, output: 12, cacheRead: 0, cacheWrite: 0 });
  const start = '{"model":"claude-sonnet-4-5","id":"msg_01","type":"message","role":"assistant","content":[],"stop_reason":null,' +
    '"stop_sequence":null,"usage":{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}';
  assert.ok(check(Buffer.from(start)));
  assert.is(fields.text, null);
});

test('what it leaves to JSON.parse: a tool_use block, space, escaped keys, \\u in the texts, fractions in the counts, no content', () => {
  for (const m of ['{"content":[{"type":"tool_use","id":"t","name":"f","input":{}}]}', '{ "content":[]}', '{"content":[] }x', '{"con\\u0074ent":[]}',
    '{"content":[{"type":"text","text":"\\u0041"}]}', '{"content":[],"usage":{"input_tokens":1.5}}', '{"content":[],"usage":{"input_tokens":-0}}',
    '{"id":"a"}', '{}', '{"content":[],}', '{"content":[]']) {
    const text = Buffer.from(m).toString('latin1');
    const end = fields.read(text, 0, text.length);
    assert.ok(end < 0 || !/^[ \t\r\n]*$/.test(text.slice(end)), m);
  }
});

test.run();
