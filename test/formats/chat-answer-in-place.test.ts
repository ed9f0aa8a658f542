// A whole chat.completion of text read in place (chatTextAnswer: one match of OpenAI's compact
// layout, the content's literal copied, the usage alone parsed) against its full parse: where
// it takes an answer, the Responses and Messages answers written from it must be the bytes the
// parse path writes (the same answer after a space, which the reader leaves to the parse), the
// stored response the same object, and it must take nothing JSON.parse refuses; it must take
// every answer of text written in that layout.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chatTextAnswer } from '../../src/formats/chat-answer-in-place.js';
import { MessagesReply } from '../../src/formats/messages/reply.js';
import { ResponsesFormat } from '../../src/formats/responses/format.js';
import { responsesToChat } from '../../src/formats/responses/request.js';
import { compactCanonical, COUNTS, isJson, mutatedSweep, pick, randomSweep, written, type ReaderSweep } from '../support/in-place-readers.js';
import { rng } from '../support/seeded-random.js';

const TEXTS = ['Hello! How can I help?', '', 'café — ünïcode 🎉', 'a "quoted" \\ back\nslash\ttab', 'ctl \u0001 \u001f', 'x'.repeat(3000),
  'slash / and \u2028 line sep', '\u00e9', 'msg_not_an_id'];
const FINISH = ['stop', 'stop', 'length', 'tool_calls', 'content_filter', 'function_call', 'toString', '__proto__', 'Stop', 'é', null, 5];

function usage(r: () => number): unknown {
  if (r() < 0.08) return pick(r, [null, [], 'none', 5]);
  const u: Record<string, unknown> = {};
  for (const k of ['prompt_tokens', 'completion_tokens', 'total_tokens']) if (r() < 0.9) u[k] = pick(r, COUNTS);
  if (r() < 0.4) u.prompt_tokens_details = pick(r, [{ cached_tokens: pick(r, COUNTS) }, { cached_tokens: 5, cache_write_tokens: pick(r, COUNTS) }, null, {}]);
  if (r() < 0.4) u.completion_tokens_details = pick(r, [{ reasoning_tokens: pick(r, COUNTS) }, null]);
  return u;
}

function answer(r: () => number): Record<string, unknown> {
  const message: Record<string, unknown> = { role: r() < 0.95 ? 'assistant' : 'user', content: r() < 0.85 ? pick(r, TEXTS) : pick(r, [null, null, 5, ['x']]) };
  if (r() < 0.3) message.refusal = r() < 0.8 ? null : 'I cannot.';
  if (r() < 0.3) message.annotations = r() < 0.8 ? [] : [{ type: 'url_citation' }];
  if (r() < 0.1) message.tool_calls = [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }];
  if (r() < 0.05) message.reasoning_content = 'hmm';
  const choice: Record<string, unknown> = { index: r() < 0.95 ? 0 : 1, message };
  if (r() < 0.4) choice.logprobs = r() < 0.9 ? null : { content: [] };
  choice.finish_reason = pick(r, FINISH);
  const a: Record<string, unknown> = {
    id: pick(r, ['chatcmpl-B9MBs8Cjcv', 'msg_01XFDUDYJgAACzvnptvVoYEL', 'msg_"q"', 'gen-é', 7, null]),
    object: r() < 0.95 ? 'chat.completion' : 'chat.completion.chunk',
    created: r() < 0.9 ? 1_764_000_000 : pick(r, [0, -1, 1.5, '1', 1e21]),
    model: pick(r, ['gpt-4o-mini', 'é/model', 'a"b', 3]),
  };
  if (r() < 0.15) a.system_fingerprint = pick(r, ['fp_1', null]);
  a.choices = r() < 0.95 ? [choice] : pick(r, [[], [choice, choice], null]);
  a.usage = usage(r);
  if (r() < 0.2) a.service_tier = pick(r, ['default', null]);
  if (r() < 0.15 && !('system_fingerprint' in a)) a.system_fingerprint = pick(r, ['fp_2', null]);
  if (r() < 0.05) a.x_groq = { id: 'req_1' };
  const keys = Object.keys(a);
  if (r() < 0.2) keys.sort(() => r() - 0.5);
  if (r() < 0.05) keys.splice(Math.floor(r() * keys.length), 1);
  return Object.fromEntries(keys.map((k) => [k, a[k]]));
}

