import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { bearer, readSse } from '../support/wait.js';

// The gateway forwards the client's bytes: when something must change (the model id for the
// route, usage asked for on a stream, an extension member cut out), it is edited where it stands
// and every other byte is the client's. A body that could be read two ways (a field written
// twice, bytes that are not UTF-8) is re-serialised from what the gateway read.

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
  ['"model" written twice', '{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"model":"gpt-4o-mini"}',
    (p) => assert.is(p.model, 'gpt-4o-mini')],
  ['"max_tokens" written twice', '{"model":"gpt-4o-mini","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"max_tokens":9}',
    (p) => assert.is(p.max_tokens, 9)],
  ['an escaped top-level key', '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"max_tok\\u0065ns":9}',
    (p) => assert.is(p.max_tokens, 9)],
];

test('\\u escapes in the contents are forwarded as written', async () => {
  const text = '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"caf\\u00e9 \\ud83d\\ude00"}]}';
  const r = await send(text);
  assert.is(r.status, 200, r.answer);
  assert.is(r.upstream, text);
  assert.is(r.parsed.messages[0].content, 'café 😀');
});

const edited: [string, string, string][] = [
  ['the first member, an extension', '{"optimize":"price", "model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}',
    '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}'],
  ['a middle member', '{"model":"gpt-4o-mini","data_policy":null ,"messages":[{"role":"user","content":"hi"}]}',
    '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}'],
  ['the last two members', '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}] , "provider":["openai"],\n"optimize":"latency" }',
    '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}] }'],
  ['every other member', '{"optimize":"price","model":"gpt-4o-mini","provider":"openai","messages":[{"role":"user","content":"hi"}],"data_policy":null}',
    '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}'],
];

for (const [what, text, expected] of edited) {
  test(`extension members are cut out in place: ${what}`, async () => {
    const r = await send(text);
    assert.is(r.status, 200, r.answer);
    assert.is(r.upstream, expected);
  });
}

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

test('a stream that does not ask for usage is made to, in place: the rest is the client\'s bytes', async () => {
  const text = '{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"hi"}]}';
  const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: text });
  const events = await readSse(res);
  assert.is(events.at(-1), '[DONE]');
  assert.is(mock.requests[0].rawBody, '{"stream_options":{"include_usage":true},"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"hi"}]}');
});

test('stream_options without include_usage keeps its other options, and the client still gets no usage chunk', async () => {
  const text = '{"model":"gpt-4o-mini","stream":true,"stream_options":{"include_obfuscation":false},"messages":[{"role":"user","content":"hi"}]}';
  const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: text });
  const events = await readSse(res);
  assert.is(events.at(-1), '[DONE]');
  assert.is(mock.requests[0].rawBody,
    '{"model":"gpt-4o-mini","stream":true,"stream_options":{"include_obfuscation":false,"include_usage":true},"messages":[{"role":"user","content":"hi"}]}');
  assert.not.ok(events.some((e) => e.includes('"usage":{')), 'the usage chunk the gateway asked for is not passed on');
});

test('a 300 KB conversation goes through unchanged, in pieces around a cut extension member', async () => {
  const long = 'x'.repeat(1000) + '\\n\\"';
  const messages = Array.from({ length: 300 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `${i} ${long}` }));
  const text = JSON.stringify({ model: 'gpt-4o-mini', messages, optimize: 'price' });
  const r = await send(text);
  assert.is(r.status, 200, r.answer);
  assert.is(r.upstream, JSON.stringify({ model: 'gpt-4o-mini', messages }));
});

test.run();
