import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import {
  constants, createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Session,
} from 'node:http2';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { H2Origin, type H2Options } from '../../src/upstream/h2-origin.js';
import type { TunnelProxy } from '../../src/upstream/connector.js';
import { OriginPool } from '../../src/upstream/origin-pool.js';
import type { RequestControl } from '../../src/upstream/response-sink.js';
import { startHttpProxy } from '../support/http-proxy.js';
import { Collector } from '../support/response-collector.js';
import { waitFor } from '../support/wait.js';

// The gateway's HTTP/2 sessions (node:http2 over its own connector) against real TLS servers on
// 127.0.0.1 that offer h2, or only HTTP/1.1, or misbehave on purpose.

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/', import.meta.url));
const CERT = readFileSync(FIXTURES + 'localhost-cert.pem');
const KEY = readFileSync(FIXTURES + 'localhost-key.pem');
const OPTIONS: H2Options = { sessions: 8, connectTimeoutMs: 2000, headersTimeoutMs: 2000, bodyTimeoutMs: 2000, idleTimeoutMs: 30_000 };

type Handler = (req: Http2ServerRequest, res: Http2ServerResponse, body: string) => void;

interface Listening<T> {
  server: T;
  port: number;
  /** TCP connections the server accepted, open or closed. */
  accepted: number;
  sockets: Set<Socket>;
  sessions: ServerHttp2Session[];
}

async function listen<T extends Http2SecureServer | HttpsServer | NetServer>(server: T): Promise<Listening<T>> {
  const l: Listening<T> = { server, port: 0, accepted: 0, sockets: new Set(), sessions: [] };
  server.on('connection', (s: Socket) => {
    l.accepted++;
    l.sockets.add(s);
    s.once('close', () => l.sockets.delete(s));
  });
  server.on('session', (s: ServerHttp2Session) => l.sessions.push(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  l.port = (server.address() as AddressInfo).port;
  return l;
}

/** An h2 server (HTTP/1.1 too, through allowHTTP1) that reads each body and hands it to `handler`. */
function h2Server(handler: Handler, settings: Record<string, number> = {}): Promise<Listening<Http2SecureServer>> {
  return listen(createSecureServer({ cert: CERT, key: KEY, allowHTTP1: true, settings }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => { body += c; });
    req.on('end', () => handler(req, res, body));
  }));
}

const echo: Handler = (req, res, body) => {
  const out = JSON.stringify({ version: req.httpVersion, path: req.url, authority: req.headers[':authority'], length: req.headers['content-length'], body });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
  res.end(out);
};

async function close(l: Listening<Http2SecureServer | HttpsServer | NetServer>): Promise<void> {
  for (const s of l.sockets) s.destroy();
  await new Promise<void>((r) => l.server.close(() => r()));
}

