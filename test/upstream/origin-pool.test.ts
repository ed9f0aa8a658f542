import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { secureContextOf, type Target } from '../../src/upstream/connector.js';
import { OriginPool, type PoolOptions } from '../../src/upstream/origin-pool.js';
import { TransportError } from '../../src/upstream/transport-error.js';
import { startHttpProxy } from '../support/http-proxy.js';
import { startSocksProxy } from '../support/socks-proxy.js';
import { waitFor } from '../support/wait.js';
import { Collector, type Result } from '../support/response-collector.js';

// The gateway's own HTTP/1.1 client against real servers on 127.0.0.1: node:http, node:https
// with a test certificate, and raw TCP servers that misbehave on purpose.

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/', import.meta.url));
const CERT = readFileSync(FIXTURES + 'localhost-cert.pem');
const OPTIONS: PoolOptions = { connections: 4, connectTimeoutMs: 2000, headersTimeoutMs: 2000, bodyTimeoutMs: 2000, idleTimeoutMs: 30_000 };

function post(path: string, body: string, host = '127.0.0.1'): string {
  return `POST ${path} HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

async function listen<T extends Server | NetServer>(server: T): Promise<{ server: T; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, port: (server.address() as AddressInfo).port, sockets };
}

async function close(server: Server | NetServer, sockets: Set<Socket>): Promise<void> {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
}

/** One turn of the event loop, I/O included: bytes already on a readable socket are read by then. */
const ioTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

function echoServer(handler?: (req: IncomingMessage, res: ServerResponse, body: string) => void): Server {
  return createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => { body += c; });
    req.on('end', () => {
      if (handler) return handler(req, res, body);
      const out = JSON.stringify({ path: req.url, body, port: req.socket.remotePort });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
      res.end(out);
    });
  });
}

test('a request and its answer, and the socket kept alive for the next one', async () => {
  const { server, port, sockets } = await listen(echoServer());
  const pool = new OriginPool(new URL(`http://127.0.0.1:${port}`), OPTIONS);
  try {
    const ports = new Set<number>();
    for (let i = 0; i < 5; i++) {
      const c = new Collector();
      pool.request(post('/v1/x', `{"n":${i},"text":"नमस्ते"}`), c);
      const r = await c.done;
      assert.is(r.error, null);
      assert.is(r.status, 200);
      assert.is(r.contentType, 'application/json');
      const echoed = JSON.parse(r.body);
      assert.is(echoed.path, '/v1/x');
      assert.is(echoed.body, `{"n":${i},"text":"नमस्ते"}`, 'multi-byte body framed by its byte length');
      ports.add(echoed.port);
    }
    assert.is(ports.size, 1, 'sequential requests share one keep-alive socket');
  } finally {
    await pool.close();
    await close(server, sockets);
  }
});

test('the wait for a socket is bounded: a full queue refuses at once, a long wait fails, and a served wait is timed', async () => {
  const held: ServerResponse[] = [];
  const { server, port, sockets } = await listen(echoServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
    held.push(res);
  }));
  const pool = new OriginPool(new URL(`http://127.0.0.1:${port}`), { ...OPTIONS, connections: 1, maxQueued: 1, queueTimeoutMs: 300 });
  try {
    const first = new Collector();
    pool.request(post('/', 'a'), first);
    const waiting = new Collector();
    const waitingControl = pool.request(post('/', 'b'), waiting);
    const refused = new Collector();
    pool.request(post('/', 'c'), refused);
    assert.is((await refused.done).error?.code, 'saturated', 'the queue holds one');
    assert.equal(pool.load().queued, 1);
    const expired = await waiting.done;
    assert.is(expired.error?.code, 'saturated', 'waited past queueTimeoutMs');
    assert.ok(waitingControl.queueMs >= 300, `queueMs ${waitingControl.queueMs}`);
    assert.equal(pool.load().queued, 0);

    const served = new Collector();
    const servedControl = pool.request(post('/', 'd'), served);
    while (held.length < 1) await new Promise((r) => setImmediate(r));
    held.shift()!.end('ok');
    assert.is((await first.done).body, 'ok');
    while (held.length < 1) await new Promise((r) => setImmediate(r));
    held.shift()!.end('ok');
    assert.equal([(await served.done).body, servedControl.queueMs > 0], ['ok', true]);
  } finally {
    await pool.close();
    await close(server, sockets);
  }
});

