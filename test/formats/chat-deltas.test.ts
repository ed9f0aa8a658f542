// The chat → Responses and chat → Messages stream translators' fast path (a plain text delta
// matched in place, its string copied as its bytes: formats/chat-deltas.ts) against their full
// parse: the same chat stream with a second space after `data:`, which no fast path matches,
// must translate to the same bytes (item ids aside), cut anywhere, and store the same response.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ChatDeltas } from '../../src/formats/chat-deltas.js';
import { MessagesStream } from '../../src/formats/messages/stream.js';
import { responsesToChat } from '../../src/formats/responses/request.js';
import { ResponsesStream } from '../../src/formats/responses/stream.js';
import { rng } from '../support/seeded-random.js';

const { echo } = responsesToChat({ model: 'catalog/model', input: 'x', instructions: 'Sé breve.', metadata: { k: 'v' } }, []);
const ctx = { id: 'resp_ID', createdAt: 1, model: 'catalog/model', echo };

const OPENAI = '{"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb","choices":';
const OURS = '{"id":"msg_01","object":"chat.completion.chunk","created":1764000000,"model":"claude-x","choices":';
const data = (s: string) => `data: ${s}\n\n`;
const openai = (delta: string, finish = 'null', tail = ',"usage":null') =>
  data(`${OPENAI}[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish}}]${tail}}`);
const ours = (delta: string) => data(`${OURS}[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":null}]}`);
const DONE = 'data: [DONE]\n\n';
const USAGE = data(`${OPENAI}[],"usage":{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":8}}}`);

const TEXTS = ['"Namaste"', '""', '" — नमस्ते!"', '"😀 and \\ud83d\\ude00"', '"line\\nnext"', '"a \\"quote\\" \\\\ b"', '"caf\\u00e9"', '"\\/"',
  '"\\t\\r\\b\\f"', '"raw\u0001control"', '"' + 'long text '.repeat(200) + '"', '"half \\ud83d"', '"\\ude00 other half"'];

