import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DONE_NOT_HERE, SseScanner } from '../../src/lib/sse-scanner.js';
import { scanUsage } from '../../src/lib/usage-scan.js';

/** Canonical usage with no cache or reasoning parts. */
const plain = (promptTokens: number, completionTokens: number) =>
  ({ promptTokens, completionTokens, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });
const chunk = (obj: unknown) => `data: ${JSON.stringify(obj)}\n\n`;
const USAGE = { prompt_tokens: 12, completion_tokens: 34, total_tokens: 46 };
const STREAM = chunk({ choices: [{ delta: { content: 'a' } }], usage: null })
  + chunk({ choices: [{ delta: { content: 'b' } }], usage: null })
  + chunk({ choices: [], usage: USAGE }) + 'data: [DONE]\n\n';

test('finds usage in the final chunk and the [DONE] marker, ignoring usage: null chunks', () => {
  const s = new SseScanner();
  s.push(Buffer.from(STREAM));
  assert.equal(s.usage, plain(12, 34));
  assert.is(s.done, true);
  assert.is(s.atEventBoundary, true);
});

test('finds them whatever the chunk boundaries, even split inside the usage key and [DONE]', () => {
  const bytes = Buffer.from(STREAM);
  for (let size = 1; size <= 40; size++) {
    const s = new SseScanner();
    for (let i = 0; i < bytes.length; i += size) s.push(bytes.subarray(i, i + size));
    assert.equal(s.usage, plain(12, 34), `chunk size ${size}`);
    assert.is(s.done, true, `chunk size ${size}`);
  }
});

test('a stream cut mid-event is not at an event boundary and has no [DONE]', () => {
  const s = new SseScanner();
  s.push(Buffer.from(chunk({ choices: [] }) + 'data: {"choi'));
  assert.is(s.done, false);
  assert.is(s.atEventBoundary, false);
  assert.is(s.usage, null);
});

test('a line that never ends is forwarded unscanned and the lines after it are scanned again', () => {
  const s = new SseScanner();
  const filler = Buffer.alloc(64 * 1024, 0x61);
  s.push(Buffer.from('data: {"choices":[{"delta":{"content":"'));
  // 4 MiB without a newline: past the 1 MiB carry, so the scanner stops holding it.
  for (let i = 0; i < 64; i++) s.push(filler);
  s.push(Buffer.from('"}}],"usage":{"prompt_tokens":1,"completion_tokens":2}}\n\n'));
  assert.is(s.usage, null, 'usage inside the overlong line is not read');
  assert.is(s.atEventBoundary, true);
  s.push(Buffer.from(chunk({ choices: [], usage: USAGE }) + 'data: [DONE]\n\n'));
  assert.equal(s.usage, plain(12, 34));
  assert.is(s.done, true);
});

test('a line split over many chunks below the carry limit is still scanned whole', () => {
  const s = new SseScanner();
  const line = Buffer.from(`data: ${JSON.stringify({ choices: [{ delta: { content: 'x'.repeat(200_000) } }], usage: USAGE })}\n\n`);
  for (let i = 0; i < line.length; i += 1000) s.push(line.subarray(i, i + 1000));
  assert.equal(s.usage, plain(12, 34));
});

test('scanUsage reads the last usage block of a JSON response without parsing it all', () => {
  const body = Buffer.from(JSON.stringify({ id: 'x', choices: [{ message: { content: '"usage": fake' } }], usage: { prompt_tokens: 5, completion_tokens: 9 } }));
  assert.equal(scanUsage(body), plain(5, 9));
  assert.equal(scanUsage(Buffer.from('{"data":[],"usage":{"prompt_tokens":7,"total_tokens":7}}')), plain(7, 0));
  assert.is(scanUsage(Buffer.from('{"usage":null}')), null);
  assert.is(scanUsage(Buffer.from('{}')), null);
});


test('"usage": null is passed over, spaces or not, and a real usage block after it is read', () => {
  const s = new SseScanner();
  s.push(Buffer.from('data: {"choices":[],"usage" : null}\n\n'));
  assert.is(s.usage, null);
  s.push(Buffer.from('data: {"choices":[],"usage": {"prompt_tokens": 3, "completion_tokens": 4}}\n\n'));
  assert.equal(s.usage, plain(3, 4));
});