test('at most `connections` sockets: the rest queue and are served in turn', async () => {
  let peak = 0;
  let answered = 0;
  // Requests are held until both sockets carry one (or the last one came), so the peak is reached.
  const held: [ServerResponse, string][] = [];
  const { server, port, sockets } = await listen(echoServer((_req, res, body) => {
    held.push([res, body]);
    peak = Math.max(peak, held.length);
    if (held.length < 2 && answered + held.length < 7) return;
    for (const [r, b] of held.splice(0)) {
      answered++;
      r.writeHead(200, { 'content-type': 'text/plain' });
      r.end(b);
    }
  }));
  const pool = new OriginPool(new URL(`http://127.0.0.1:${port}`), { ...OPTIONS, connections: 2 });
  try {
    const all = Array.from({ length: 7 }, (_, i) => {
      const c = new Collector();
      pool.request(post('/', `req ${i}`), c);
      return c.done;
    });
    const results = await Promise.all(all);
    assert.equal(results.map((r) => r.body), Array.from({ length: 7 }, (_, i) => `req ${i}`));
    assert.is(peak, 2);
    assert.ok(sockets.size <= 2);
  } finally {
    await pool.close();
    await close(server, sockets);
  }
});

test('a queued request can be aborted before it is sent', async () => {
  const held: ServerResponse[] = [];
  const { server, port, sockets } = await listen(echoServer((_req, res) => held.push(res)));
  const pool = new OriginPool(new URL(`http://127.0.0.1:${port}`), { ...OPTIONS, connections: 1 });
  try {
    const first = new Collector();
    pool.request(post('/', 'a'), first);
    const second = new Collector();
    const control = pool.request(post('/', 'b'), second);
    control.abort();
    const r2 = await second.done;
    assert.is(r2.error?.code, 'aborted');
    await waitFor(() => held.length === 1, 2_000, 'the first request at the server');
    held[0].end('late');
    assert.is((await first.done).body, 'late');
  } finally {
    await pool.close();
    await close(server, sockets);
  }
});

test('the server keep-alive hint retires idle sockets before the server drops them', async () => {
  // node:http advertises `Keep-Alive: timeout=1` and closes idle sockets after 1 s; the pool
  // retires them a second before that, at once. The server sees the client's FIN first.
  const server = echoServer();
  server.keepAliveTimeout = 1000;
  let endedByClient = 0;
  server.on('connection', (s: Socket) => s.once('end', () => endedByClient++));
  const { port, sockets } = await listen(server);
  const pool = new OriginPool(new URL(`http://127.0.0.1:${port}`), { ...OPTIONS, connectTimeoutMs: 400 });
  try {
    for (let i = 0; i < 3; i++) {
      const c = new Collector();
      pool.request(post('/', 'x'), c);
      const r = await c.done;
      assert.is(r.error, null, `request ${i}, on a new socket after the last one was retired`);
      await waitFor(() => endedByClient === i + 1, 900, 'the pool to close the idle socket before the server\'s 1 s');
    }
  } finally {
    await pool.close();
    await close(server, sockets);
  }
});

/** A raw server that answers `ok`, except where `drop(request n overall, n on its socket)` says to close or reset. */
async function droppingServer(drop: (overall: number, onSocket: number) => 'close' | 'reset' | 'partial' | null) {
  let overall = 0;
  let connections = 0;
  const srv = await listen(createNetServer((s) => {
    connections++;
    let onSocket = 0;
    s.on('data', () => {
      const what = drop(++overall, ++onSocket);
      if (what === 'close') s.end();
      else if (what === 'reset') s.resetAndDestroy();
      else if (what === 'partial') s.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nok');
      else s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    });
  }));
  return { ...srv, requests: () => overall, connections: () => connections };
}

test('without a hint, idle sockets are closed after idleTimeoutMs', async () => {
  const srv = await droppingServer(() => null);
  const closedByClient = new Promise<number>((resolve) => srv.server.once('connection', (s: Socket) => s.once('end', () => resolve(performance.now()))));
  const pool = new OriginPool(new URL(`http://127.0.0.1:${srv.port}`), { ...OPTIONS, idleTimeoutMs: 200 });
  try {
    const a = new Collector();
    pool.request(post('/', 'x'), a);
    assert.is((await a.done).body, 'ok');
    const idleFrom = performance.now();
    const idleFor = (await closedByClient) - idleFrom;
    assert.ok(idleFor >= 190, `closed by the client after ${idleFor.toFixed(0)} ms idle, not before idleTimeoutMs`);
    const b = new Collector();
    pool.request(post('/', 'x'), b);
    assert.is((await b.done).body, 'ok');
    assert.is(srv.connections(), 2);
  } finally {
    await pool.close();
    await close(srv.server, srv.sockets);
  }
});