/** The HTTP/2 sessions of one origin, and its HTTP/1.1 pool as the fallback, the way the upstream client pairs them. */
function origin(port: number, options: Partial<H2Options> = {}, proxy?: TunnelProxy): { h2: H2Origin; pool: OriginPool; send(body: string, path?: string): Collector; close(): Promise<void> } {
  const pool = new OriginPool(new URL(`https://${proxy ? 'localhost' : '127.0.0.1'}:${port}`), { connections: 8, connectTimeoutMs: 2000, headersTimeoutMs: 2000,
    bodyTimeoutMs: 2000, idleTimeoutMs: 30_000, ca: CERT, proxy });
  const h2 = new H2Origin(pool.target, { ...OPTIONS, ...options }, (s) => pool.adopt(s));
  return {
    h2, pool,
    send(body: string, path = '/v1/chat/completions'): Collector {
      const c = new Collector();
      const headers = { ':method': 'POST', ':path': path, ':authority': `127.0.0.1:${port}`, 'content-type': 'application/json',
        'content-length': Buffer.byteLength(body) };
      const h1 = `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
      h2.request(headers, body, c, { send: () => pool.request(h1, c) });
      return c;
    },
    async close(): Promise<void> {
      await h2.close(100);
      await pool.close(100);
    },
  };
}

test('requests go over one HTTP/2 session as concurrent streams, headers and body as sent', async () => {
  const server = await h2Server(echo);
  const o = origin(server.port);
  try {
    const cs = [0, 1, 2, 3, 4].map((i) => o.send(`{"n":${i},"text":"नमस्ते"}`));
    const rs = await Promise.all(cs.map((c) => c.done));
    for (const [i, r] of rs.entries()) {
      assert.is(r.error, null);
      assert.is(r.status, 200);
      assert.is(r.contentType, 'application/json');
      const e = JSON.parse(r.body);
      assert.is(e.version, '2.0');
      assert.is(e.path, '/v1/chat/completions');
      assert.is(e.authority, `127.0.0.1:${server.port}`);
      assert.is(e.body, `{"n":${i},"text":"नमस्ते"}`);
      assert.is(Number(e.length), Buffer.byteLength(e.body), 'content-length in bytes');
    }
    assert.is(server.accepted, 1, 'five streams, one connection');
    assert.is(o.h2.support, 'h2');
    assert.equal(o.h2.load(), { sessions: 1, streams: 0 });
  } finally {
    await o.close();
    await close(server);
  }
});

test('an origin that offers only HTTP/1.1: the first socket joins the HTTP/1.1 pool and every request goes there', async () => {
  const server = await listen(createHttpsServer({ cert: CERT, key: KEY, keepAliveTimeout: 30_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`http/${req.httpVersion}`);
    });
  }));
  const o = origin(server.port);
  try {
    const first = await o.send('{}').done;
    assert.is(first.error, null);
    assert.is(first.body, 'http/1.1');
    assert.is(o.h2.support, 'http/1.1');
    assert.is(server.accepted, 1, 'the socket that asked for h2 carried the request over HTTP/1.1: no second handshake');
    const more = await Promise.all([o.send('{}').done, o.send('{}').done]);
    for (const r of more) assert.is(r.body, 'http/1.1');
    assert.equal(o.h2.load(), { sessions: 0, streams: 0 });
    assert.is(o.pool.load().open, 2);
  } finally {
    await o.close();
    await close(server);
  }
});

test('through an HTTP proxy: one CONNECT tunnel carries the HTTP/2 session, TLS end to end', async () => {
  const server = await h2Server(echo);
  const proxy = await startHttpProxy({ user: 'gw', password: 's3cret' });
  const authorization = `Basic ${Buffer.from('gw:s3cret').toString('base64')}`;
  const o = origin(server.port, {}, { host: '127.0.0.1', port: proxy.port, tls: false, authorization });
  try {
    const rs = await Promise.all([o.send('{"a":1}').done, o.send('{"a":2}').done, o.send('{"a":3}').done]);
    for (const r of rs) {
      assert.is(r.error, null);
      assert.is(JSON.parse(r.body).version, '2.0');
    }
    assert.equal(proxy.log, [{ method: 'CONNECT', target: `localhost:${server.port}`, authorization }], 'one tunnel for three streams');
  } finally {
    await o.close();
    await proxy.close();
    await close(server);
  }
});

test('a held stream keeps no copy of its request once the answer has begun', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const server = await h2Server((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: a\n\n');
  });
  const o = origin(server.port);
  try {
    const c = new Collector();
    // An agent's turn: the whole conversation, resent with every request.
    const send = (): { control: RequestControl; sent: WeakRef<Buffer> } => {
      const body = Buffer.from(JSON.stringify({ messages: [{ role: 'user', content: 'y'.repeat(512 * 1024) }] }));
      const control = o.h2.request({ ':method': 'POST', ':path': '/', ':authority': `127.0.0.1:${server.port}` }, body, c,
        { send: () => { throw new Error('not HTTP/1.1'); } });
      return { control, sent: new WeakRef(body) };
    };
    const { control, sent } = send();
    await waitFor(() => c.chunks.length === 1, 2000, 'the stream\'s first event');
    await new Promise((r) => setImmediate(r));
    gc();
    assert.is(sent.deref(), undefined, 'the 512 KiB request was let go while its answer streams');
    control.abort();
    assert.is((await c.done).error?.code, 'aborted');
  } finally {
    await o.close();
    await close(server);
  }
});

test('the server\'s SETTINGS_MAX_CONCURRENT_STREAMS bounds each session: more streams open more sessions', async () => {
  const held: Http2ServerResponse[] = [];
  const server = await h2Server((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: a\n\n');
    held.push(res);
  }, { maxConcurrentStreams: 2 });
  const o = origin(server.port);
  try {
    // The first session learns the limit from the server's SETTINGS before more streams come.
    const first = o.send('{}');
    await waitFor(() => held.length === 1, 2000, 'the first stream');
    const rest = [1, 2, 3, 4].map(() => o.send('{}'));
    await waitFor(() => held.length === 5, 2000, 'five streams held');
    assert.is(server.accepted, 3, '2 + 2 + 1 streams');
    assert.equal(o.h2.load(), { sessions: 3, streams: 5 });
    for (const res of held) res.end('data: [DONE]\n\n');
    for (const r of await Promise.all([first, ...rest].map((c) => c.done))) assert.is(r.body, 'data: a\n\ndata: [DONE]\n\n');
  } finally {
    await o.close();
    await close(server);
  }
});

test('a stream the server refuses unprocessed is sent once more; refused twice, it fails', async () => {
  let refusals = 1;
  const server = await h2Server(echo);
  server.server.removeAllListeners('request');
  server.server.on('request', (req: Http2ServerRequest, res: Http2ServerResponse) => {
    if (refusals-- > 0) {
      req.stream.close(constants.NGHTTP2_REFUSED_STREAM);
      return;
    }
    let body = '';
    req.on('data', (c: Buffer) => { body += c; });
    req.on('end', () => echo(req, res, body));
  });
  const o = origin(server.port);
  try {
    const r = await o.send('{"once":1}').done;
    assert.is(r.error, null);
    assert.is(JSON.parse(r.body).body, '{"once":1}');
    refusals = 2;
    const twice = await o.send('{}').done;
    assert.is(twice.error?.code, 'connection_reset');
    assert.match(twice.error!.message, /HTTP\/2 error 7/);
  } finally {
    await o.close();
    await close(server);
  }
});

test('a GOAWAY lets streams in flight finish; the next request opens a new session', async () => {
  let held: Http2ServerResponse | null = null;
  const server = await h2Server((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: a\n\n');
    held = res;
  });
  const o = origin(server.port);
  try {
    const first = o.send('{}');
    await waitFor(() => held !== null, 2000, 'the first stream');
    server.sessions[0].goaway(constants.NGHTTP2_NO_ERROR, 1);
    await waitFor(() => o.h2.load().sessions >= 1, 2000);
    await new Promise((r) => setTimeout(r, 50));
    const firstHeld = held!;
    held = null;
    const second = o.send('{}');
    await waitFor(() => held !== null, 2000, 'the second stream');
    assert.is(server.accepted, 2, 'the draining session took no new stream');
    firstHeld.end('data: [DONE]\n\n');
    held!.end('data: [DONE]\n\n');
    assert.is((await first.done).body, 'data: a\n\ndata: [DONE]\n\n', 'the stream in flight finished on the old session');
    assert.is((await second.done).error, null);
  } finally {
    await o.close();
    await close(server);
  }
});

test('a stream reset mid-body fails alone; its neighbours on the session go on', async () => {
  const server = await h2Server((req, res, body) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: a\n\n');
    if (body === 'cut') setTimeout(() => req.stream.close(constants.NGHTTP2_INTERNAL_ERROR), 20);
    else setTimeout(() => res.end('data: [DONE]\n\n'), 60);
  });
  const o = origin(server.port);
  try {
    const [cut, whole] = await Promise.all([o.send('cut').done, o.send('whole').done]);
    assert.is(cut.error?.code, 'connection_reset');
    assert.is(cut.body, 'data: a\n\n', 'what came before the reset was delivered');
    assert.is(whole.error, null);
    assert.is(whole.body, 'data: a\n\ndata: [DONE]\n\n');
    assert.is(server.accepted, 1);
  } finally {
    await o.close();
    await close(server);
  }
});

test('headers and body timeouts, a connect that never finishes its handshake, and a refused connection', async () => {
  const server = await h2Server((_req, res, body) => {
    if (body === 'stall-body') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: a\n\n');
    }
  });
  const silent = await listen(createNetServer(() => {}));
  const refused = await listen(createNetServer());
  const refusedPort = refused.port;
  await close(refused);
  const o = origin(server.port, { headersTimeoutMs: 150, bodyTimeoutMs: 150 });
  const s = origin(silent.port, { connectTimeoutMs: 150 });
  const r = origin(refusedPort);
  try {
    const [headers, body, connect, refusal] = await Promise.all([o.send('stall-head').done, o.send('stall-body').done, s.send('{}').done, r.send('{}').done]);
    assert.is(headers.error?.code, 'headers_timeout');
    assert.is(body.error?.code, 'body_timeout');
    assert.is(body.body, 'data: a\n\n');
    assert.is(connect.error?.code, 'connect_timeout');
    assert.is(refusal.error?.code, 'connect_error');
    assert.match(refusal.error!.message, /refused/);
    assert.is(s.h2.support, 'unknown', 'nothing learnt from a connect that failed');
  } finally {
    await Promise.all([o.close(), s.close(), r.close()]);
    await close(server);
    await close(silent);
  }
});

test('pause holds the stream (flow control stops the server) until resume; abort cancels it at the server', async () => {
  let drained = 0;
  let writes = 0;
  let closedEarly: Promise<void> | null = null;
  const server = await h2Server((_req, res, body) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    if (body === 'abort') {
      closedEarly = new Promise((r) => res.once('close', () => r()));
      res.write('x');
      return;
    }
    const piece = Buffer.alloc(16 * 1024, 0x61);
    const pump = (): void => {
      while (writes < 200) {
        writes++;
        if (!res.write(piece)) {
          res.once('drain', () => {
            drained++;
            pump();
          });
          return;
        }
      }
      res.end();
    };
    pump();
  });
  const o = origin(server.port);
  try {
    const c = new Collector(1);
    const control = o.h2.request({ ':method': 'POST', ':path': '/', ':authority': `127.0.0.1:${server.port}` }, 'flood', c,
      { send: () => { throw new Error('not HTTP/1.1'); } });
    await waitFor(() => c.chunks.length === 1, 2000, 'the first chunk');
    await new Promise((r) => setTimeout(r, 200));
    const stalledAt = writes;
    assert.ok(stalledAt < 200, `the server was held back by flow control (${stalledAt} writes)`);
    await new Promise((r) => setTimeout(r, 100));
    assert.is(writes, stalledAt, 'no progress while paused');
    control.resume();
    const r = await c.done;
    assert.is(r.error, null);
    assert.is(r.body.length, 200 * 16 * 1024);
    assert.ok(drained > 0);

    const a = new Collector();
    const aborting = o.h2.request({ ':method': 'POST', ':path': '/', ':authority': `127.0.0.1:${server.port}` }, 'abort', a,
      { send: () => { throw new Error('not HTTP/1.1'); } });
    await waitFor(() => a.chunks.length === 1, 2000, 'the first byte');
    aborting.abort();
    assert.is((await a.done).error?.code, 'aborted');
    await closedEarly;
    assert.is(o.h2.load().sessions, 1, 'the session outlives a cancelled stream');
  } finally {
    await o.close();
    await close(server);
  }
});

test('a session with no stream is closed after idleTimeoutMs', async () => {
  const server = await h2Server(echo);
  const o = origin(server.port, { idleTimeoutMs: 100, connectTimeoutMs: 200 });
  try {
    assert.is((await o.send('{}').done).error, null);
    assert.is(o.h2.load().sessions, 1);
    await waitFor(() => o.h2.load().sessions === 0, 2000, 'the idle session closed');
    await waitFor(() => server.sockets.size === 0, 2000, 'its socket closed at the server');
  } finally {
    await o.close();
    await close(server);
  }
});

test('after close() new requests fail at once', async () => {
  const server = await h2Server(echo);
  const o = origin(server.port);
  await o.close();
  const r = await o.send('{}').done;
  assert.is(r.error?.code, 'closed');
  await close(server);
});

test.run();
