// Provider traffic through an HTTP forward proxy set the conventional way (HTTP_PROXY in the
// gateway's environment), as on a machine whose only way out is a proxy: the provider's name
// (groq.test) resolves only at the proxy, and loopback providers are reached directly.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startHttpProxy, type HttpProxy } from '../support/http-proxy.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { startSocksProxy } from '../support/socks-proxy.js';
import { bearer, chatBody } from '../support/wait.js';

let proxy: HttpProxy;
let groq: MockProvider;
let together: MockProvider;
let gw: GatewayProcess;
let key: string;
const AUTH = `Basic ${Buffer.from('gw:s3cret').toString('base64')}`;
const HOSTS = { 'groq.test': '127.0.0.1', 'together.test': '127.0.0.1' };
const named = (name: string, m: MockProvider) => `http://${name}.test:${m.port}/v1`;

const post = (body: string) => fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body });

test.before(async () => {
  proxy = await startHttpProxy({ user: 'gw', password: 's3cret', hosts: HOSTS });
  groq = await startMockProvider();
  together = await startMockProvider();
  gw = await startGateway({
    logLevel: 'info',
    breaker: { volumeThreshold: 100_000 },
    providers: { groq: { baseUrl: named('groq', groq), apiKey: 'k1' }, together: { baseUrl: together.url, apiKey: 'k2' } },
  }, { HTTP_PROXY: `http://gw:s3cret@127.0.0.1:${proxy.port}` });
  ({ key } = await gw.orgAndKey());
});
test.after(async () => {
  await gw.cleanup();
  for (const m of [groq, together]) await m.close();
  await proxy.close();
});
test.before.each(() => {
  for (const m of [groq, together]) m.reset();
  proxy.log.length = 0;
});

test('start-up names the proxy, never its credentials', () => {
  const line = gw.lines.find((l) => l.includes('forward proxy'));
  assert.ok(line, 'a start-up line about the proxy');
  assert.ok(line!.includes(`"http":"http://127.0.0.1:${proxy.port}"`), line);
  assert.not.ok(line!.includes('s3cret'), 'no password in the log');
});

test('plain-http providers are reached through the proxy in absolute form, with its credentials, kept alive', async () => {
  const connectionsBefore = proxy.connections;
  for (let i = 0; i < 3; i++) {
    const r = await post(chatBody());
    assert.is(r.status, 200);
    assert.is(r.headers.get('x-gw-provider'), 'groq');
  }
  assert.equal(proxy.log, Array.from({ length: 3 }, () => ({ method: 'POST', target: `${named('groq', groq)}/chat/completions`, authorization: AUTH })));
  assert.is(groq.requests.length, 3);
  assert.is(groq.requests[0].headers.authorization, 'Bearer k1', 'the provider credential passes through the proxy');
  assert.ok(proxy.connections - connectionsBefore <= 1, 'requests share a kept-alive connection to the proxy');
});