const STREAMS: Record<string, string> = {
  openai: openai('{"role":"assistant","content":""}') + TEXTS.map((t) => openai(`{"content":${t}}`)).join('') + openai('{}', '"stop"') + USAGE + DONE,
  'openai, obfuscated': openai('{"role":"assistant","content":""}', 'null', ',"usage":null,"obfuscation":"x1"') +
    TEXTS.slice(0, 6).map((t, i) => openai(`{"content":${t}}`, 'null', `,"usage":null,"obfuscation":"${'pad'.repeat(i)}"`)).join('') +
    openai('{"content":"esc"}', 'null', ',"usage":null,"obfuscation":"a\\"b"') + openai('{}', '"stop"') + USAGE + DONE,
  'translated chunks': ours('{"role":"assistant","content":""}') + TEXTS.map((t) => ours(`{"content":${t}}`)).join('') +
    data(`${OURS}[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}]}`) + DONE,
  'first chunk is text': ours('{"content":"first"}') + ours('{"content":"second"}') + DONE,
  reasoning: openai('{"role":"assistant","content":""}') + openai('{"reasoning_content":"think"}') + openai('{"content":"answer"}') +
    openai('{"content":"more","reasoning_content":null}') + openai('{"content":" end"}') + openai('{}', '"stop"') + DONE,
  tools: openai('{"role":"assistant","content":"Checking."}') + openai('{"content":" one"}') +
    openai('{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}') +
    openai('{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":"}}]}') + openai('{"tool_calls":[{"index":0,"function":{"arguments":"\\"Pune\\"}"}}]}') +
    openai('{}', '"tool_calls"') + DONE,
  // Chunks a fast path must not take: other choices, other members and their order, space,
  // duplicated keys, a head that changes, escapes in the head, CRLF lines, an error, no [DONE].
  unusual: openai('{"content":"learn"}') + openai('{"content":"plain"}') +
    data(`${OPENAI}[{"index":1,"delta":{"content":"other choice"},"logprobs":null,"finish_reason":null}],"usage":null}`) +
    data(`${OPENAI}[{"index":0,"delta":{"content":"a","content":"dup"},"logprobs":null,"finish_reason":null}],"usage":null}`) +
    data(`${OPENAI}[{"index":0,"delta":{"content":"x"},"logprobs":null,"finish_reason":null}],"usage":null,"usage":{"prompt_tokens":1}}`) +
    data(`${OPENAI}[{"index":0,"delta":{"content":"order"},"finish_reason":null,"logprobs":null}],"usage":null}`) +
    data(`${OPENAI}[{"index":0,"delta":{"content":"space"} ,"logprobs":null,"finish_reason":null}],"usage":null}`) +
    data(`${OPENAI}[{"index":0,"delta":{"content":"trailing"},"logprobs":null,"finish_reason":null}],"usage":null}  `) +
    data(`${OPENAI.replace('chatcmpl-123', 'chatcmpl-456')}[{"index":0,"delta":{"content":"new id"},"logprobs":null,"finish_reason":null}],"usage":null}`) +
    data(`{"id":"a\\"b","choices":[{"index":0,"delta":{"content":"escaped id"},"logprobs":null,"finish_reason":null}]}`) +
    data(`${OPENAI}[{"index":0,"delta":{"content":"x_groq"},"logprobs":null,"finish_reason":null}],"x_groq":{"id":"req_1"}}`) +
    `data: ${OPENAI}[{"index":0,"delta":{"content":"crlf"},"logprobs":null,"finish_reason":null}],"usage":null}\r\n\r\n` +
    openai('{"content":"finish"}', '"length"') + USAGE + DONE,
  // A member the frame does not have, in as many bytes as the one it has.
  'same length, other member': openai('{"content":"learn"}') +
    data(`${OPENAI}[{"index":0,"delta":{"content":"same length"},"logprobs":null,"finish_reason":null}],"usage":{  }}`) + openai('{}', '"stop"') + DONE,
  // A head the frame does not have, in as many bytes: an error in place of the fingerprint.
  'same length, error in the head': openai('{"content":"learn"}') +
    data(`${OPENAI.replace('"system_fingerprint":"fp_44709d6fcb"', `"error":{"message":"${'m'.repeat(14)}"}`)}[{"index":0,"delta":{"content":"said"},"logprobs":null,"finish_reason":null}],"usage":null}`) +
    openai('{}', '"stop"') + DONE,
  // The role chunk learnt, then empty deltas, a finish with the last text (as the benchmark's mock
  // writes it), finish reasons of other kinds, a role chunk that is not the first.
  'role, finishes': ours('{"role":"assistant","content":""}') + ours('{"content":"a"}') + ours('{}') +
    data(`${OURS}[{"index":0,"delta":{"content":"last"},"logprobs":null,"finish_reason":"length"}]}`) +
    data(`${OURS}[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}`) +
    data(`${OURS}[{"index":0,"delta":{},"logprobs":null,"finish_reason":"नहीं"}]}`) +
    data(`${OURS}[{"index":0,"delta":{},"logprobs":null,"finish_reason":"con\\"tent"}]}`) +
    data(`${OURS}[{"index":0,"delta":{},"logprobs":null,"finish_reason":7}]}`) +
    data(`${OURS}[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls","stop_reason":"x"}]}`) +
    ours('{"role":"assistant","content":"again"}') + ours('{"role":"user","content":"user"}') + DONE,
  'finish content filter': ours('{"role":"assistant","content":""}') + ours('{"content":"a"}') +
    data(`${OURS}[{"index":0,"delta":{},"logprobs":null,"finish_reason":"content_filter"}]}`) + DONE,
  // A finish in a text chunk is never learnt as the frame of the chunks after it.
  'finish with text': openai('{"content":"a"}', '"length"') + openai('{"content":"b"}', '"length"') + DONE,
  failed: openai('{"content":"partial"}') + openai('{"content":" answer"}') +
    'data: {"error":{"message":"upstream went away","type":"upstream_error","code":"stream_interrupted"}}\n\n' + DONE,
  cut: openai('{"content":"no"}') + openai('{"content":" end"}'),
};

/** [DONE] keeps its one space: the Messages translator reads `data:  [DONE]` as no [DONE] at all, as it always has. */
function slow(s: Buffer): Buffer {
  return Buffer.from(s.toString('latin1').replace(/^data: (?!\[DONE\])/gm, 'data:  '), 'latin1');
}

function feed(t: { push(c: Buffer): Buffer; end(): Buffer }, bytes: Buffer, cuts: number[]): string {
  const out: Buffer[] = [];
  let at = 0;
  for (const c of [...cuts, bytes.length]) {
    out.push(t.push(bytes.subarray(at, c)));
    at = c;
  }
  out.push(t.end());
  return Buffer.concat(out).toString('latin1').replace(/"(msg|fc|rs|call)_[0-9a-f]{48}"/g, '"$1_ID"');
}

