// Every answer names its request in x-request-id (what the OpenAI SDKs read into `requestID`),
// one id per request, the ledger's on inference; and every 401 of an API-key route carries a
// Bearer challenge (RFC 9110), so MCP clients do not take it for an OAuth server's.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI, { APIError } from 'openai';
import { connect } from 'node:net';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { query, waitForValue } from '../support/ledger.js';
import { signIn, type Browser } from '../support/session.js';
import { bearer } from '../support/wait.js';

let gw: GatewayProcess;
let key: string;
let client: OpenAI;
let browser: Browser;

test.before(async () => {
  gw = await startGateway();
  ({ key } = await gw.orgAndKey());
  client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  browser = await signIn(gw, 'ids@example.com');
});
test.after(async () => {
  await gw.cleanup();
});

const ID = /^[0-9a-z]+-[0-9a-z]+$/;
const ledgerRow = (requestId: string) => waitForValue(
  () => query(gw.dbPath, (db) => db.prepare('SELECT request_id, model FROM usage WHERE request_id = ?').get(requestId) as any),
  5_000, `the ledger row of ${requestId}`);

test('a chat answer carries x-request-id, the SDK reads it, and the ledger row has the same id', async () => {
  const { response } = await client.chat.completions.create({ model: 'sandbox/echo', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
  const id = response.headers.get('x-request-id')!;
  assert.match(id, ID);
  assert.is(response.headers.get('x-gw-request-id'), id, 'the older header names the same request');
  assert.is((await ledgerRow(id)).model, 'sandbox/echo');
  const completion = await client.chat.completions.create({ model: 'sandbox/echo', messages: [{ role: 'user', content: 'again' }] });
  assert.match(completion._request_id ?? '', ID);
  assert.is.not(completion._request_id, id);
  assert.is((await ledgerRow(completion._request_id!)).request_id, completion._request_id);
});

test('a streamed answer carries x-request-id, the ledger row\'s', async () => {
  const { data: stream, response } = await client.chat.completions.create({
    model: 'sandbox/echo', messages: [{ role: 'user', content: 'hi' }], stream: true,
  }).withResponse();
  for await (const _ of stream) { /* drain */ }
  const id = response.headers.get('x-request-id')!;
  assert.match(id, ID);
  assert.is((await ledgerRow(id)).request_id, id);
});

test('an APIError from the SDK has the requestID of its answer, for 400, 401 and 404 alike', async () => {
  const seen = new Set<string>();
  const calls: [OpenAI, Record<string, unknown>, number][] = [
    [client, { model: 'sandbox/echo', messages: [] }, 400],
    [client, { model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }, 404],
    [new OpenAI({ apiKey: 'gw-wrong', baseURL: `${gw.url}/v1`, maxRetries: 0 }), { model: 'sandbox/echo', messages: [{ role: 'user', content: 'hi' }] }, 401],
  ];
  for (const [c, body, status] of calls) {
    try {
      await c.chat.completions.create(body as never);
      assert.unreachable('should have failed');
    } catch (e) {
      assert.instance(e, APIError);
      const err = e as APIError;
      assert.is(err.status, status);
      assert.match(err.requestID ?? '', ID, `requestID on ${status}`);
      seen.add(err.requestID!);
    }
  }
  assert.is(seen.size, 3, 'one id per request');
});

test('control routes, public reads, 404 and 405 answers all carry their own x-request-id', async () => {
  const answers = await Promise.all([
    fetch(`${gw.url}/health`),
    fetch(`${gw.url}/v1/models`),
    fetch(`${gw.url}/openapi.json`),
    fetch(`${gw.url}/llms.txt`),
    browser.get('/me'),
    fetch(`${gw.url}/me`),
    browser.send('PATCH', '/me', { name: 'Ids' }),
    fetch(`${gw.url}/no/such/path`),
    fetch(`${gw.url}/v1/models`, { method: 'DELETE' }),
    fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: bearer(key), body: '{' }),
  ]);
  const ids = answers.map((r) => r.headers.get('x-request-id') ?? `missing on ${r.url} (${r.status})`);
  for (const id of ids) assert.match(id, ID);
  assert.is(new Set(ids).size, ids.length, 'no two answers share an id');
  await Promise.all(answers.map((r) => r.arrayBuffer()));
});

const UPLOAD = (): FormData => {
  const f = new FormData();
  f.set('model', 'whisper-1');
  f.set('file', new Blob([Buffer.alloc(64)], { type: 'audio/wav' }), 'a.wav');
  return f;
};

