// HTTP/2 to providers: a streamed request to an https provider whose TLS offers h2 goes as an
// HTTP/2 stream (many of them share one connection); short requests stay on HTTP/1.1; a provider
// that offers only HTTP/1.1 is served over it; `upstream.http2` turns the choice off or widens it.
// Real TLS mock providers on 127.0.0.1 (node:http2 with HTTP/1.1 allowed, and node:https), the
// gateway trusting the test certificate through NODE_EXTRA_CA_CERTS, the official openai SDK.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, streamText, type MockProvider } from '../support/mock-provider.js';
import { bearer, chatBody, readSse, waitFor } from '../support/wait.js';

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/', import.meta.url));
const TLS = { cert: readFileSync(FIXTURES + 'localhost-cert.pem'), key: readFileSync(FIXTURES + 'localhost-key.pem') };
const TRUST = { NODE_EXTRA_CA_CERTS: FIXTURES + 'localhost-cert.pem' };
const MODEL = 'llama-3.3-70b-instruct';

let h2: MockProvider;
let h1only: MockProvider;
let gw: GatewayProcess;
let key: string;
let client: OpenAI;

test.before(async () => {
  h2 = await startMockProvider({ tls: TLS, h2: true });
  h1only = await startMockProvider({ tls: TLS });
  gw = await startGateway({
    breaker: { volumeThreshold: 100_000 },
    limits: { gatewayRpm: 100_000 },
    providers: { groq: { baseUrl: h2.url, apiKey: 'k-groq' }, together: { baseUrl: h1only.url, apiKey: 'k-together' } },
  }, TRUST);
  ({ key } = await gw.orgAndKey({ credit: 100 }));
  client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
test.after(async () => {
  await gw.cleanup();
  await h2.close();
  await h1only.close();
});
test.before.each(() => {
  h2.reset();
  h1only.reset();
});

interface UpstreamLoad { h2_sessions: number; h2_streams: number; open: number }
const health = async (): Promise<UpstreamLoad> => ((await (await fetch(`${gw.url}/health`)).json()) as { upstream: UpstreamLoad }).upstream;

test('a streamed request goes to an h2 provider as an HTTP/2 stream; a plain one over HTTP/1.1', async () => {
  h2.setDefault({ kind: 'stream', chunks: 5 });
  const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true,
    stream_options: { include_usage: true } });
  let text = '';
  let usage: unknown = null;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
    if (chunk.usage) usage = chunk.usage;
  }
  assert.is(text, streamText(5));
  assert.ok(usage, 'the usage chunk came through');
  h2.setDefault({ kind: 'ok' });
  const plain = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
  assert.is(plain.choices[0].message.content, 'mock reply');
  assert.equal(h2.requests.map((r) => r.httpVersion), ['2.0', '1.1']);
  const sent = h2.requests[0];
  assert.is(sent.path, '/v1/chat/completions');
  assert.is(sent.headers.authorization, 'Bearer k-groq');
  assert.is(sent.headers['accept-encoding'], 'identity');
  assert.is(Number(sent.headers['content-length']), sent.rawBytes.length);
  assert.is(sent.body.model, 'llama-3.3-70b-versatile');
});

test('thirty concurrent streams share one HTTP/2 connection, and /health and /metrics count them', async () => {
  h2.setDefault({ kind: 'stream', chunks: 4, intervalMs: 150 });
  const before = await health();
  const streams = Array.from({ length: 30 }, () => fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST', headers: bearer(key), body: chatBody({ model: MODEL, stream: true }),
  }));
  const held = await waitFor(async () => {
    const h = await health();
    return h.h2_streams === 30 ? h : null;
  }, 5000, 'thirty streams in flight');
  assert.is(held!.h2_sessions, 1);
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  assert.match(metrics, /gw_upstream_h2\{state="streams"\} 30/);
  assert.match(metrics, /gw_upstream_h2\{state="sessions"\} 1/);
  for (const r of await Promise.all(streams)) {
    assert.is(r.status, 200);
    const events = await readSse(r);
    assert.is(events.at(-1), '[DONE]');
  }
  assert.is((await health()).open, before.open, 'no HTTP/1.1 socket was opened for them');
  assert.ok(h2.requests.every((r) => r.httpVersion === '2.0'));
});