test('streams come through the proxy with usage in the last chunk', async () => {
  const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1` });
  const stream = await client.chat.completions.create({
    model: 'llama-3.3-70b-instruct', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true },
  });
  let usage = null;
  for await (const chunk of stream) usage = chunk.usage ?? usage;
  assert.ok(usage, 'usage arrived');
  assert.is(proxy.log.length, 1);
});

test('a provider on loopback is reached directly, never through the proxy', async () => {
  const r = await post(chatBody({ provider: 'together' }));
  assert.is(r.status, 200);
  assert.is(r.headers.get('x-gw-provider'), 'together');
  assert.is(together.requests.length, 1);
  assert.equal(proxy.log, [], 'the proxy never saw it');
});

test('an https provider is reached through a CONNECT tunnel, its certificate checked against its name', async () => {
  const fixtures = fileURLToPath(new URL('../../../test/fixtures/', import.meta.url));
  const secure = await startMockProvider({ tls: { cert: readFileSync(fixtures + 'localhost-cert.pem'), key: readFileSync(fixtures + 'localhost-key.pem') } });
  const gw3 = await startGateway({
    providers: { groq: { baseUrl: `https://groq.test:${secure.port}/v1`, apiKey: 'k1' } },
  }, { HTTPS_PROXY: `gw:s3cret@127.0.0.1:${proxy.port}`, NODE_EXTRA_CA_CERTS: fixtures + 'localhost-cert.pem' });
  try {
    const { key: key3 } = await gw3.orgAndKey();
    for (let i = 0; i < 2; i++) {
      const r = await fetch(`${gw3.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key3), body: chatBody({ provider: 'groq' }) });
      assert.is(r.status, 200, await r.clone().text());
      assert.is(r.headers.get('x-gw-provider'), 'groq');
    }
    assert.equal(proxy.log, [{ method: 'CONNECT', target: `groq.test:${secure.port}`, authorization: AUTH }], 'one tunnel, kept alive');
    assert.is(secure.requests.length, 2);
    assert.is(secure.requests[0].headers.host, `groq.test:${secure.port}`);
  } finally {
    await gw3.cleanup();
    await secure.close();
  }
});

test('ALL_PROXY=socks5h://…: https and plain-http providers through SOCKS5 tunnels, streams included, names resolved by the proxy', async () => {
  const fixtures = fileURLToPath(new URL('../../../test/fixtures/', import.meta.url));
  const secure = await startMockProvider({ tls: { cert: readFileSync(fixtures + 'localhost-cert.pem'), key: readFileSync(fixtures + 'localhost-key.pem') } });
  const socks = await startSocksProxy({ user: 'gw', password: 's3cret', hosts: HOSTS });
  const gw4 = await startGateway({
    logLevel: 'info',
    breaker: { volumeThreshold: 100_000 },
    providers: { groq: { baseUrl: `https://groq.test:${secure.port}/v1`, apiKey: 'k1' }, together: { baseUrl: named('together', together), apiKey: 'k2' } },
  }, { ALL_PROXY: `socks5h://gw:s3cret@127.0.0.1:${socks.port}`, NODE_EXTRA_CA_CERTS: fixtures + 'localhost-cert.pem' });
  try {
    const line = gw4.lines.find((l) => l.includes('forward proxy'));
    assert.ok(line?.includes(`"https":"socks5h://127.0.0.1:${socks.port}"`), line);
    assert.not.ok(line!.includes('s3cret'));
    const { key: key4 } = await gw4.orgAndKey();
    const client = new OpenAI({ apiKey: key4, baseURL: `${gw4.url}/v1`, maxRetries: 0 });
    for (const provider of ['groq', 'together', 'groq']) {
      const { data, response } = await client.chat.completions.create({
        model: 'llama-3.3-70b-instruct', messages: [{ role: 'user', content: 'hi' }], provider,
      } as any).withResponse();
      assert.is(response.headers.get('x-gw-provider'), provider);
      assert.ok(data.usage);
    }
    const stream = await client.chat.completions.create({ model: 'llama-3.3-70b-instruct', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const c of stream) text += c.choices[0]?.delta?.content ?? '';
    assert.ok(text.length > 0);
    // The stream's connect offered h2 as well (upstream.http2 "streams"); this provider chose
    // HTTP/1.1, so that tunnel joined the pool: a second one to groq, once.
    assert.equal(socks.log.map((e) => `${e.addressType} ${e.host}:${e.port} ${e.user}`),
      [`domain groq.test:${secure.port} gw`, `domain together.test:${together.port} gw`, `domain groq.test:${secure.port} gw`],
      'one tunnel per origin kept alive, and the stream\'s h2 offer');
    assert.is(secure.requests.length, 3);
    assert.is(together.requests.length, 1);
  } finally {
    await gw4.cleanup();
    await socks.close();
    await secure.close();
  }
});

test('a proxy that refuses the credentials fails the route over, and all_routes_failed says why', async () => {
  const strict = await startHttpProxy({ user: 'gw', password: 'other', hosts: HOSTS });
  const gw2 = await startGateway({
    breaker: { volumeThreshold: 100_000 },
    providers: { groq: { baseUrl: named('groq', groq), apiKey: 'k1' }, together: { baseUrl: named('together', together), apiKey: 'k2' } },
  }, { http_proxy: `http://gw:s3cret@127.0.0.1:${strict.port}` });
  try {
    const { key: key2 } = await gw2.orgAndKey();
    const r = await fetch(`${gw2.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key2), body: chatBody() });
    assert.is(r.status, 502);
    const e = (await r.json() as any).error;
    assert.is(e.code, 'all_routes_failed');
    assert.match(e.message, /upstream 407: .*proxy refused the gateway's credentials/);
    assert.is(strict.log.length, 2, 'both routes tried through the proxy');
    assert.is(groq.requests.length + together.requests.length, 0);
  } finally {
    await gw2.cleanup();
    await strict.close();
  }
});

test.run();