test('a socket the server closed while idle is dropped, and the next request reconnects', async () => {
  const { server, port, sockets } = await listen(echoServer());
  const pool = new OriginPool(new URL(`http://127.0.0.1:${port}`), OPTIONS);
  try {
    const a = new Collector();
    pool.request(post('/', 'one'), a);
    const first = JSON.parse((await a.done).body).port;
    for (const s of sockets) s.destroy();
    await waitFor(() => pool.load().open === 0, 2_000, 'the pool to drop the closed socket');
    const b = new Collector();
    pool.request(post('/', 'two'), b);
    const r = await b.done;
    assert.is(r.error, null);
    assert.is.not(JSON.parse(r.body).port, first);
  } finally {
    await pool.close();
    await close(server, sockets);
  }
});

test('refused connection, silent server and stalled body each fail with their own code', async () => {
  const refused = new OriginPool(new URL('http://127.0.0.1:1'), OPTIONS);
  const c1 = new Collector();
  refused.request(post('/', 'x'), c1);
  assert.is((await c1.done).error?.code, 'connect_error');
  await refused.close();

  const silent = await listen(createNetServer(() => {}));
  const stalled = await listen(createNetServer((s) => {
    s.once('data', () => s.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial'));
  }));
  const opts = { ...OPTIONS, headersTimeoutMs: 300, bodyTimeoutMs: 300 };
  const p1 = new OriginPool(new URL(`http://127.0.0.1:${silent.port}`), opts);
  const p2 = new OriginPool(new URL(`http://127.0.0.1:${stalled.port}`), opts);
  try {
    const started = Date.now();
    const c2 = new Collector();
    p1.request(post('/', 'x'), c2);
    const c3 = new Collector();
    p2.request(post('/', 'x'), c3);
    const [r2, r3] = await Promise.all([c2.done, c3.done]);
    assert.is(r2.error?.code, 'headers_timeout');
    assert.is(r3.error?.code, 'body_timeout');
    assert.is(r3.body, 'partial');
    const took = Date.now() - started;
    assert.ok(took >= 300 && took < 1500, `timeouts fired after ${took} ms`);
  } finally {
    await p1.close();
    await p2.close();
    await close(silent.server, silent.sockets);
    await close(stalled.server, stalled.sockets);
  }
});

test('a reset mid-body and a garbled answer fail, and the socket is not reused', async () => {
  let n = 0;
  const { server, port, sockets } = await listen(createNetServer((s) => {
    s.on('data', () => {
      n++;
      if (n === 1) s.write('HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nabc', () => s.destroy());
      else if (n === 2) s.write('HELLO\r\n\r\n');
      else s.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok');
    });
  }));
  const pool = new OriginPool(new URL(`http://127.0.0.1:${port}`), OPTIONS);
  try {
    const a = new Collector();
    pool.request(post('/', 'x'), a);
    const ra = await a.done;
    assert.is(ra.error?.code, 'connection_reset');
    const b = new Collector();
    pool.request(post('/', 'x'), b);
    assert.is((await b.done).error?.code, 'protocol_error');
    const c = new Collector();
    pool.request(post('/', 'x'), c);
    const rc = await c.done;
    assert.is(rc.error, null);
    assert.is(rc.body, 'ok');
  } finally {
    await pool.close();
    await close(server, sockets);
  }
});

async function twoInARow(pool: OriginPool): Promise<[Result, Result]> {
  const a = new Collector();
  pool.request(post('/', 'x'), a);
  const ra = await a.done;
  const b = new Collector();
  pool.request(post('/', 'x'), b);
  return [ra, await b.done];
}

test('a kept-alive socket the server closed as our request arrived: resent once on a fresh socket', async () => {
  for (const how of ['close', 'reset'] as const) {
    const srv = await droppingServer((overall) => (overall === 2 ? how : null));
    const pool = new OriginPool(new URL(`http://127.0.0.1:${srv.port}`), OPTIONS);
    try {
      const [ra, rb] = await twoInARow(pool);
      assert.is(ra.body, 'ok');
      assert.is(rb.error, null, how);
      assert.is(rb.body, 'ok');
      assert.is(srv.requests(), 3, `${how}: the dropped request went out again`);
      assert.is(srv.connections(), 2);
    } finally {
      await pool.close();
      await close(srv.server, srv.sockets);
    }
  }
});

test('no resend for a fresh socket, for a started answer, or a second time', async () => {
  const cases: { name: string; drop: (overall: number, onSocket: number) => 'close' | 'reset' | 'partial' | null; requests: number }[] = [
    { name: 'fresh socket closed', drop: (overall) => (overall === 1 ? 'close' : null), requests: 1 },
    { name: 'answer cut short on a reused socket', drop: (overall) => (overall === 2 ? 'partial' : null), requests: 2 },
    { name: 'resent request dropped again', drop: (overall) => (overall >= 2 ? 'close' : null), requests: 3 },
  ];
  for (const c of cases) {
    const srv = await droppingServer(c.drop);
    const pool = new OriginPool(new URL(`http://127.0.0.1:${srv.port}`), OPTIONS);
    try {
      if (c.requests === 1) {
        const a = new Collector();
        pool.request(post('/', 'x'), a);
        assert.is((await a.done).error?.code, 'connection_reset', c.name);
      } else {
        const [, rb] = await twoInARow(pool);
        assert.is(rb.error?.code, 'connection_reset', c.name);
      }
      assert.is(srv.requests(), c.requests, c.name);
    } finally {
      await pool.close();
      await close(srv.server, srv.sockets);
    }
  }
});

test('pause holds the socket until resume; abort mid-body closes it at the server', async () => {
  const first = 'a'.repeat(1000);
  const rest = 'b'.repeat(256 * 1024);
  const paused: ServerResponse[] = [];
  let serverSawClose!: Promise<void>;
  const { server, port, sockets } = await listen(echoServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (req.url === '/big') {
      res.write(first);
      paused.push(res);
    } else {
      serverSawClose = new Promise((resolve) => res.once('close', resolve));
      res.write('data: 1\n\n');
    }
  }));
  const pool = new OriginPool(new URL(`http://127.0.0.1:${port}`), OPTIONS);
  try {
    const c = new Collector(1);
    const control = pool.request(post('/big', ''), c);
    await waitFor(() => c.chunks.length === 1, 2_000, 'the first chunk, which pauses the reader');
    // The rest is sent only now: once the server has handed its first bytes to the kernel, an
    // unpaused socket would have read them within a turn of the loop.
    const [more] = paused;
    await new Promise<void>((resolve) => more.write(rest.slice(0, 1000), () => resolve()));
    await ioTurn();
    await ioTurn();
    assert.is(Buffer.concat(c.chunks).toString(), first, 'nothing read while paused');
    more.end(rest.slice(1000));
    control.resume();
    const r = await c.done;
    assert.is(r.body, first + rest);

    const s = new Collector();
    const stream = pool.request(post('/stream', ''), s);
    await waitFor(() => s.chunks.length > 0, 2_000, 'the stream\'s first event');
    assert.is(s.chunks.length, 1);
    stream.abort();
    assert.is((await s.done).error?.code, 'aborted');
    await serverSawClose;
  } finally {
    await pool.close();
    await close(server, sockets);
  }
});

