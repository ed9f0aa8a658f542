import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { bearer, readSse } from '../support/wait.js';

// When nothing in a body needs changing, the gateway forwards the client's bytes; whenever a
// field is stripped, swapped or injected, or the text could be read two ways, it re-serialises.

let gw: GatewayProcess;
let mock: MockProvider;
let key: string;

test.before(async () => {
  mock = await startMockProvider();
  // openai's catalog id for gpt-4o-mini is its upstream id, so nothing needs swapping.
  gw = await startGateway({ providers: { openai: { baseUrl: mock.url, apiKey: 'sk-openai-platform' } } });
  ({ key } = await gw.orgAndKey());
});
test.after(async () => {
  await gw.cleanup();
  await mock.close();
});
test.before.each(() => mock.reset());

async function send(text: string): Promise<{ status: number; upstream: string; parsed: any; answer: string }> {
  const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: text });
  const answer = await r.text();
  const up = mock.requests[0];
  return { status: r.status, upstream: up?.rawBody ?? '', parsed: up?.body, answer };
}

test('a body with nothing to change reaches the provider byte for byte', async () => {
  const text = `{ "messages" : [ {"role":"user","content":"नमस्ते, \\"quoted\\" text\\n"} ],\n  "temperature": 1.0, "n": 1e0,\n  "model": "gpt-4o-mini", "seed": 7 }`;
  const r = await send(text);
  assert.is(r.status, 200, r.answer);
  assert.is(r.upstream, text);
});

test('a body that is not valid UTF-8 is re-serialised, so the provider reads what the gateway read', async () => {
  const sent = Buffer.concat([Buffer.from('{"model":"gpt-4o-mini","messages":[{"role":"user","content":"a'), Buffer.from([0xff, 0xc0, 0xa2]),
    Buffer.from('b"}]}')]);
  const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: sent });
  assert.is(r.status, 200, await r.text());
  const up = mock.requests[0].rawBytes;
  assert.not.ok(up.equals(sent), 'the invalid bytes were not sent on');
  assert.ok(Buffer.from(up.toString('utf8'), 'utf8').equals(up), 'what the provider got is valid UTF-8');
  assert.is(JSON.parse(up.toString('utf8')).messages[0].content, 'a\ufffd\ufffd\ufffdb');
});

const reserialised: [string, string, (p: any) => void][] = [
  ['an extension field', '{"model":"gpt-4o-mini","optimize":"price","messages":[{"role":"user","content":"hi"}]}',
    (p) => assert.not.ok('optimize' in p)],
  ['"model" written twice', '{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"model":"gpt-4o-mini"}',
    (p) => assert.is(p.model, 'gpt-4o-mini')],
  ['a \\u escape', '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"caf\\u00e9"}]}',
    (p) => assert.is(p.messages[0].content, 'café')],
  ['"max_tokens" written twice', '{"model":"gpt-4o-mini","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"max_tokens":9}',
    (p) => assert.is(p.max_tokens, 9)],
];

for (const [what, text, check] of reserialised) {
  test(`a body with ${what} is re-serialised, as the gateway read it`, async () => {
    const r = await send(text);
    assert.is(r.status, 200, r.answer);
    assert.is.not(r.upstream, text);
    assert.equal(JSON.parse(r.upstream), r.parsed);
    assert.is(r.upstream.split('"model"').length - 1, 1, 'one model field upstream');
    check(r.parsed);
  });
}

test('"stream" written twice: the request is served as the gateway read it, and re-serialised', async () => {
  const text = '{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"hi"}],"stream":false}';
  const r = await send(text);
  assert.is(r.status, 200);
  assert.is(r.parsed.stream, false);
  assert.is(JSON.parse(r.answer).object, 'chat.completion');
  assert.is(r.upstream.split('"stream"').length - 1, 1);
});

test('a stream that needs usage injected is re-serialised with stream_options', async () => {
  const text = '{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"hi"}]}';
  const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: text });
  const events = await readSse(res);
  assert.is(events.at(-1), '[DONE]');
  assert.equal(mock.requests[0].body.stream_options, { include_usage: true });
});

test.run();