const plain = (v: unknown): boolean => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether `a` is a chat answer of text in the compact layout read in place (and so must be read). */
function usual(a: Record<string, unknown>, json: string): boolean {
  if (!/^id,object,created,model,(system_fingerprint,)?choices,usage(,service_tier)?(,system_fingerprint)?$/.test(Object.keys(a).join())) return false;
  const choices = a.choices as Record<string, unknown>[];
  if (!Array.isArray(choices) || choices.length !== 1 || !plain(choices[0])) return false;
  const c = choices[0];
  const m = c.message as Record<string, unknown>;
  return typeof a.id === 'string' && a.object === 'chat.completion' && Number.isSafeInteger(a.created) && (a.created as number) >= 0 &&
    typeof a.model === 'string' && /^index,message,(logprobs,)?finish_reason$/.test(Object.keys(c).join()) && c.index === 0 &&
    (c.logprobs === undefined || c.logprobs === null) && (c.finish_reason === null || /^[a-z_]*$/.test(String(c.finish_reason))) &&
    plain(m) && /^role,content(,refusal)?(,annotations)?$/.test(Object.keys(m).join()) && m.role === 'assistant' &&
    (typeof m.content === 'string' || m.content === null) && (m.refusal === undefined || m.refusal === null) &&
    (m.annotations === undefined || (Array.isArray(m.annotations) && m.annotations.length === 0)) && plain(a.usage) &&
    (a.service_tier === undefined || typeof a.service_tier === 'string' || a.service_tier === null) &&
    (a.system_fingerprint === undefined || typeof a.system_fingerprint === 'string' || a.system_fingerprint === null) && compactCanonical(json);
}

/** The answer as the parse path gets it: the same text after a space, which the reader leaves alone and JSON.parse reads as before. */
function leftToParse(a: Buffer): Buffer {
  const b = Buffer.concat([Buffer.from(' '), a]);
  assert.is(chatTextAnswer(b), null, 'an answer after a space is left to the parse');
  return b;
}

const { echo } = responsesToChat({ model: 'catalog/model', input: 'x', instructions: 'Be brief. é', user: 'u"1' }, []);

interface Written {
  body: string;
  stored: string;
}

/** A Responses answer (random ids made alike), and the response it stores. */
function responses(a: Buffer, store: boolean): Written {
  const stored: unknown[] = [];
  const f = new ResponsesFormat();
  f.begin({ id: 'resp_ID', createdAt: 1, model: 'catalog/model', echo }, store ? (resp) => stored.push(resp) : null);
  const ids = (s: string): string => s.replace(/msg_[0-9a-f]{48}/g, 'msg_ID');
  return { body: ids(Buffer.from(f.answer(a)).toString('utf8')), stored: ids(JSON.stringify(stored)) };
}

/** A Messages answer (a made id made alike). */
function messages(a: Buffer, model: string, stops: string[]): string {
  const f = new MessagesReply('req_1');
  f.model = model;
  f.stops = stops;
  return Buffer.from(f.answer(a)).toString('utf8').replace(/"msg_[0-9a-f]{24}"/, '"msg_MADE"');
}

/** Whether the answer is read in place; if so, both formats' answers are the parse path's. */
function same(a: Buffer, i: number, r: () => number): boolean {
  if (chatTextAnswer(a) === null) return false;
  const text = a.toString('latin1');
  assert.ok(isJson(a.toString('utf8')), `case ${i}: read in place what JSON.parse refuses: ${text}`);
  const slow = leftToParse(a);
  const store = r() < 0.5;
  assert.equal(responses(a, store), responses(slow, store), `case ${i}: Responses: ${text}`);
  const model = pick(r, ['claude-x', 'é/m', 'a"b']);
  const stops = pick(r, [[], ['###'], ['\n\nHuman:']]);
  assert.is(messages(a, model, stops), messages(slow, model, stops), `case ${i}: Messages: ${text}`);
  return true;
}