test('a held stream keeps no copy of its request once the answer has begun', async () => {
  // A full collection on demand, to see what is still reachable.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const { server, port, sockets } = await listen(echoServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: 1\n\n');
  }));
  const pool = new OriginPool(new URL(`http://127.0.0.1:${port}`), OPTIONS);
  try {
    const s = new Collector();
    // An agent's turn: the whole conversation, resent with every request.
    const send = (): { control: ReturnType<OriginPool['request']>; sent: WeakRef<Buffer> } => {
      const request = Buffer.from(post('/stream', JSON.stringify({ messages: [{ role: 'user', content: 'y'.repeat(512 * 1024) }] })));
      return { control: pool.request(request, s), sent: new WeakRef(request) };
    };
    const { control, sent } = send();
    await waitFor(() => s.chunks.length > 0, 2_000, 'the stream\'s first event');
    assert.is(s.chunks.length, 1, 'the stream has begun and is held open');
    await ioTurn();
    gc();
    assert.is(sent.deref(), undefined, 'the 512 KiB request was let go while its answer streams');
    control.abort();
    assert.is((await s.done).error?.code, 'aborted');
  } finally {
    await pool.close();
    await close(server, sockets);
  }
});

/** A node:https server with the test certificate (SAN localhost and 127.0.0.1), answering after the body. */
function testHttpsServer(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  return listen(createHttpsServer({ cert: CERT, key: readFileSync(FIXTURES + 'localhost-key.pem') }, (req, res) => {
    req.resume();
    req.on('end', () => answer(req, res));
  }));
}