test('fast streams, twenty at a time, each arrives whole: a head and body read together lose nothing', async () => {
  // node:http2 emits a stream's 'response' a tick after its HEADERS frame; a first version read
  // DATA of the same read before it and dropped it (3–14 streams in 1,000 answered 502).
  h2.setDefault({ kind: 'stream', chunks: 10 });
  let failed = 0;
  const one = async (): Promise<void> => {
    // Pinned to the h2 provider: a failover to the other one would hide a lost answer.
    const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key),
      body: chatBody({ model: MODEL, stream: true, provider: 'groq' }) });
    const text = await r.text();
    if (r.status !== 200 || !text.endsWith('data: [DONE]\n\n')) failed++;
  };
  for (let round = 0; round < 100; round++) await Promise.all(Array.from({ length: 10 }, one));
  assert.is(failed, 0, `${failed} of 1,000 streams failed`);
});

test('a provider that offers only HTTP/1.1 serves streams over it', async () => {
  h1only.setDefault({ kind: 'stream', chunks: 3 });
  for (let i = 0; i < 3; i++) {
    const r = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST', headers: bearer(key), body: chatBody({ model: MODEL, stream: true, provider: 'together' }),
    });
    assert.is(r.status, 200);
    assert.is((await readSse(r)).at(-1), '[DONE]');
  }
  assert.equal(h1only.requests.map((q) => q.httpVersion), ['1.1', '1.1', '1.1']);
});

test('a client that goes away cancels its HTTP/2 stream at the provider; the connection serves on', async () => {
  h2.setDefault({ kind: 'stream', chunks: 50, intervalMs: 100 });
  const ac = new AbortController();
  const r = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST', headers: bearer(key), body: chatBody({ model: MODEL, stream: true }), signal: ac.signal,
  });
  const reader = r.body!.getReader();
  await reader.read();
  ac.abort();
  await h2.waitForAbort(5000);
  h2.setDefault({ kind: 'stream', chunks: 2 });
  const next = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody({ model: MODEL, stream: true }) });
  assert.is((await readSse(next)).at(-1), '[DONE]');
  assert.is((await health()).h2_sessions, 1);
});

test('a stream reset before its answer fails over to the next route; one reset mid-way ends with an error event', async () => {
  h2.enqueue({ kind: 'reset' });
  h1only.setDefault({ kind: 'stream', chunks: 2 });
  const failedOver = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody({ model: MODEL, stream: true }) });
  assert.is(failedOver.status, 200);
  assert.is(failedOver.headers.get('x-gw-provider'), 'together');
  assert.is((await readSse(failedOver)).at(-1), '[DONE]');

  h2.enqueue({ kind: 'cut', afterChunks: 2 });
  const cut = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody({ model: MODEL, stream: true }) });
  assert.is(cut.status, 200);
  assert.is(cut.headers.get('x-gw-provider'), 'groq');
  const events = await readSse(cut);
  const error = events.find((e) => e.startsWith('{"error"'));
  assert.ok(error, `an error event: ${events.join(' | ')}`);
  assert.match(error!, /upstream/);
});

test('upstream.http2 "off" keeps streams on HTTP/1.1; "all" sends plain requests over HTTP/2 too', async () => {
  for (const [mode, expected] of [['off', ['1.1', '1.1']], ['all', ['2.0', '2.0']]] as const) {
    const other = await startGateway({ upstream: { http2: mode }, providers: { groq: { baseUrl: h2.url, apiKey: 'k-groq' } } }, TRUST);
    try {
      const { key: k } = await other.orgAndKey({ credit: 10 });
      h2.reset();
      h2.setDefault({ kind: 'ok' });
      const plain = await fetch(`${other.url}/v1/chat/completions`, { method: 'POST', headers: bearer(k), body: chatBody({ model: MODEL }) });
      assert.is(plain.status, 200);
      h2.setDefault({ kind: 'stream', chunks: 2 });
      const streamed = await fetch(`${other.url}/v1/chat/completions`, { method: 'POST', headers: bearer(k), body: chatBody({ model: MODEL, stream: true }) });
      assert.is((await readSse(streamed)).at(-1), '[DONE]');
      assert.equal(h2.requests.map((r) => r.httpVersion), [...expected], mode);
    } finally {
      await other.cleanup();
    }
  }
});

test.run();
