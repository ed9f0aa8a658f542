// The chat request the translations assemble around the messages written from the client's bytes
// (formats/chat-request-bytes.ts): the same bytes JSON.stringify gives for the request object,
// whatever the model and the members after messages hold (multi-byte text, astral characters,
// escapes, short ones given room for their most bytes and long ones counted), and nothing after.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assembleChatRequest } from '../../src/formats/chat-request-bytes.js';
import { rng } from '../support/seeded-random.js';

const PIECES = ['a', 'Z', '0', ' ', '"', '\\', '\n', 'é', 'ß', '中', '文', '😀', '𝄞', '\u2028', '\u0001', '-', '/'];

function text(r: () => number, max: number): string {
  const n = Math.floor(r() * max);
  let s = '';
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(r() * PIECES.length)];
  return s;
}

test('assembled requests are JSON.stringify\'s bytes of the request, every string length and kind', () => {
  const r = rng(17);
  const messages = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'héllo 😀' }];
  const written = Buffer.from(messages.map((m) => JSON.stringify(m)).join(','));
  for (let i = 0; i < 3000; i++) {
    // Model ids and members after messages around the short/long boundary (256 UTF-16 units).
    const model = i % 7 === 0 ? 'x'.repeat(250 + (i % 20)) : text(r, 40) || 'm';
    const stops = Array.from({ length: Math.floor(r() * 4) }, () => text(r, i % 5 === 0 ? 120 : 12));
    const options: Record<string, unknown> = { max_tokens: i };
    if (stops.length > 0) options.stop = stops;
    if (i % 3 === 0) options.user = text(r, 300);
    const withSystem = i % 2 === 0;
    const system = withSystem ? text(r, 30) : null;
    const rest = i % 11 === 0 ? '{}' : JSON.stringify(options);
    const req = assembleChatRequest(model, system === null ? null : Buffer.from(JSON.stringify(system)), rest, written, 0, written.length);
    const all = system === null ? messages : [{ role: 'system', content: system }, ...messages];
    const want = JSON.stringify({ model, messages: all, ...(JSON.parse(rest) as object) });
    assert.is(req.bytes.toString('utf8'), want, `request ${i}`);
    assert.is(req.bytes.length, Buffer.byteLength(want), `request ${i}: no bytes after the request`);
    assert.is(req.bytes.subarray(req.modelStart, req.modelEnd).toString('utf8'), JSON.stringify(model), `request ${i}: the model's span`);
  }
});

test('a request with no messages written and no members after them', () => {
  const req = assembleChatRequest('m', null, '{}', Buffer.alloc(0), 0, 0);
  assert.is(req.bytes.toString(), '{"model":"m","messages":[]}');
});

test.run();