test('https origins, verified against the given certificate authority', async () => {
  const { port, sockets, server } = await testHttpsServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: a\n\n');
    setTimeout(() => res.end('data: [DONE]\n\n'), 10);
  });
  const trusted = new OriginPool(new URL(`https://127.0.0.1:${port}`), { ...OPTIONS, ca: CERT });
  const untrusted = new OriginPool(new URL(`https://127.0.0.1:${port}`), OPTIONS);
  try {
    for (let i = 0; i < 2; i++) {
      const c = new Collector();
      trusted.request(post("/", "{}"), c);
      const r = await c.done;
      assert.is(r.error, null);
      assert.is(r.body, 'data: a\n\ndata: [DONE]\n\n');
    }
    const u = new Collector();
    untrusted.request(post("/", "{}"), u);
    const ru = await u.done;
    assert.is(ru.error?.code, 'connect_error');
    assert.match(ru.error!.message, /certificate/i);
  } finally {
    await trusted.close();
    await untrusted.close();
    await close(server, sockets);
  }
});

test('TLS connections to one target share one secure context, made on first use', () => {
  const target: Target = { host: '127.0.0.1', port: 443, tls: true, ca: CERT };
  const first = secureContextOf(target);
  assert.is(secureContextOf(target), first, 'made once, not per connection');
  assert.is(target.context, first);
  assert.is.not(secureContextOf({ host: '127.0.0.1', port: 443, tls: true }), first, 'another target (its own trusted roots) has its own');
});

test('a new https connection resumes the TLS session of an earlier one', async () => {
  const { port, sockets, server } = await testHttpsServer((req, res) => setTimeout(() => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`${(req.socket as import('node:tls').TLSSocket).isSessionReused()}`);
  }, 50));
  const pool = new OriginPool(new URL(`https://127.0.0.1:${port}`), { ...OPTIONS, ca: CERT });
  try {
    const first = new Collector();
    pool.request(post('/', '{}'), first);
    assert.is((await first.done).body, 'false', 'the first connection does a full handshake');
    // Two at once: one takes the idle socket, the other opens a second connection.
    const both = [new Collector(), new Collector()];
    for (const c of both) pool.request(post('/', '{}'), c);
    const bodies = (await Promise.all(both.map((c) => c.done))).map((r) => r.body).sort();
    assert.equal(bodies, ['false', 'true'], 'the kept socket had a full handshake; the new one resumed');
  } finally {
    await pool.close();
    await close(server, sockets);
  }
});

test('an https origin through an HTTP proxy: one CONNECT tunnel per socket, TLS end to end', async () => {
  const { port, sockets, server } = await testHttpsServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`${req.headers.host} ${(req.socket as import('node:tls').TLSSocket).encrypted}`);
  });
  const proxy = await startHttpProxy({ user: 'gw', password: 's3cret' });
  const authorization = `Basic ${Buffer.from('gw:s3cret').toString('base64')}`;
  const pool = new OriginPool(new URL(`https://localhost:${port}`), {
    ...OPTIONS, ca: CERT, proxy: { host: '127.0.0.1', port: proxy.port, tls: false, authorization },
  });
  try {
    for (let i = 0; i < 3; i++) {
      const c = new Collector();
      pool.request(post('/', '{}', `localhost:${port}`), c);
      const r = await c.done;
      assert.is(r.error, null);
      assert.is(r.body, `localhost:${port} true`, 'the origin sees its own host over TLS, verified by its name');
    }
    assert.equal(proxy.log, [{ method: 'CONNECT', target: `localhost:${port}`, authorization }], 'one tunnel, kept alive');
  } finally {
    await pool.close();
    await proxy.close();
    await close(server, sockets);
  }
});

