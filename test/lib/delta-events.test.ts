// The text deltas written in WebAssembly (lib/delta-events.ts) against the full parse, where
// chat-deltas.test.ts does not reach: streams whose runs share the module's memory in turn, a
// chunk large enough to grow it, texts of every length around the sixteen-byte copies, and
// whether the runs are taken at all.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DeltaEvents, EMPTY_TOO } from '../../src/lib/delta-events.js';
import { ByteSink } from '../../src/lib/byte-text.js';
import { countedRuns } from '../support/delta-runs.js';
import { MessagesStream } from '../../src/formats/messages/stream.js';
import { responsesToChat } from '../../src/formats/responses/request.js';
import { ResponsesStream } from '../../src/formats/responses/stream.js';

const { echo } = responsesToChat({ model: 'catalog/model', input: 'x' }, []);
const ctx = { id: 'resp_ID', createdAt: 1, model: 'catalog/model', echo };
const HEAD = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":';
const delta = (text: string, id = 'chatcmpl-1', finish = 'null') =>
  `data: ${HEAD.replace('chatcmpl-1', id)}[{"index":0,"delta":{"content":${JSON.stringify(text)}},"finish_reason":${finish}}],"usage":null}\n\n`;
const first = (id = 'chatcmpl-1') => `data: ${HEAD.replace('chatcmpl-1', id)}[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}],"usage":null}\n\n`;
const DONE = 'data: [DONE]\n\n';

type Translator = { push(c: Buffer): Buffer; end(): Buffer };
const makers: [string, () => Translator][] = [
  ['Responses', () => new ResponsesStream(ctx, null)],
  ['Messages', () => new MessagesStream({ model: 'm', stops: [], inputEstimate: () => 1, requestId: null })],
];

const ids = (s: string) => s.replace(/"(msg|fc|rs|call)_[0-9a-f]{48}"/g, '"$1_ID"').replace(/"msg_[0-9a-f]{24}"/g, '"msg_ID"');
/** No run matches `data:  ` (two spaces): the same stream read line by line. */
const slow = (s: string) => s.replace(/^data: (?!\[DONE\])/gm, 'data:  ');

function translate(make: () => Translator, pieces: string[]): string {
  const t = make();
  return ids(Buffer.concat([...pieces.map((p) => t.push(Buffer.from(p))), t.end()]).toString());
}

for (const [name, make] of makers) {
  test(`${name}: texts of every length from 0 to 70 bytes, and multi-byte ones, in one chunk`, () => {
    let s = first();
    for (let n = 0; n <= 70; n++) s += delta('x'.repeat(n) + (n % 3 === 0 ? '"\\\n' : ''));
    s += delta('नमस्ते 😀 ') + delta('', 'chatcmpl-1', '"stop"') + DONE;
    const { value, runBytes } = countedRuns(() => translate(make, [s]));
    assert.is(value, translate(make, [slow(s)]));
    assert.ok(runBytes > s.length * 0.9, `the runs read ${runBytes} of ${s.length} bytes`);
  });

  test(`${name}: streams pushed in turn, each its own frame, share the module's memory`, () => {
    const a = [first('a'), delta('one '), delta('two ') + delta('three '), delta('four', 'chatcmpl-1', '"stop"') + DONE]
      .map((p) => p.replaceAll('chatcmpl-1', 'a'));
    const b = [first('bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'), delta('uno ', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb') + delta('dos ', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'),
      delta('tres '.repeat(40), 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'), DONE];
    const ta = make();
    const tb = make();
    const outA: Buffer[] = [];
    const outB: Buffer[] = [];
    const { runBytes } = countedRuns(() => {
      for (let i = 0; i < 4; i++) {
        outA.push(ta.push(Buffer.from(a[i])));
        outB.push(tb.push(Buffer.from(b[i])));
      }
    });
    outA.push(ta.end());
    outB.push(tb.end());
    assert.ok(runBytes > 400, `the runs read ${runBytes} bytes`);
    assert.is(ids(Buffer.concat(outA).toString()), translate(make, a.map(slow)));
    assert.is(ids(Buffer.concat(outB).toString()), translate(make, b.map(slow)));
  });

  test(`${name}: a chunk of 3 MB grows the memory, and the next stream's runs still read their own lines`, () => {
    const big = first() + Array.from({ length: 30000 }, (_, i) => delta(`token ${i} `)).join('') + DONE;
    const { value, runBytes } = countedRuns(() => translate(make, [big]));
    assert.is(value, translate(make, [slow(big)]));
    assert.ok(runBytes > big.length * 0.99, `the runs read ${runBytes} of ${big.length} bytes`);
    const small = first('z') + delta('after', 'z') + DONE;
    assert.is(translate(make, [small]), translate(make, [slow(small)]));
  });
}

test('a run stops at the first line whose frame differs in any one byte, for frames of every length from 1 to 40 bytes', () => {
  for (let n = 1; n <= 40; n++) {
    const open = Array.from({ length: n }, (_, i) => String.fromCharCode(0x41 + (i % 26))).join('') + ':';
    for (const close of ['}', '}}', '}]}', '},"x":[1,2,3]}']) {
      const line = (o: string, c: string) => `data: ${o}"t"${c}\n`;
      const e = new DeltaEvents(EMPTY_TOO);
      e.template({ open, close, obfuscated: false }, '<', '', '>');
      const good = line(open, close).repeat(3);
      const changed: string[] = [];
      for (let k = 0; k < open.length; k++) changed.push(line(open.slice(0, k) + '#' + open.slice(k + 1), close));
      for (let k = 0; k < close.length; k++) changed.push(line(open, close.slice(0, k) + '#' + close.slice(k + 1)));
      for (const bad of changed) {
        const lines = Buffer.from(good + bad + good);
        const sink = new ByteSink();
        const stop = e.run(lines, 0, sink, 0);
        assert.is(stop, good.length, `open ${JSON.stringify(open)}, close ${JSON.stringify(close)}: ${JSON.stringify(bad)}`);
        assert.is(sink.take().toString(), '<"t">'.repeat(3));
      }
      const all = Buffer.from(good + good);
      const sink = new ByteSink();
      assert.ok(e.run(all, 0, sink, 0) >= all.length);
      assert.is(sink.take().toString(), '<"t">'.repeat(6));
    }
  }
});

test.run();
