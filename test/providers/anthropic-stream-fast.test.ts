// The Anthropic stream translator's fast path (events matched in place, delta strings copied as
// their bytes) against its full parse: the same events, with a second space after `data:` so
// that no fast path matches them, must translate to the same bytes, cut anywhere.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { responsesToChat } from '../../src/formats/responses/request.js';
import { ResponsesStream } from '../../src/formats/responses/stream.js';
import { AnthropicStreamTranslator } from '../../src/providers/anthropic/stream.js';
import { countedRuns } from '../support/delta-runs.js';
import { fixtureBytes } from './anthropic-fixtures.js';

const NOW = 1_764_000_000_000;

function ev(type: string, data: string): string {
  return `event: ${type}\ndata: ${data}\n\n`;
}

const delta = (text: string, index = 0) => ev('content_block_delta', `{"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":${text}}}`);
const json = (partial: string, index = 1) => ev('content_block_delta', `{"type":"content_block_delta","index":${index},"delta":{"type":"input_json_delta","partial_json":${partial}}}`);
const START = ev('message_start', '{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":21,"cache_creation_input_tokens":200,"cache_read_input_tokens":1800,"output_tokens":1}}}');
const TEXT_START = ev('content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}');
const TOOL_START = ev('content_block_start', '{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}');
const STOP = (i: number) => ev('content_block_stop', `{"type":"content_block_stop","index":${i}}`);
const END = ev('message_delta', '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9}}') +
  ev('message_stop', '{"type":"message_stop"}');

/** Texts as Anthropic would write them, and as it would not (left to the parse, or refused by it). */
const TEXTS = ['"Hello"', '""', '" world"', '"line\\nnext"', '"a \\"quote\\" and a \\\\ slash"', '"नमस्ते 😀"', '"\\t\\r\\b\\f"',
  '"caf\\u00e9"', '"\\ud83d\\ude00"', '"\\/"', '"raw\u0001control"', '"tab\there"', '"bad \\x escape"', '"' + 'long '.repeat(300) + '"'];

const STREAMS: Record<string, string> = {
  texts: START + TEXT_START + ev('ping', '{"type":"ping"}') + TEXTS.map((t) => delta(t)).join('') + STOP(0) + END,
  // The first delta opens the stream (the role chunk goes first), whichever path reads it.
  'first delta escaped': START + TEXT_START + delta('"\\"quoted\\" first"') + delta('"then"') + STOP(0) + END,
  'first delta plain': START + TEXT_START + delta('"first"') + STOP(0) + END,
  tool: START + TEXT_START + delta('"Let me look."') + STOP(0) + TOOL_START + json('""') + json('"{\\"location\\": \\"San"') +
    json('" Francisco\\"}"') + json('"{}"', 7) + STOP(1) +
    ev('message_delta', '{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":47}}') +
    ev('message_stop', '{"type":"message_stop"}'),
  'tool first': START + TOOL_START + json('"{\\"a\\":1}"') + STOP(1) + END,
  // Shapes the fast path does not take: other keys, their order, space, leading zeros, CRLF lines.
  unusual: START + TEXT_START +
    ev('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","extra":1}}') +
    ev('content_block_delta', '{"index":0,"type":"content_block_delta","delta":{"type":"text_delta","text":"order"}}') +
    ev('content_block_delta', '{ "type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"space"}}') +
    ev('content_block_delta', '{"type":"content_block_delta","index":00,"delta":{"type":"text_delta","text":"zero"}}') +
    ev('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"trailing"}}  \t') +
    ev('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"after"}} x') +
    'event: content_block_delta\r\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"crlf"}}\r\n\r\n' +
    ev('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}') +
    ev('content_block_stop', '{"type":"content_block_stop","index":0,"x":1}') +
    ev('content_block_start', '{"type":"content_block_start","index":2,"content_block":{"type":"text","text":"starts with text"}}') +
    ev('message_delta', '{"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"input_tokens":5,"output_tokens":3}}') +
    ev('message_delta', '{"type":"message_delta","delta":{"stop_reason":"नहीं","stop_sequence":null},"usage":{"output_tokens":4}}') +
    ev('message_stop', '{"type":"message_stop"}'),
  error: START + TEXT_START + delta('"partial"') + ev('error', '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}') + delta('"never"'),
  'stop reason null': START + TEXT_START + delta('"a"') +
    ev('message_delta', '{"type":"message_delta","delta":{"stop_reason":null,"stop_sequence":null},"usage":{"output_tokens":1}}') + END,
};

/** The same stream with a second space after each `data:`: JSON.parse reads it the same, no fast path matches it. */
function slow(s: Buffer): Buffer {
  return Buffer.from(s.toString('latin1').replace(/^data: /gm, 'data:  '), 'latin1');
}

function translate(bytes: Buffer, cuts: number[] = [], answerModel?: string): string {
  const t = new AnthropicStreamTranslator('claude-upstream', NOW, answerModel);
  const out: Buffer[] = [];
  let at = 0;
  for (const c of [...cuts, bytes.length]) {
    out.push(t.push(bytes.subarray(at, c)));
    at = c;
  }
  out.push(t.end());
  return Buffer.concat(out).toString('latin1');
}