test('an https proxy: TLS to the proxy, then the origin\'s TLS inside it; plain-http origins in absolute form over it', async () => {
  const { port, sockets, server } = await testHttpsServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`secure ${req.headers.host}`);
  });
  const plain = await listen(echoServer());
  const proxy = await startHttpProxy({ tls: { cert: CERT, key: readFileSync(FIXTURES + 'localhost-key.pem') } });
  const viaProxy = { host: 'localhost', port: proxy.port, tls: true, authorization: null };
  const tunnelled = new OriginPool(new URL(`https://localhost:${port}`), { ...OPTIONS, ca: CERT, proxy: viaProxy });
  const forwarded = new OriginPool(new URL(`http://localhost:${plain.port}`), { ...OPTIONS, ca: CERT, proxy: viaProxy });
  try {
    const a = new Collector();
    tunnelled.request(post('/', '{}', `localhost:${port}`), a);
    const ra = await a.done;
    assert.is(ra.error, null);
    assert.is(ra.body, `secure localhost:${port}`);
    const b = new Collector();
    forwarded.request(post(`http://localhost:${plain.port}/v1/x`, '{}', `localhost:${plain.port}`), b);
    const rb = await b.done;
    assert.is(rb.error, null);
    assert.is(JSON.parse(rb.body).path, '/v1/x');
    assert.equal(proxy.log.map((e) => `${e.method} ${e.target}`), [`CONNECT localhost:${port}`, `POST http://localhost:${plain.port}/v1/x`]);
  } finally {
    await tunnelled.close();
    await forwarded.close();
    await proxy.close();
    await close(plain.server, plain.sockets);
    await close(server, sockets);
  }
});

test('a proxy that refuses the tunnel, or cannot be reached, fails the connect saying so', async () => {
  const proxy = await startHttpProxy({ user: 'gw', password: 's3cret' });
  const refused = await listen(createNetServer());
  const deadPort = refused.port;
  await close(refused.server, refused.sockets);
  const wrongPassword = new OriginPool(new URL('https://localhost:443'), {
    ...OPTIONS, proxy: { host: '127.0.0.1', port: proxy.port, tls: false, authorization: `Basic ${Buffer.from('gw:nope').toString('base64')}` },
  });
  const unreachable = new OriginPool(new URL(`https://127.0.0.1:${deadPort}`), {
    ...OPTIONS, proxy: { host: '127.0.0.1', port: proxy.port, tls: false, authorization: `Basic ${Buffer.from('gw:s3cret').toString('base64')}` },
  });
  try {
    const a = new Collector();
    wrongPassword.request(post('/', '{}'), a);
    const ra = await a.done;
    assert.is(ra.error?.code, 'connect_error');
    assert.match(ra.error!.message, /refused the tunnel to localhost:443: HTTP\/1\.1 407/);
    const b = new Collector();
    unreachable.request(post('/', '{}'), b);
    const rb = await b.done;
    assert.is(rb.error?.code, 'connect_error');
    assert.match(rb.error!.message, /HTTP\/1\.1 502/);
    const noProxy = new OriginPool(new URL('https://localhost:443'), { ...OPTIONS, proxy: { host: '127.0.0.1', port: deadPort, tls: false, authorization: null } });
    const c = new Collector();
    noProxy.request(post('/', '{}'), c);
    const rc = await c.done;
    await noProxy.close();
    assert.is(rc.error?.code, 'connect_error');
    assert.match(rc.error!.message, new RegExp(`proxy 127\\.0\\.0\\.1:${deadPort} failed: .*ECONNREFUSED`));
    // A "proxy" that accepts the tunnel and talks before the origin's TLS has begun.
    const chatty = await listen(createNetServer((sock) => sock.once('data', () => sock.write('HTTP/1.1 200 OK\r\n\r\nhello'))));
    const early = new OriginPool(new URL('https://localhost:443'), { ...OPTIONS, proxy: { host: '127.0.0.1', port: chatty.port, tls: false, authorization: null } });
    const d = new Collector();
    early.request(post('/', '{}'), d);
    const rd = await d.done;
    await early.close();
    await close(chatty.server, chatty.sockets);
    assert.is(rd.error?.code, 'connect_error');
    assert.match(rd.error!.message, /sent bytes after accepting the tunnel/);
  } finally {
    await wrongPassword.close();
    await unreachable.close();
    await proxy.close();
  }
});