function responses(bytes: Buffer, cuts: number[] = []): { out: string; stored: unknown[] } {
  const stored: unknown[] = [];
  const out = feed(new ResponsesStream(ctx, (r) => stored.push(r)), bytes, cuts);
  return { out, stored: JSON.parse(JSON.stringify(stored).replace(/"(msg|fc|rs|call)_[0-9a-f]{48}"/g, '"$1_ID"')) as unknown[] };
}

function messages(bytes: Buffer, cuts: number[] = []): string {
  return feed(new MessagesStream({ model: 'claude-x', stops: ['x', 'END'], inputEstimate: () => 7, requestId: 'req_1' }), bytes, cuts).replace(/"msg_[0-9a-f]{24}"/g, '"msg_ID"');
}

const streams: [string, Buffer][] = Object.entries(STREAMS).map(([name, s]) => [name, Buffer.from(s)]);
streams.push(['not utf-8', Buffer.concat([Buffer.from(openai('{"content":"ok"}') + openai('{"content":"fine"}')), Buffer.from(`data: ${OPENAI}[{"index":0,"delta":{"content":"bad `),
  Buffer.from([0xff, 0xc3, 0x28]), Buffer.from(`"},"logprobs":null,"finish_reason":null}],"usage":null}\n\n` + DONE)])]);

for (const [name, bytes] of streams) {
  test(`${name}: the fast path writes what the full parse writes, whole and cut`, () => {
    const expected = responses(slow(bytes));
    const got = responses(bytes);
    assert.is(got.out, expected.out, 'Responses events');
    assert.equal(got.stored, expected.stored, 'the stored response');
    const expectedMessages = messages(slow(bytes));
    assert.is(messages(bytes), expectedMessages, 'Messages events');
    for (let step = 1; step < 50; step += 9) {
      const cuts: number[] = [];
      for (let i = step; i < bytes.length; i += step + (i % 7)) cuts.push(i);
      assert.is(responses(bytes, cuts).out, expected.out, `Responses, cut every ~${step} bytes`);
      assert.is(messages(bytes, cuts), expectedMessages, `Messages, cut every ~${step} bytes`);
    }
  });
}


// Chunks of the kinds the fast path matches (role, text, none, a finish reason as a string) and
// of kinds it must leave to the parse, drawn at random in random order: whatever a stream holds,
// the fast path must write what the full parse writes.
const FINISHES = ['null', '"stop"', '"length"', '"tool_calls"', '"content_filter"', '"नहीं"', '"a\\"b"', '"\\u0073top"', '7', '""'];
const USAGES = ['{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29}', 'null', '{"prompt_tokens":1.5,"completion_tokens":2}',
  '{"prompt_tokens":7,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":4},"completion_tokens_details":{"reasoning_tokens":2}}',
  '{"prompt_tokens":"7"}', '{"prompt_tokens":5,"prompt_tokens":6}', '{"prompt_tokens": 5}', '{}', '{"prompt_tokens":3,"prompt_tokens_details":null}'];
const HEADS = [OPENAI, OURS, '{"id":"x","choices":', '{"id":"a\\"b","model":"m","choices":'];