test('reads the cached and reasoning parts of the final usage chunk, whatever the chunk boundaries', () => {
  const usage = { prompt_tokens: 2_000, completion_tokens: 300, total_tokens: 2_300,
    prompt_tokens_details: { cached_tokens: 1_500, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 120, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 } };
  const bytes = Buffer.from(chunk({ choices: [{ delta: { content: 'a' } }], usage: null }) + chunk({ choices: [], usage }) + 'data: [DONE]\n\n');
  for (let size = 1; size <= 64; size += 7) {
    const s = new SseScanner();
    for (let i = 0; i < bytes.length; i += size) s.push(bytes.subarray(i, i + size));
    assert.equal(s.usage, { promptTokens: 2_000, completionTokens: 300, cachedTokens: 1_500, cacheWriteTokens: 0, reasoningTokens: 120 },
      `chunk size ${size}`);
  }
});

test('adds up the bytes of generated text: content, reasoning and tool-call arguments, escapes as what they stand for', () => {
  const s = new SseScanner();
  s.push(Buffer.from(chunk({ choices: [{ delta: { role: 'assistant', content: '' } }] })));
  s.push(Buffer.from(chunk({ choices: [{ delta: { reasoning_content: 'think' } }] })));
  s.push(Buffer.from(chunk({ choices: [{ delta: { content: 'say "hi"\n' } }] })));
  s.push(Buffer.from(chunk({ choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '{"a":1}' } }] } }] })));
  s.push(Buffer.from(chunk({ choices: [{ delta: { content: null }, logprobs: { content: [] } }] })));
  // What a Python server with ensure_ascii sends for Hindi: each \uXXXX is one 3-byte character.
  s.push(Buffer.from('data: {"choices":[{"delta":{"content": "\\u0928\\u092e"}}]}\n\n'));
  assert.is(s.textBytes, 5 + Buffer.byteLength('say "hi"\n') + 7 + 6);
  assert.is(s.done, false);
});

test('stops counting text once usage is known, and counts the same whatever the chunk boundaries', () => {
  const text = chunk({ choices: [{ delta: { content: 'abc\\"' } }] }) + chunk({ choices: [{ delta: { content: 'नमस्ते' } }] });
  const bytes = Buffer.from(text + chunk({ choices: [], usage: USAGE }) + chunk({ choices: [{ delta: { content: 'late' } }] }));
  for (let size = 1; size <= 30; size++) {
    const s = new SseScanner();
    for (let i = 0; i < bytes.length; i += size) s.push(bytes.subarray(i, i + size));
    assert.is(s.textBytes, 5 + Buffer.byteLength('नमस्ते'), `chunk size ${size}`);
  }
});

test('[DONE] counts only at the start of a line, and doneAt says where it begins in the chunk that completed it', () => {
  const s = new SseScanner();
  s.push(Buffer.from(chunk({ choices: [{ delta: { content: 'data: [DONE]\n\ndata: [DONE]' } }] })));
  assert.is(s.done, false, 'inside generated text it is just text');
  assert.is(s.doneAt, DONE_NOT_HERE);
  const head = chunk({ choices: [] });
  s.push(Buffer.from(head + 'data: [DONE]\n\n'));
  assert.is(s.done, true);
  assert.is(s.doneAt, head.length);

  const split = new SseScanner();
  split.push(Buffer.from(head + 'data: [DO'));
  assert.is(split.done, false);
  assert.is(split.doneTail, 'data: [DO'.length, 'an unfinished line that may become [DONE]');
  split.push(Buffer.from('NE]\n\n'));
  assert.is(split.done, true);
  assert.is(split.doneAt, -1, 'began in an earlier chunk');
  assert.is(split.doneTail, 0);

  const other = new SseScanner();
  other.push(Buffer.from(head + 'data: {"ch'));
  assert.is(other.doneTail, 0, 'a partial line that cannot become [DONE] is not held');
});
test.run();
