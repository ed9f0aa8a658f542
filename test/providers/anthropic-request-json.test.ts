// The Messages request written around its turns and text blocks (request-json.ts) against
// JSON.stringify of the body toMessagesRequest builds: the same text, whatever the request holds.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { anthropicAdapter } from '../../src/providers/anthropic/adapter.js';
import { markStablePrefix } from '../../src/providers/anthropic/cache-markers.js';
import { toMessagesRequest } from '../../src/providers/anthropic/request.js';
import { messagesRequestJson } from '../../src/providers/anthropic/request-json.js';
import { fixtureJson } from './anthropic-fixtures.js';

const TEXTS = ['', 'hi', 'Sé "breve".\nनमस्ते 😀', 'tab\there \\ back', '\u0001control', 'lone \ud800 half', 'x'.repeat(40), `${'long plain text '.repeat(300)}`];

/** A chat request of random turns: strings and parts, images, tool calls and results, cache_control on parts and messages. */
function randomChat(seed: number): Record<string, unknown> {
  let s = seed;
  const next = (n: number): number => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s % n;
  };
  const text = (): string => TEXTS[next(TEXTS.length)] || 'a';
  const cache = (): Record<string, unknown> => (next(4) === 0 ? { cache_control: { type: 'ephemeral', ttl: next(2) === 0 ? '5m' : '1h' } } : {});
  const part = (): Record<string, unknown> => (next(5) === 0
    ? { type: 'image_url', image_url: { url: next(2) === 0 ? 'https://example.com/a.png' : 'data:image/png;base64,AAAA' }, ...cache() }
    : { type: 'text', text: text(), ...cache() });
  const content = (): unknown => (next(2) === 0 ? text() : Array.from({ length: 1 + next(3) }, part));
  const messages: Record<string, unknown>[] = [];
  if (next(2) === 0) messages.push({ role: next(2) === 0 ? 'system' : 'developer', content: text(), ...cache() });
  const turns = 1 + next(6);
  for (let i = 0; i < turns; i++) {
    switch (next(4)) {
      case 0:
        messages.push({ role: 'assistant', content: next(3) === 0 ? null : content(), tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'f', arguments: '{"a":"x"}' } }] });
        messages.push({ role: 'tool', tool_call_id: `call_${i}`, content: text(), ...cache() });
        break;
      case 1:
        messages.push({ role: 'assistant', content: content(), ...cache() });
        break;
      default:
        messages.push({ role: 'user', content: content(), ...cache() });
    }
  }
  const chat: Record<string, unknown> = { model: 'claude-sonnet-4-5', messages };
  if (next(2) === 0) chat.stream = true;
  if (next(2) === 0) chat.temperature = 0.5;
  if (next(2) === 0) chat.stop = ['END', 'STOP "now"'];
  if (next(3) === 0) chat.user = 'u-1';
  if (next(3) === 0) chat.tools = [{ type: 'function', function: { name: 'f', description: 'does "f"', parameters: { type: 'object', properties: { a: { type: 'string' } } } } }];
  return chat;
}

test('the golden requests: the same text as JSON.stringify', () => {
  for (const name of ['request-basic.chat.json', 'request-tools.chat.json']) {
    const body = toMessagesRequest(fixtureJson(name), 'claude-sonnet-4-5-20250929');
    assert.is(messagesRequestJson(body), JSON.stringify(body), name);
  }
});

test('400 random requests, with and without prompt-cache markers: the same text as JSON.stringify', () => {
  for (let seed = 1; seed <= 400; seed++) {
    const body = toMessagesRequest(randomChat(seed), 'claude-haiku-4-5');
    assert.is(messagesRequestJson(body), JSON.stringify(body), `seed ${seed}`);
    // A long enough prefix gets the markers (system's last block, the last tool).
    const marked = toMessagesRequest({ ...randomChat(seed), messages: [{ role: 'system', content: 'p'.repeat(7000) }, ...(randomChat(seed).messages as unknown[])] }, 'claude-haiku-4-5');
    markStablePrefix(marked, 'claude-haiku-4-5');
    assert.is(messagesRequestJson(marked), JSON.stringify(marked), `seed ${seed}, marked`);
  }
});

test('the adapter sends that text', () => {
  const chat = randomChat(7);
  const call = anthropicAdapter.buildCall('chat', structuredClone(chat), 'claude-haiku-4-5', { streamOptions: false });
  assert.is(call.body, JSON.stringify(toMessagesRequest(chat, 'claude-haiku-4-5')));
});

test.run();