function generated(seed: number): Buffer {
  const r = rng(seed);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)];
  const head = pick(HEADS);
  const usage = r() < 0.5 ? ',"usage":null' : '';
  const pad = r() < 0.3;
  const chunk = (delta: string, finish = 'null', choice = ',"logprobs":null'): string =>
    data(`${head}[{"index":0,"delta":${delta}${choice},"finish_reason":${finish}}]${usage}${pad ? `,"obfuscation":"${'p'.repeat(Math.floor(r() * 5))}"` : ''}}`);
  let s = '';
  const n = 1 + Math.floor(r() * 14);
  for (let i = 0; i < n; i++) {
    const k = r();
    if (k < 0.3) s += chunk(`{"content":${pick(TEXTS)}}`);
    else if (k < 0.4) s += chunk(`{"role":"assistant","content":${pick(TEXTS)}}`);
    else if (k < 0.5) s += chunk('{}', pick(FINISHES));
    else if (k < 0.6) s += chunk(`{"content":${pick(TEXTS)}}`, pick(FINISHES));
    else if (k < 0.65) s += chunk('{"content":"dup"}', 'null', `,"finish_reason":${pick(FINISHES)},"logprobs":null`);
    else if (k < 0.7) s += chunk('{"content":"order"}', pick(FINISHES), '');
    else if (k < 0.75) s += chunk('{"role":"assistant"}');
    else if (k < 0.8) s += chunk(`{"reasoning_content":${pick(TEXTS)}}`);
    else if (k < 0.85) s += chunk(`{"content":null,"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":${pick(TEXTS)}}}]}`);
    else if (k < 0.9) s += chunk(`{"content":${pick(TEXTS)}}`, 'null', ',"logprobs":null,"stop_reason":"x"');
    else if (k < 0.95) s += chunk(`{"content":${pick(TEXTS)}}`).replace(/\n\n$/, r() < 0.5 ? ' \r\n\r\n' : '\t\n\n');
    else if (k < 0.975) s += USAGE;
    // A usage chunk in the stream's own head, which the translators read without a parse when it is plain.
    else s += data(`${head}[],"usage":${pick(USAGES)}${r() < 0.3 ? `,"obfuscation":"${'p'.repeat(Math.floor(r() * 5))}"` : ''}}`).replace(/\n\n$/, r() < 0.2 ? ' \n\n' : '\n\n');
  }
  if (r() < 0.85) s += DONE;
  return Buffer.from(s);
}

test('generated streams: the fast path writes what the full parse writes, whole and cut', () => {
  for (let seed = 1; seed <= 400; seed++) {
    const bytes = generated(seed);
    const expected = responses(slow(bytes));
    const got = responses(bytes);
    assert.is(got.out, expected.out, `Responses events, seed ${seed}`);
    assert.equal(got.stored, expected.stored, `the stored response, seed ${seed}`);
    const expectedMessages = messages(slow(bytes));
    assert.is(messages(bytes), expectedMessages, `Messages events, seed ${seed}`);
    const step = 1 + (seed % 37);
    const cuts: number[] = [];
    for (let i = step; i < bytes.length; i += step + (i % 5)) cuts.push(i);
    assert.is(responses(bytes, cuts).out, expected.out, `Responses, cut, seed ${seed}`);
    assert.is(messages(bytes, cuts), expectedMessages, `Messages, cut, seed ${seed}`);
  }
});

test('the chunk a frame is learnt from is matched as the learnt frame then matches it', () => {
  const chunks: string[] = [];
  for (const [, bytes] of streams) chunks.push(...bytes.toString('latin1').split('\n'));
  for (let seed = 1; seed <= 400; seed++) chunks.push(...generated(seed).toString('latin1').split('\n'));
  let learnt = 0;
  for (const line of chunks) {
    if (!line.startsWith('data: ')) continue;
    const d = new ChatDeltas();
    const first = d.match(line, 6, line.length);
    const spans = [d.litFrom, d.litTo, d.finFrom, d.finTo];
    if (!first) continue;
    learnt++;
    assert.ok(d.match(line, 6, line.length), line);
    assert.equal([d.litFrom, d.litTo, d.finFrom, d.finTo], spans, line);
  }
  assert.ok(learnt > 500, `${learnt} chunks learnt from`);
});

test('a finish reason given twice is not read from the first: the parse keeps the last', () => {
  const dup = (finish: string) => data(`${OURS}[{"index":0,"delta":{"content":"x"},"logprobs":null,"finish_reason":null,"finish_reason":${finish}}]}`);
  const bytes = Buffer.from(dup('null') + dup('null') + data(`${OURS}[{"index":0,"delta":{"content":"y"},"logprobs":null,"finish_reason":"length","finish_reason":null}]}`) + DONE);
  assert.is(responses(bytes).out, responses(slow(bytes)).out);
  assert.is(messages(bytes), messages(slow(bytes)));
});

test('the fast path is taken: no chunk is parsed, the first (the role and empty content) included', () => {
  const bytes = Buffer.from(openai('{"role":"assistant","content":""}') + Array.from({ length: 20 }, (_, i) => openai(`{"content":"token${i} "}`)).join('') + DONE);
  const parse = JSON.parse;
  let parsed = 0;
  JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
    parsed++;
    return parse(text, reviver);
  }) as typeof JSON.parse;
  try {
    feed(new ResponsesStream(ctx, null), bytes, []);
    assert.is(parsed, 0, 'Responses');
    parsed = 0;
    messages(bytes);
    assert.is(parsed, 0, 'Messages');
  } finally {
    JSON.parse = parse;
  }
});

test.run();
