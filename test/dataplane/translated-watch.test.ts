// The relay's watch over a translated stream (dataplane/translated-watch.ts) against the scanner
// it replaces there: fed the same translator output, chunk by chunk, it must say the same usage,
// end, text count and event boundary after every chunk, for whole and cut streams.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TranslatedWatch, type TellingTranslator } from '../../src/dataplane/translated-watch.js';
import { DONE_NOT_HERE, SseScanner } from '../../src/lib/sse-scanner.js';
import type { TokenUsage } from '../../src/lib/usage-scan.js';
import { AnthropicStreamTranslator } from '../../src/providers/anthropic/stream.js';
import { fixtureBytes, FIXED_NOW } from '../providers/anthropic-fixtures.js';

const ev = (type: string, data: string): string => `event: ${type}\ndata: ${data}\n\n`;
const START = ev('message_start', '{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":21,"cache_creation_input_tokens":7,"cache_read_input_tokens":1800,"output_tokens":1}}}');
const delta = (text: string) => ev('content_block_delta', `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${JSON.stringify(text)}}}`);
const BODY = START + ev('content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}') +
  ['Hello', ' "quoted"', ' नमस्ते', ' line\nnext', ' 😀'].map(delta).join('') + ev('content_block_stop', '{"type":"content_block_stop","index":0}');
const END = ev('message_delta', '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":12}}') +
  ev('message_stop', '{"type":"message_stop"}');

const STREAMS: [string, Buffer][] = [
  ['text', Buffer.from(BODY + END)],
  ['cut before message_stop', Buffer.from(BODY)],
  ['cut before any text', Buffer.from(START)],
  ['an error event', Buffer.from(BODY + ev('error', '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'))],
  ...['stream-text.sse', 'stream-tool.sse', 'stream-thinking.sse', 'stream-error.sse'].map((f): [string, Buffer] => [f, fixtureBytes(f)]),
];

function facts(w: SseScanner | TranslatedWatch): unknown {
  return { usage: w.usage, done: w.done, textBytes: w.textBytes, boundary: w.atEventBoundary, doneTail: w.doneTail };
}

for (const [name, bytes] of STREAMS) {
  test(`${name}: the watch says what the scanner finds, after every chunk, cut anywhere`, () => {
    for (const step of [bytes.length, 1, 7, 23, 64, 200]) {
      const t = new AnthropicStreamTranslator('claude-upstream', FIXED_NOW);
      const watch = new TranslatedWatch(t);
      const scanner = new SseScanner();
      const feed = (out: Buffer): void => {
        watch.push(out);
        scanner.push(out);
        assert.equal(facts(watch), facts(scanner), `${name}, cut every ${step} bytes`);
      };
      for (let at = 0; at < bytes.length; at += step) feed(t.push(bytes.subarray(at, at + step)));
      feed(t.end());
      if (name === 'text' || name === 'stream-text.sse') assert.ok(watch.usage !== null && watch.done, 'a whole stream has usage and its end');
      if (name.startsWith('cut')) assert.ok(watch.usage === null && !watch.done && watch.textBytes === scanner.textBytes, 'a cut stream is counted');
    }
  });
}

test('a translator that ends without usage: [DONE] is found where the scanner finds it, for an estimate before it', () => {
  const chunks = ['data: {"choices":[{"index":0,"delta":{"content":"hi there"}}]}\n\n', 'data: {"choices":[]}\n\ndata: [DONE]\n\n'];
  const t = { usage: null as TokenUsage | null, done: false as boolean, push: (b: Buffer) => b, end: () => Buffer.alloc(0) } satisfies TellingTranslator;
  const watch = new TranslatedWatch(t);
  const scanner = new SseScanner();
  for (const [i, c] of chunks.entries()) {
    t.done = i === 1;
    watch.push(Buffer.from(c));
    scanner.push(Buffer.from(c));
    assert.equal([watch.done, watch.doneAt, watch.textBytes, watch.usage], [scanner.done, scanner.doneAt, scanner.textBytes, scanner.usage]);
  }
  assert.ok(watch.doneAt > 0 && watch.doneAt !== DONE_NOT_HERE);
});

test.run();