const sweep = (seed: number): ReaderSweep => ({ seed, answer, bytes: (a, r) => written(a, r, 'prompt_tokens'), same });

test('4,000 random answers: read in place, the Responses and Messages answers are the full parse\'s, byte for byte', () => {
  randomSweep(sweep(4242), 4000, usual, 200);
});

test('20,000 mutated answers: nothing JSON.parse refuses is read in place, and what is read is answered as the parse answers', () => {
  mutatedSweep(sweep(99), 20_000, ['"usage":', '"id":', '"content":', '{}', '[]', 'null', '"prompt_tokens":5,', '\\u0065', '"refusal":null', '1e3',
    '-0', '\\/', '\\"', ',"service_tier":"x"', '"finish_reason":"length"'], 1000);
});

test('what it leaves to the parse, and what it reads', () => {
  const usual = '{"id":"chatcmpl-1","object":"chat.completion","created":1764000000,"model":"gpt-4o","choices":[{"index":0,"message":' +
    '{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}';
  const none = (a: string) => assert.is(chatTextAnswer(Buffer.from(a)), null, a);
  none(usual.replace('"content":"hi"', '"content":"hi","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]'));
  none(usual.replace('"content":"hi"', '"content":"caf\\u00e9"'));
  none(usual.replace('"content":"hi"', '"content":"a\\/b"'));
  none(usual.replace('"content":"hi"', '"content":"h\u0001i"'));
  none(usual.replace('"content":"hi"', '"content":"hi","refusal":"no"'));
  none(usual.replace('"content":"hi"', '"content":"hi","reasoning_content":"hmm"'));
  none(usual.replace('"index":0', '"index":1'));
  none(usual.replace('"usage":{', '"usage": {'));
  none(usual.replace(/"usage":\{[^}]*\}/, '"usage":null'));
  none(usual.replace('"prompt_tokens":3', '"prompt_tokens":03'));
  none(usual.replace('}}', '},"x_groq":{"id":"r"}}'));
  none(`${usual} x`);
  none(` ${usual}`);
  const [before, after] = usual.split('"hi"');
  const notUtf8 = Buffer.concat([Buffer.from(`${before}"h`), Buffer.from([0xff]), Buffer.from(`i"${after}`)]);
  assert.is(chatTextAnswer(notUtf8), null, 'bytes not UTF-8');
  // The parse reads them as U+FFFD.
  assert.ok(same(Buffer.from(notUtf8.toString('utf8')), 0, rng(6)));
  const r = rng(5);
  const read = (a: string) => assert.ok(same(Buffer.from(a), 0, r), a);
  read(usual);
  read(`${usual}\n`);
  read(usual.replace('"content":"hi"', '"content":"caf\u00e9 \\"q\\" \\n 🎉"'));
  read(usual.replace('"content":"hi"', '"content":null'));
  read(usual.replace('"content":"hi"', '"content":""'));
  read(usual.replace('"content":"hi"', '"content":"hi","refusal":null,"annotations":[]').replace('"finish_reason"', '"logprobs":null,"finish_reason"'));
  read(usual.replace('"finish_reason":"stop"', '"finish_reason":"length"'));
  read(usual.replace('"finish_reason":"stop"', '"finish_reason":null'));
  read(usual.replace('"id":"chatcmpl-1"', '"id":"msg_01abc"'));
  read(usual.replace('}}', '},"service_tier":"default","system_fingerprint":"fp_1"}'));
  read(usual.replace('"choices"', '"system_fingerprint":null,"choices"'));
  // OpenAI's own answers are pretty-printed: parsed, as before.
  none(JSON.stringify(JSON.parse(usual), null, 2));
});

test('an answer too large for the expression\'s backtracking (millions of escapes) is left to the parse, not failed', () => {
  const a = Buffer.from(JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: '\n'.repeat(5_000_000) }, finish_reason: 'stop' }], usage: { prompt_tokens: 1 } }));
  assert.is(chatTextAnswer(a), null);
  const f = new MessagesReply('req_1');
  f.model = 'm';
  assert.is(JSON.parse(Buffer.from(f.answer(a)).toString('utf8')).content[0].text.length, 5_000_000);
});

test.run();