test('every 401 of an API-key route carries WWW-Authenticate: Bearer, /mcp and uploads included', async () => {
  const bad = { authorization: 'Bearer gw-wrong' };
  const refusals = await Promise.all([
    fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', body: '{}' }),
    fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bad, body: '{}' }),
    fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: bad, body: '{}' }),
    fetch(`${gw.url}/v1/audio/speech`, { method: 'POST', headers: bad, body: '{}' }),
    fetch(`${gw.url}/v1/audio/transcriptions`, { method: 'POST', headers: bad, body: UPLOAD() }),
    fetch(`${gw.url}/v1/audio/translations`, { method: 'POST', body: UPLOAD() }),
    fetch(`${gw.url}/mcp`, {
      method: 'POST', headers: { ...bad, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    }),
  ]);
  for (const r of refusals) {
    assert.is(r.status, 401, r.url);
    assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer\b/, r.url);
    assert.is(((await r.json()) as any).error.code, 'invalid_api_key');
  }
  // A session route's 401 is about the cookie: no Bearer challenge there.
  const me = await fetch(`${gw.url}/me`);
  assert.is(me.status, 401);
  assert.is(me.headers.get('www-authenticate'), null);
  await me.arrayBuffer();
});

/** One raw request on its own connection: the answer's head lines as sent, and its body. */
function rawHead(path: string, authorization: string, body: string): Promise<{ lines: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    const s = connect(gw.port, '127.0.0.1');
    let text = '';
    s.setEncoding('latin1');
    s.on('data', (d) => {
      text += d;
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const lines = text.slice(0, end).split('\r\n');
      const length = lines.find((l) => l.startsWith('Content-Length: '));
      const rest = text.slice(end + 4);
      if (length ? rest.length >= Number(length.slice(16)) : rest.endsWith('0\r\n\r\n')) {
        s.destroy();
        resolve({ lines, body: rest });
      }
    });
    s.on('error', reject);
    s.write(`POST ${path} HTTP/1.1\r\nHost: gw\r\nAuthorization: ${authorization}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
}

test('the head of an answer is each header on its own line, in order, then uWS\'s own', async () => {
  const chat = JSON.stringify({ model: 'sandbox/echo', messages: [{ role: 'user', content: 'hi' }] });
  const plain = await rawHead('/v1/chat/completions', `Bearer ${key}`, chat);
  const id = plain.lines[2].slice('x-request-id: '.length);
  assert.match(id, ID);
  assert.equal(plain.lines.filter((l) => !l.startsWith('Date: ')), [
    'HTTP/1.1 200 OK', 'content-type: application/json', `x-request-id: ${id}`, 'x-gw-provider: sandbox', `x-gw-request-id: ${id}`,
    'x-gw-upstream-model: echo', 'uWebSockets: 20', `Content-Length: ${Buffer.byteLength(plain.body)}`,
  ]);
  const streamed = await rawHead('/v1/chat/completions', `Bearer ${key}`, JSON.stringify({ ...JSON.parse(chat), stream: true }));
  const sid = streamed.lines[3].slice('x-request-id: '.length);
  assert.match(sid, ID);
  // The sandbox's stream is all there at once, so it may go out with a length rather than chunked.
  const framing = streamed.lines.pop()!;
  assert.match(framing, /^(Content-Length: \d+|Transfer-Encoding: chunked)$/);
  assert.equal(streamed.lines.filter((l) => !l.startsWith('Date: ')), [
    'HTTP/1.1 200 OK', 'content-type: text/event-stream; charset=utf-8', 'cache-control: no-cache', `x-request-id: ${sid}`,
    'x-gw-provider: sandbox', `x-gw-request-id: ${sid}`, 'x-gw-upstream-model: echo', 'uWebSockets: 20',
  ]);
  const refused = await rawHead('/v1/chat/completions', 'Bearer gw-wrong', chat);
  const rid = refused.lines[2].slice('x-request-id: '.length);
  assert.equal(refused.lines.filter((l) => !l.startsWith('Date: ')), [
    'HTTP/1.1 401 Unauthorized', 'content-type: application/json', `x-request-id: ${rid}`, 'www-authenticate: Bearer realm="gw"',
    'uWebSockets: 20', `Content-Length: ${Buffer.byteLength(refused.body)}`,
  ]);
});

test.run();
