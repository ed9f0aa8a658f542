import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ResponseParser, type ResponseHead } from '../../src/upstream/response-parser.js';
import { TransportError } from '../../src/upstream/transport-error.js';

interface Seen {
  heads: ResponseHead[];
  body: string;
  completed: number;
}

function parser(): { p: ResponseParser; seen: Seen } {
  const seen: Seen = { heads: [], body: '', completed: 0 };
  const p = new ResponseParser({
    onHead: (h) => seen.heads.push(h),
    // Views are only valid during the call, as with a connection's shared read buffer.
    onBody: (v) => { seen.body += v.toString('latin1'); },
    onComplete: () => { seen.completed++; },
  });
  p.expect();
  return { p, seen };
}

/** Feeds `wire` cut at `cuts`, each piece in a fresh buffer overwritten after the call. */
function feed(p: ResponseParser, wire: string, cuts: number[]): void {
  let from = 0;
  for (const at of [...cuts, wire.length]) {
    const piece = Buffer.from(wire.slice(from, at), 'latin1');
    // Padding on both sides checks that start/end offsets are honoured.
    const padded = Buffer.concat([Buffer.from('XX'), piece, Buffer.from('YY')]);
    p.execute(padded, 2, 2 + piece.length);
    padded.fill(0x21);
    from = at;
  }
}

function everySplit(wire: string, check: (seen: Seen, p: ResponseParser) => void): void {
  for (let a = 0; a <= wire.length; a++) {
    const { p, seen } = parser();
    feed(p, wire, a === 0 ? [] : [a]);
    check(seen, p);
  }
  // And one byte at a time.
  const { p, seen } = parser();
  feed(p, wire, Array.from({ length: wire.length - 1 }, (_, i) => i + 1));
  check(seen, p);
}

const throwsTransport = (fn: () => void, code: string, re?: RegExp): void => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof TransportError, `expected TransportError, got ${String(e)}`);
    assert.is(e.code, code);
    if (re) assert.match(e.message, re);
    return;
  }
  assert.unreachable(`expected a ${code} TransportError`);
};

test('content-length body, split at every byte', () => {
  const wire = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nX-Other: a:b\r\n\r\n{"ok":true}';
  everySplit(wire, (seen, p) => {
    assert.is(seen.heads.length, 1);
    assert.equal(seen.heads[0], { status: 200, contentType: 'application/json', keepAlive: true, keepAliveMs: null, contentLength: 11 });
    assert.is(seen.body, '{"ok":true}');
    assert.is(seen.completed, 1);
    assert.ok(p.done);
    assert.ok(p.keepAlive);
  });
});

test('chunked body with extensions and trailers, split at every byte', () => {
  const wire = 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-type: text/event-stream\r\n\r\n' +
    '5;name=value\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nx-trailer: 1\r\n\r\n';
  everySplit(wire, (seen, p) => {
    assert.is(seen.heads[0].contentType, 'text/event-stream');
    assert.is(seen.heads[0].contentLength, -1, 'no length up front for a chunked body');
    assert.is(seen.body, 'hello 0123456789');
    assert.is(seen.completed, 1);
    assert.ok(p.keepAlive);
  });
});

test('a last chunk with no trailers ends the message', () => {
  everySplit('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n', (seen) => {
    assert.is(seen.body, 'abc');
    assert.is(seen.completed, 1);
  });
});

test('interim 1xx responses are skipped', () => {
  everySplit('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok', (seen) => {
    assert.equal(seen.heads.map((h) => h.status), [201]);
    assert.is(seen.body, 'ok');
  });
});

