import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { messagesBody } from '../../src/dataplane/messages-body.js';
import { readMessages, translateMessages } from '../../src/formats/messages/request.js';
import { estimatePromptTokens, tokensForBytes } from '../../src/billing/token-estimate.js';

// A translated Messages stream's message_start estimate (dataplane/messages-body.ts,
// inputEstimate), for requests written from the client's bytes: under 16 KB the translation's
// figure, whether it is read off the strings' spans or from the written request; from 16 KB on,
// the written request's size. Every body names its model first, a model no Anthropic route
// serves, as the data plane sees a request for another provider.

const OTHER = (): boolean => false;

/** The estimate of the translation as objects: the figure a small request must get. */
function translated(raw: Buffer): number {
  return estimatePromptTokens('chat', translateMessages(readMessages(raw)));
}

function body(v: Record<string, unknown>): Buffer {
  return Buffer.from(JSON.stringify({ model: 'llama-3.3-70b', max_tokens: 100, ...v, stream: true }));
}

const CASES: [string, Buffer][] = [
  ['one string message', body({ messages: [{ role: 'user', content: 'hello' }] })],
  ['strings with escapes and multi-byte text, a system prompt', body({ system: 'be "brief"\n', messages: [{ role: 'user', content: 'नमस्ते\t"x"' }, { role: 'assistant', content: '' }, { role: 'user', content: 'é/€' }] })],
  ['an empty system prompt', body({ system: '', messages: [{ role: 'user', content: 'hi' }] })],
  ['text blocks', body({ messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b "c"' }] }] })],
  ['a system of blocks', body({ system: [{ type: 'text', text: 'You are Claude Code.' }], messages: [{ role: 'user', content: 'hi' }] })],
  ['tool use and results', body({ messages: [
    { role: 'user', content: 'run it' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a\nb' }] },
  ] })],
  ['tools', body({ tools: [{ name: 'Bash', description: 'runs a command', input_schema: { type: 'object' } }], messages: [{ role: 'user', content: 'hi' }] })],
  ['other members', body({ temperature: 0.5, stop_sequences: ['END'], metadata: { user_id: 'u' }, messages: [{ role: 'user', content: 'hi' }] })],
];

test('under 16 KB, a written request\'s estimate is the translation\'s, however it is read', () => {
  for (const [name, raw] of CASES) {
    const b = messagesBody(raw, '', OTHER);
    assert.ok(b.raw !== null, `${name}: written from the client's bytes`);
    assert.is(b.inputEstimate(), translated(raw), name);
  }
  assert.is(messagesBody(CASES[0][1], '', OTHER).inputEstimate(), 8, '"hello": priming 3, the message 3, its text 2');
});

test('from 16 KB on, the estimate is the written chat request\'s size at four bytes a token', () => {
  const messages = Array.from({ length: 30 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `turn ${i}: ${'x'.repeat(600)}` }));
  const raw = body({ messages });
  assert.ok(raw.length >= 16 * 1024);
  const b = messagesBody(raw, '', OTHER);
  assert.ok(b.raw !== null);
  assert.is(b.inputEstimate(), tokensForBytes(b.raw!.given.length));
  assert.ok(b.inputEstimate() > translated(raw), 'a little over the text\'s own');
});

test.run();
