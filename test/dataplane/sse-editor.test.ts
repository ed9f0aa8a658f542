import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SseEditor } from '../../src/dataplane/sse-editor.js';

const edit = (e: SseEditor, ...parts: string[]): string => parts.map((p) => e.push(Buffer.from(p)).toString()).join('') + e.flush().toString();

test('the usage-only event is dropped with its blank line, with spaces around its choices or none at all', () => {
  const content = 'data: {"model":"up","choices":[{"delta":{"content":"x"}}],"usage":null}\n\n';
  for (const usage of ['data: {"choices": [ ],"usage":{"prompt_tokens":1}}\r\n\r\n', 'data: {"usage":{"prompt_tokens":1}}\n\n']) {
    const e = new SseEditor({ model: null, dropUsage: true, beforeDone: null });
    assert.is(edit(e, content, usage, 'data: [DONE]\n\n'), `${content}data: [DONE]\n\n`);
  }
});

test('a usage on a chunk that has choices is kept (Groq puts it on the last content chunk)', () => {
  const last = 'data: {"choices":[{"delta":{},"finish_reason":"stop"}],"x_groq":{"usage":{"prompt_tokens":1}}}\n\n';
  assert.is(edit(new SseEditor({ model: null, dropUsage: true, beforeDone: null }), last), last);
});

test('only the event\'s own model is replaced: a "model" inside generated text is escaped and left alone', () => {
  const e = new SseEditor({ model: '"cat/id"', dropUsage: false, beforeDone: null });
  assert.is(edit(e, 'data: {"model" :\t"prov-id","choices":[{"delta":{"content":"\\"model\\":\\"x\\""}}]}\n\n'),
    'data: {"model" :\t"cat/id","choices":[{"delta":{"content":"\\"model\\":\\"x\\""}}]}\n\n');
});

test('the estimate goes before [DONE] once, told whether it follows an event boundary', () => {
  const seen: boolean[] = [];
  const e = new SseEditor({ model: null, dropUsage: false, beforeDone: (b) => (seen.push(b), Buffer.from('data: {"usage":{}}\n\n')) });
  assert.is(edit(e, 'data: {"a":1}\n', 'data: [DONE]\n\n'), 'data: {"a":1}\ndata: {"usage":{}}\n\ndata: [DONE]\n\n');
  assert.equal(seen, [false]);
});

test('a line longer than the hold limit is forwarded as it comes, unedited, and editing resumes after it', () => {
  const e = new SseEditor({ model: '"m"', dropUsage: false, beforeDone: null });
  const long = `data: {"model":"x","c":"${'a'.repeat(300 * 1024)}`;
  let out = e.push(Buffer.from(long.slice(0, 200 * 1024))).toString();
  out += e.push(Buffer.from(long.slice(200 * 1024))).toString();
  assert.is(out.length, long.length, 'nothing is held past the limit');
  out += e.push(Buffer.from('"}\ndata: {"model":"x"}\n\n')).toString();
  assert.is(out, `${long}"}\ndata: {"model":"m"}\n\n`);
});

test.run();