const streams: [string, Buffer][] = Object.entries(STREAMS).map(([name, s]) => [name, Buffer.from(s)]);
// Bytes that are not UTF-8 inside a delta: read as a decode reads them (U+FFFD), on both paths.
streams.push(['not utf-8', Buffer.concat([Buffer.from(START + TEXT_START + delta('"ok"') + 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"bad '),
  Buffer.from([0xff, 0xc3, 0x28]), Buffer.from(' end"}}\n\n' + STOP(0) + END)])]);
for (const f of ['stream-text.sse', 'stream-tool.sse', 'stream-thinking.sse', 'stream-error.sse']) streams.push([f, fixtureBytes(f)]);

for (const [name, bytes] of streams) {
  test(`${name}: the fast path writes the bytes the full parse writes, whole and cut`, () => {
    const expected = translate(slow(bytes));
    assert.is(translate(bytes), expected);
    assert.is(translate(bytes, [], 'claude-asked'), translate(slow(bytes), [], 'claude-asked'));
    for (let step = 1; step < 40; step += 7) {
      const cuts: number[] = [];
      for (let i = step; i < bytes.length; i += step + (i % 5)) cuts.push(i);
      assert.is(translate(bytes, cuts), expected, `cut every ~${step} bytes`);
    }
  });
}

test('the fast path is taken: no event is parsed, message_start\'s usage included (as Anthropic writes it)', () => {
  const parse = JSON.parse;
  let parsed = 0;
  JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
    parsed++;
    return parse(text, reviver);
  }) as typeof JSON.parse;
  try {
    translate(Buffer.from(START + TEXT_START + ev('ping', '{"type":"ping"}') + Array.from({ length: 20 }, (_, i) => delta(`"token${i} "`)).join('') + STOP(0) + END));
  } finally {
    JSON.parse = parse;
  }
  assert.is(parsed, 0, 'nothing is parsed');
});

/** The bytes the WebAssembly runs read in Anthropic's events (not the chat chunks a chained translator reads). */
const counted = <T>(f: () => T) => countedRuns(f, (lines) => lines.includes('content_block_delta'));

test('a text block\'s deltas are read in runs: texts of every length from 0 to 70 bytes, escapes and multi-byte ones', () => {
  let deltas = '';
  for (let n = 0; n <= 70; n++) deltas += delta(JSON.stringify('x'.repeat(n) + (n % 3 === 0 ? '"\\\n' : '')));
  deltas += delta('"नमस्ते 😀 "');
  const bytes = Buffer.from(START + TEXT_START + delta('"first"') + deltas + STOP(0) + END);
  const { value, runBytes } = counted(() => translate(bytes));
  assert.is(value, translate(slow(bytes)));
  assert.ok(runBytes > deltas.length * 0.95, `the runs read ${runBytes} of ${deltas.length} bytes`);
});

test('a second text block is read in its own frame; a tool block between them is not run', () => {
  const second = (text: string) => delta(text, 2);
  const bytes = Buffer.from(START + TEXT_START + delta('"one"') + delta('" two"') + STOP(0) + TOOL_START + json('"{\\"a\\":1}"') + STOP(1) +
    ev('content_block_start', '{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}') +
    second('"three"') + second('" four"') + second('" five"') + STOP(2) + END);
  const { value, runBytes } = counted(() => translate(bytes));
  assert.is(value, translate(slow(bytes)));
  assert.ok(runBytes > second('" four"').length * 2, `the runs read ${runBytes} bytes`);
});

test('Anthropic → chat → Responses (a Responses client on a Claude model): both translators\' runs share the module in turn', () => {
  const { echo } = responsesToChat({ model: 'catalog/model', input: 'x' }, []);
  const chain = (chunks: Buffer[]): string => {
    const a = new AnthropicStreamTranslator('claude-upstream', NOW);
    const r = new ResponsesStream({ id: 'resp_ID', createdAt: 1, model: 'catalog/model', echo }, null);
    const out: Buffer[] = [];
    for (const c of chunks) out.push(r.push(a.push(c)));
    out.push(r.push(a.end()), r.end());
    return Buffer.concat(out).toString().replace(/"msg_[0-9a-f]{48}"/g, '"msg_ID"');
  };
  const texts = Array.from({ length: 30 }, (_, i) => delta(JSON.stringify(`token ${i} `.repeat(i % 7 + 1))));
  const chunks = [START + TEXT_START + delta('"Hi"'), texts.slice(0, 10).join(''), texts.slice(10).join(''), STOP(0) + END].map((c) => Buffer.from(c));
  const { value, runBytes } = counted(() => chain(chunks));
  assert.is(value, chain(chunks.map(slow)));
  assert.ok(value.includes('"text":"Hi'), 'the text reached the Responses events');
  assert.ok(runBytes > texts.join('').length * 0.95, `the runs read ${runBytes} bytes`);
});

test.run();