test('204, 304 and a zero length complete with the head', () => {
  for (const head of ['HTTP/1.1 204 No Content\r\n\r\n', 'HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n', 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n']) {
    const { p, seen } = parser();
    feed(p, head, []);
    assert.is(seen.heads.length, 1, head);
    assert.is(seen.completed, 1, head);
    assert.is(seen.body, '');
  }
});

test('no framing: the body runs until the server closes, and the connection is not reused', () => {
  const { p, seen } = parser();
  feed(p, 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\npart one, ', []);
  feed(p, 'part two', []);
  assert.is(seen.completed, 0);
  assert.ok(p.untilClose);
  p.finish();
  assert.is(seen.body, 'part one, part two');
  assert.is(seen.completed, 1);
  assert.not.ok(p.keepAlive);
});

test('keep-alive follows the version, Connection and the Keep-Alive hint', () => {
  const cases: [string, boolean, number | null][] = [
    ['HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n', false, null],
    ['HTTP/1.1 200 OK\r\nConnection: Keep-Alive\r\nKeep-Alive: timeout=5, max=100\r\nContent-Length: 0\r\n\r\n', true, 5000],
    ['HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n', false, null],
    ['HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n', true, null],
    // Both framings: chunked wins and the connection is retired (request smuggling guard).
    ['HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', false, null],
  ];
  for (const [wire, keepAlive, hint] of cases) {
    const { p, seen } = parser();
    feed(p, wire, []);
    assert.is(seen.completed, 1, wire);
    assert.is(p.keepAlive, keepAlive, wire);
    assert.is(seen.heads[0].keepAliveMs, hint, wire);
  }
});

test('framing headers are read whatever their case, spacing and token lists, and look-alikes are ignored', () => {
  const cases: [string, { type: string | null; length: number; keepAlive: boolean; hint: number | null; body: string }][] = [
    ['HTTP/1.1 200 OK\r\nCONTENT-TYPE:\t text/plain \t\r\ncontent-LENGTH:  2 \r\n\r\nok', { type: 'text/plain', length: 2, keepAlive: true, hint: null, body: 'ok' }],
    ['HTTP/1.1 200 OK\r\nConnection: upgrade, Close\r\nContent-Length: 0\r\n\r\n', { type: null, length: 0, keepAlive: false, hint: null, body: '' }],
    ['HTTP/1.0 200 OK\r\nConnection: x-foo,  KEEP-ALIVE \r\nkeep-alive: max=9, Timeout = 7\r\nContent-Length: 0\r\n\r\n', { type: null, length: 0, keepAlive: true, hint: 7000, body: '' }],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n', { type: null, length: -1, keepAlive: true, hint: null, body: 'ok' }],
    // Same lengths as the framing names, other names: not read as framing.
    ['HTTP/1.1 200 OK\r\nContent_Type: text/plain\r\nContent-Lengthy: 5\r\nconnectionX: close\r\nContent-Length: 2\r\n\r\nok', { type: null, length: 2, keepAlive: true, hint: null, body: 'ok' }],
  ];
  for (const [wire, want] of cases) {
    const { p, seen } = parser();
    feed(p, wire, []);
    assert.is(seen.completed, 1, wire);
    assert.is(seen.heads[0].contentType, want.type, wire);
    assert.is(seen.heads[0].contentLength, want.length, wire);
    assert.is(seen.heads[0].keepAliveMs, want.hint, wire);
    assert.is(p.keepAlive, want.keepAlive, wire);
    assert.is(seen.body, want.body, wire);
  }
});

test('bytes after the message mark the connection as not reusable', () => {
  const { p, seen } = parser();
  feed(p, 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n', []);
  assert.is(seen.body, 'ok');
  assert.ok(p.trailingGarbage);
  assert.not.ok(p.keepAlive);
});

test('malformed responses are protocol errors', () => {
  const bad: [string, RegExp][] = [
    ['HTTP/2 200 OK\r\n\r\n', /status line/],
    ['SSH-2.0-OpenSSH\r\n\r\n', /status line/],
    ['HTTP/1.1 2x0 OK\r\n\r\n', /status line/],
    ['HTTP/1.1 101 Switching Protocols\r\n\r\n', /protocol switch/],
    ['HTTP/1.1 200 OK\r\nContent-Length: 12, 13\r\n\r\n', /conflicting content-length/],
    ['HTTP/1.1 200 OK\r\nContent-Length: 12\r\nContent-Length: 13\r\n\r\n', /conflicting content-length/],
    ['HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', /bad content-length/],
    ['HTTP/1.1 200 OK\r\nContent-Length: 1 2\r\n\r\n', /bad content-length/],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', /bad chunk size/],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n', /longer than its size/],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffff\r\n', /chunk too large/],
  ];
  for (const [wire, re] of bad) {
    const { p } = parser();
    throwsTransport(() => feed(p, wire, []), 'protocol_error', re);
  }
});

test('an agreeing repeated length is accepted', () => {
  const { p, seen } = parser();
  feed(p, 'HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\nok', []);
  assert.is(seen.body, 'ok');
  assert.is(seen.completed, 1);
});

test('a head over 64 KiB is refused', () => {
  const { p } = parser();
  const huge = 'HTTP/1.1 200 OK\r\n' + `X-Big: ${'a'.repeat(70_000)}\r\n`;
  throwsTransport(() => feed(p, huge, [1000, 40_000]), 'protocol_error', /64 KiB/);
});

test('the server closing early is a reset, before or during the response', () => {
  const before = parser();
  throwsTransport(() => before.p.finish(), 'connection_reset', /closed the connection$/);
  const midHead = parser();
  feed(midHead.p, 'HTTP/1.1 200 OK\r\nContent-Le', []);
  throwsTransport(() => midHead.p.finish(), 'connection_reset', /mid-response/);
  const midBody = parser();
  feed(midBody.p, 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc', []);
  throwsTransport(() => midBody.p.finish(), 'connection_reset', /mid-response/);
  const midChunk = parser();
  feed(midChunk.p, 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab', []);
  throwsTransport(() => midChunk.p.finish(), 'connection_reset', /mid-response/);
});

test('one parser serves consecutive responses after expect()', () => {
  const { p, seen } = parser();
  feed(p, 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na', []);
  p.expect();
  feed(p, 'HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nb\r\n0\r\n\r\n', []);
  assert.equal(seen.heads.map((h) => h.status), [200, 500]);
  assert.is(seen.body, 'ab');
  assert.is(seen.completed, 2);
});

test.run();