const socks = (port: number, remoteDns: boolean, username: string | null = null, password: string | null = null) =>
  ({ host: '127.0.0.1', port, tls: false, authorization: null, socks: { remoteDns, username, password } });

test('SOCKS5: an https origin by a name only the proxy resolves (socks5h), and a plain-http origin, each socket one tunnel', async () => {
  const { port, sockets, server } = await testHttpsServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`${req.headers.host} ${(req.socket as import('node:tls').TLSSocket).encrypted}`);
  });
  const plain = await listen(echoServer());
  const proxy = await startSocksProxy({ user: 'gw', password: 'pä55', hosts: { 'groq.test': '127.0.0.1' } });
  const tunnelled = new OriginPool(new URL(`https://groq.test:${port}`), { ...OPTIONS, ca: CERT, proxy: socks(proxy.port, true, 'gw', 'pä55') });
  const direct = new OriginPool(new URL(`http://127.0.0.1:${plain.port}`), { ...OPTIONS, proxy: socks(proxy.port, false, 'gw', 'pä55') });
  try {
    for (let i = 0; i < 2; i++) {
      const a = new Collector();
      tunnelled.request(post('/', '{}', `groq.test:${port}`), a);
      const ra = await a.done;
      assert.is(ra.error, null);
      assert.is(ra.body, `groq.test:${port} true`, 'TLS end to end, verified against the provider\'s name');
      const b = new Collector();
      direct.request(post('/v1/x', '{}'), b);
      const rb = await b.done;
      assert.is(rb.error, null);
      assert.is(JSON.parse(rb.body).path, '/v1/x', 'origin-form: the proxy only carries bytes');
    }
    assert.equal(proxy.log, [
      { addressType: 'domain', host: 'groq.test', port, user: 'gw' },
      { addressType: 'ipv4', host: '127.0.0.1', port: plain.port, user: 'gw' },
    ], 'one tunnel per kept-alive socket');
  } finally {
    await tunnelled.close();
    await direct.close();
    await proxy.close();
    await close(plain.server, plain.sockets);
    await close(server, sockets);
  }
});

test('SOCKS5: socks5:// resolves the name in the gateway and sends the address', async () => {
  const plain = await listen(echoServer());
  const proxy = await startSocksProxy();
  const pool = new OriginPool(new URL(`http://localhost:${plain.port}`), { ...OPTIONS, proxy: socks(proxy.port, false) });
  try {
    const c = new Collector();
    pool.request(post('/', '{}', `localhost:${plain.port}`), c);
    assert.is((await c.done).error, null);
    assert.ok(proxy.log[0].addressType !== 'domain', JSON.stringify(proxy.log));
  } finally {
    await pool.close();
    await proxy.close();
    await close(plain.server, plain.sockets);
  }
});

test('SOCKS5: wrong credentials, missing credentials and a refused CONNECT fail the connect saying why', async () => {
  const withAuth = await startSocksProxy({ user: 'gw', password: 'right' });
  const refusing = await startSocksProxy({ refuse: 5 });
  const cases: [OriginPool, RegExp][] = [
    [new OriginPool(new URL('http://127.0.0.1:9'), { ...OPTIONS, proxy: socks(withAuth.port, true, 'gw', 'wrong') }), /refused the username and password/],
    [new OriginPool(new URL('http://127.0.0.1:9'), { ...OPTIONS, proxy: socks(withAuth.port, true) }), /requires authentication/],
    [new OriginPool(new URL('https://localhost:9'), { ...OPTIONS, proxy: socks(refusing.port, true) }), /could not connect to localhost:9: connection refused/],
  ];
  try {
    for (const [pool, message] of cases) {
      const c = new Collector();
      pool.request(post('/', '{}'), c);
      const r = await c.done;
      assert.is(r.error?.code, 'connect_error');
      assert.match(r.error!.message, message);
      assert.match(r.error!.message, /SOCKS5 proxy 127\.0\.0\.1:\d+/);
    }
  } finally {
    for (const [pool] of cases) await pool.close();
    await withAuth.close();
    await refusing.close();
  }
});

test('after close() new requests fail at once', async () => {
  const pool = new OriginPool(new URL('http://127.0.0.1:9'), OPTIONS);
  await pool.close();
  const c = new Collector();
  pool.request(post('/', 'x'), c);
  assert.is((await c.done).error?.code, 'closed');
});

test.run();
