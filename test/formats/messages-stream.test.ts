import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MessagesStream } from '../../src/formats/messages/stream.js';
import { events, fixture } from './messages-fixture.js';

function translator(f: any): MessagesStream {
  return new MessagesStream({ model: f.model, stops: f.stops, inputEstimate: () => f.inputEstimate, requestId: 'req-1' });
}

for (const name of ['stream-text', 'stream-tool', 'stream-failure']) {
  test(`the golden chat stream of ${name} becomes its Anthropic events, whole chunks`, () => {
    const f = fixture(name);
    const t = translator(f);
    let out = '';
    for (const c of f.chat) out += t.push(Buffer.from(c));
    out += t.end();
    assert.equal(events(out), f.events);
  });

  test(`the same for ${name} cut into single bytes (mid-line and mid-UTF-8)`, () => {
    const f = fixture(name);
    const t = translator(f);
    const bytes = Buffer.from(f.chat.join(''));
    let out = '';
    for (let i = 0; i < bytes.length; i++) out += t.push(bytes.subarray(i, i + 1));
    out += t.end();
    assert.equal(events(out), f.events);
  });
}

test('every event is written as JSON.stringify writes its data (the templates as the objects were)', () => {
  for (const name of ['stream-text', 'stream-tool', 'stream-failure']) {
    const f = fixture(name);
    const t = new MessagesStream({ model: 'ca"t/मॉडल', stops: ['END'], inputEstimate: () => f.inputEstimate, requestId: 'req-1' });
    const out = Buffer.concat([...f.chat.map((c: string) => t.push(Buffer.from(c))), t.end()]).toString('utf8');
    const lines = out.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
    assert.ok(lines.length >= 3, name);
    for (const l of lines) assert.is(l, JSON.stringify(JSON.parse(l)), `${name}: ${l}`);
  }
});

test('a chat stream cut off without [DONE] ends in an error event, never message_stop', () => {
  const f = fixture('stream-text');
  const t = translator(f);
  let out = '';
  for (const c of f.chat.slice(0, 3)) out += t.push(c);
  out += t.end();
  const evs = events(out);
  assert.is(evs.at(-1)!.event, 'error');
  assert.is(evs.at(-1)!.data.error.type, 'api_error');
  assert.is(evs.at(-1)!.data.error.details.error_code, 'stream_interrupted');
  assert.not.ok(evs.some((e) => e.event === 'message_stop' || e.event === 'message_delta'));
});

test("the gateway's own overload mid-stream is Anthropic's overloaded_error", () => {
  const t = translator(fixture('stream-text'));
  const out = t.push('data: {"error":{"message":"busy","type":"server_error","code":"overloaded"}}\n\ndata: [DONE]\n\n').toString() + t.end().toString();
  assert.equal(events(out).map((e) => e.event), ['error']);
  assert.is(events(out)[0].data.error.type, 'overloaded_error');
});

test('a matched stop sequence named by the server is stop_sequence in message_delta', () => {
  const t = new MessagesStream({ model: 'm', stops: ['END'], inputEstimate: () => 0, requestId: null });
  const out = t.push('data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\n' +
    'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop","stop_reason":"END"}]}\n\ndata: [DONE]\n\n').toString() + t.end().toString();
  const delta = events(out).find((e) => e.event === 'message_delta')!;
  assert.equal(delta.data.delta, { stop_reason: 'stop_sequence', stop_sequence: 'END' });
});

test('nothing is written after the stream is complete', () => {
  const t = translator(fixture('stream-text'));
  t.push('data: [DONE]\n\n');
  assert.is(t.push('data: {"choices":[]}\n\n').toString(), '');
  assert.is(t.end().toString(), '');
});

test.run();
