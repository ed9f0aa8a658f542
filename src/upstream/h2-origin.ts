import { connect as h2connect, constants, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { socketError } from './connection.js';
import { connectUpstream, type ConnectHandler, type PendingConnect, type Target } from './connector.js';
import type { RequestControl, ResponseSink } from './response-sink.js';
import { TransportError } from './transport-error.js';
import type { PayloadHold } from './payload-hold.js';

export interface H2Options {
  /** Most sessions (sockets) to the origin. */
  sessions: number;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /** How long a session with no stream is kept. */
  idleTimeoutMs: number;
}

/** What the origin's TLS said when asked for h2: not asked yet, h2, or only HTTP/1.1. */
export type H2Support = 'unknown' | 'h2' | 'http/1.1';

/** Where a request goes when the origin turns out to speak only HTTP/1.1: the HTTP/1.1 pool. */
export interface H1Fallback {
  /** Sends the request over HTTP/1.1 to the same sink. */
  send(): RequestControl;
}

/** What an exchange's body becomes once its answer has begun. */
const SENT = Buffer.alloc(0);

/** Streams a session carries until the server's SETTINGS say otherwise (RFC 9113 suggests at least 100). */
const ASSUMED_MAX_STREAMS = 100;
/** Flow-control window per stream and for the session: a slow client pauses its stream, not its neighbours. */
const STREAM_WINDOW = 256 * 1024;
const SESSION_WINDOW = 8 * 1024 * 1024;

const enum Phase {
  Waiting,
  Headers,
  Body,
  Done,
}

/**
 * One request sent as an HTTP/2 stream (or, when the origin chose HTTP/1.1, through the fallback).
 * It is the caller's RequestControl from the start, before a session exists.
 */
class H2Exchange implements RequestControl {
  readonly headers: OutgoingHttpHeaders;
  /** Let go once the answer's head is in (it is resent only before then), as the HTTP/1.1 exchange does. */
  body: string | Buffer | readonly Buffer[];
  readonly sink: ResponseSink;
  readonly fallback: H1Fallback;
  stream: ClientHttp2Stream | null = null;
  session: H2Session | null = null;
  /** Set once the HTTP/1.1 pool carries it instead. */
  h1: RequestControl | null = null;
  phase = Phase.Waiting;
  activity = true;
  since = 0;
  paused = false;
  /** Already sent again once after its stream was refused unprocessed; never twice. */
  resent = false;
  /** The hold on the body's memory, when lent: each stream that carries the body holds it until it closes. */
  readonly lease: PayloadHold | null;
  readonly #origin: H2Origin;

  constructor(origin: H2Origin, headers: OutgoingHttpHeaders, body: string | Buffer | readonly Buffer[], sink: ResponseSink, fallback: H1Fallback,
    lease: PayloadHold | null) {
    this.#origin = origin;
    this.lease = lease;
    this.headers = headers;
    this.body = body;
    this.sink = sink;
    this.fallback = fallback;
  }

  get queueMs(): number {
    return this.h1 === null ? 0 : this.h1.queueMs;
  }

  pause(): void {
    if (this.h1 !== null) return this.h1.pause();
    if (this.paused) return;
    this.paused = true;
    this.stream?.pause();
  }

  resume(): void {
    if (this.h1 !== null) return this.h1.resume();
    if (!this.paused) return;
    this.paused = false;
    this.activity = true;
    this.stream?.resume();
  }

  abort(): void {
    if (this.h1 !== null) return this.h1.abort();
    this.fail(new TransportError('aborted', 'request aborted by the client'));
  }

  /** Ends the exchange with `err` (once), cancelling its stream if one is open. */
  fail(err: TransportError): void {
    if (this.phase === Phase.Done) return;
    this.phase = Phase.Done;
    const s = this.stream;
    if (s !== null && !s.closed) s.close(constants.NGHTTP2_CANCEL);
    this.#origin.finished(this);
    this.sink.onResponseError(err);
  }
}

/**
 * HTTP/2 sessions to one TLS origin (node:http2 over the connector's sockets, so TLS, CONNECT
 * tunnels and SOCKS5 work as for HTTP/1.1), for the requests the upstream client sends this way:
 * long streams by default. A held stream over HTTP/1.1 keeps a TLS connection of its own, 50.6 KiB
 * and ~1 ms of CPU to open; over HTTP/2, 100 of them share one: 7.8–12.7 KiB a stream, 139–166 µs
 * to open one, a third of the CPU per relayed chunk; a short request costs twice as much over
 * node:http2, so those stay on HTTP/1.1 (bench/h2-upstream.bench.ts, docs/benchmarks.md).
 *
 * The first connect offers h2 and HTTP/1.1 in ALPN. An origin that picks HTTP/1.1 is remembered
 * as such: its socket joins the HTTP/1.1 pool, and every request meant for HTTP/2 goes there.
 * Timeouts are enforced by one coarse sweep, as in the HTTP/1.1 pool.
 */
export class H2Origin {
  support: H2Support = 'unknown';
  readonly #target: Target;
  readonly #authority: string;
  readonly #o: H2Options;
  /** The HTTP/1.1 pool of the same origin takes over the socket of an origin that chose HTTP/1.1. */
  readonly #adopt: (socket: Socket) => void;
  readonly #sessions = new Set<H2Session>();
  readonly #inFlight = new Set<H2Exchange>();
  #sweep: NodeJS.Timeout | null = null;
  readonly #sweepMs: number;
  #closed = false;

  constructor(target: Target, options: H2Options, adopt: (socket: Socket) => void) {
    this.#target = { ...target, offerH2: true };
    this.#authority = `https://${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
    this.#o = options;
    this.#adopt = adopt;
    const shortest = Math.min(options.connectTimeoutMs, options.headersTimeoutMs, options.bodyTimeoutMs);
    this.#sweepMs = Math.max(10, Math.min(1000, Math.floor(shortest / 8)));
  }

  /**
   * Sends one request: `headers` with the pseudo-headers, `body` as the stream's data. Once the
   * origin is known to speak only HTTP/1.1, `fallback` sends it instead.
   */
  request(headers: OutgoingHttpHeaders, body: string | Buffer | readonly Buffer[], sink: ResponseSink, fallback: H1Fallback,
    lease: PayloadHold | null = null): RequestControl {
    const x = new H2Exchange(this, headers, body, sink, fallback, lease);
    if (this.#closed) {
      x.phase = Phase.Done;
      sink.onResponseError(new TransportError('closed', 'gateway is shutting down'));
      return x;
    }
    this.#dispatch(x);
    return x;
  }

  /** Sessions open and streams in flight over them, now. */
  load(): { sessions: number; streams: number } {
    let streams = 0;
    for (const x of this.#inFlight) if (x.stream !== null) streams++;
    return { sessions: this.#sessions.size, streams };
  }

  #dispatch(x: H2Exchange): void {
    if (this.support === 'http/1.1') {
      this.#toH1(x);
      return;
    }
    this.#inFlight.add(x);
    x.since = performance.now();
    x.activity = true;
    this.#ensureSweep();
    let chosen: H2Session | null = null;
    for (const s of this.#sessions) {
      if (s.hasRoom() && (chosen === null || s.load() < chosen.load())) chosen = s;
    }
    if (chosen === null) {
      if (this.#sessions.size >= this.#o.sessions) {
        this.#inFlight.delete(x);
        x.phase = Phase.Done;
        x.sink.onResponseError(new TransportError('saturated', `all ${this.#o.sessions} HTTP/2 sessions to the provider are full`));
        return;
      }
      chosen = new H2Session(this, this.#target, this.#authority);
      this.#sessions.add(chosen);
    }
    chosen.take(x);
  }

  #toH1(x: H2Exchange): void {
    this.#inFlight.delete(x);
    if (x.phase === Phase.Done) return;
    x.h1 = x.fallback.send();
    // A pause asked for before the hand-over carries over.
    if (x.paused) x.h1.pause();
  }

  // --- called by sessions and exchanges ---

  /** The session's socket is connected and its origin picked HTTP/1.1: the pool takes the socket, and the waiting requests. */
  choseHttp1(s: H2Session, socket: Socket, waiting: H2Exchange[]): void {
    this.support = 'http/1.1';
    this.#sessions.delete(s);
    this.#adopt(socket);
    for (const x of waiting) this.#toH1(x);
    // Requests waiting on other sessions still connecting follow when theirs report.
  }

  choseH2(): void {
    this.support = 'h2';
  }

  sessionClosed(s: H2Session): void {
    this.#sessions.delete(s);
    this.#stopSweepWhenIdle();
  }

  /** A request whose stream was refused before the server processed it: once more, on another session. */
  resend(x: H2Exchange): void {
    x.resent = true;
    x.stream = null;
    x.session = null;
    x.phase = Phase.Waiting;
    this.#dispatch(x);
  }

  finished(x: H2Exchange): void {
    this.#inFlight.delete(x);
    x.session?.release(x);
  }

  async close(graceMs = 10_000): Promise<void> {
    this.#closed = true;
    const deadline = Date.now() + graceMs;
    while (this.#inFlight.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    for (const x of [...this.#inFlight]) x.fail(new TransportError('closed', 'gateway is shutting down'));
    for (const s of [...this.#sessions]) s.destroy();
  }

  get closing(): boolean {
    return this.#closed;
  }

  #ensureSweep(): void {
    if (this.#sweep !== null) return;
    this.#sweep = setInterval(() => this.#check(), this.#sweepMs);
    this.#sweep.unref();
  }

  #stopSweepWhenIdle(): void {
    if (this.#sessions.size === 0 && this.#inFlight.size === 0 && this.#sweep !== null) {
      clearInterval(this.#sweep);
      this.#sweep = null;
    }
  }

  #check(): void {
    const now = performance.now();
    for (const x of [...this.#inFlight]) {
      if (x.activity || x.paused) {
        x.activity = false;
        x.since = now;
        continue;
      }
      const quiet = now - x.since;
      switch (x.phase) {
        // Phase.Waiting: the session's connect timeout applies (H2Session.check).
        case Phase.Headers:
          if (quiet >= this.#o.headersTimeoutMs) x.fail(new TransportError('headers_timeout', 'upstream did not answer in time (headers timeout)'));
          break;
        case Phase.Body:
          if (quiet >= this.#o.bodyTimeoutMs) x.fail(new TransportError('body_timeout', 'upstream went silent mid-body (body timeout)'));
          break;
      }
    }
    for (const s of [...this.#sessions]) s.check(now, this.#o);
    this.#stopSweepWhenIdle();
  }
}

/** One HTTP/2 connection: its streams, and the requests waiting for it to connect. */
class H2Session implements ConnectHandler {
  readonly #origin: H2Origin;
  readonly #authority: string;
  #connecting: PendingConnect | null;
  #session: ClientHttp2Session | null = null;
  #waiting: H2Exchange[] = [];
  readonly #streams = new Set<H2Exchange>();
  /** The server's SETTINGS_MAX_CONCURRENT_STREAMS once known. */
  #max = ASSUMED_MAX_STREAMS;
  /** GOAWAY received, or closing: no new stream. */
  #draining = false;
  #idleSince = performance.now();
  readonly #startedAt = performance.now();
  #timedOut = false;
  #error: Error | null = null;

  constructor(origin: H2Origin, target: Target, authority: string) {
    this.#origin = origin;
    this.#authority = authority;
    this.#connecting = connectUpstream(target, this);
  }

  load(): number {
    return this.#streams.size + this.#waiting.length;
  }

  hasRoom(): boolean {
    return !this.#draining && this.load() < this.#max;
  }

  take(x: H2Exchange): void {
    x.session = this;
    if (this.#session === null) this.#waiting.push(x);
    else this.#open(x);
  }

  release(x: H2Exchange): void {
    if (x.session !== this) return;
    x.session = null;
    if (this.#streams.delete(x) && this.#streams.size === 0) this.#idleSince = performance.now();
    const i = this.#waiting.indexOf(x);
    if (i >= 0) this.#waiting.splice(i, 1);
  }

  /** The sweep: a connect that takes too long is given up, a session idle too long closed. */
  check(now: number, o: H2Options): void {
    if (this.#session === null) {
      if (now - this.#startedAt >= o.connectTimeoutMs) {
        this.#timedOut = true;
        this.destroy();
      }
    } else if (this.#streams.size === 0 && this.#waiting.length === 0 && now - this.#idleSince >= o.idleTimeoutMs) {
      this.destroy();
    }
  }

  destroy(): void {
    this.#draining = true;
    if (this.#session !== null) this.#session.destroy();
    else this.#connecting?.cancel();
  }

  // --- ConnectHandler ---

  onConnect(socket: Socket): void {
    this.#connecting = null;
    if (this.#draining) {
      socket.destroy();
      return;
    }
    if ((socket as TLSSocket).alpnProtocol !== 'h2') {
      const waiting = this.#waiting;
      this.#waiting = [];
      this.#draining = true;
      this.#origin.choseHttp1(this, socket, waiting);
      return;
    }
    this.#origin.choseH2();
    const session = h2connect(this.#authority, {
      createConnection: () => socket,
      settings: { enablePush: false, initialWindowSize: STREAM_WINDOW },
    });
    this.#session = session;
    session.once('connect', () => session.setLocalWindowSize(SESSION_WINDOW));
    session.on('remoteSettings', (settings) => {
      if (settings.maxConcurrentStreams !== undefined) this.#max = Math.max(1, Math.min(settings.maxConcurrentStreams, 1_000));
    });
    session.on('goaway', () => {
      this.#draining = true;
    });
    session.on('error', (e) => {
      this.#error ??= e;
    });
    session.once('close', () => this.#closed());
    // No session keeps the process alive; the sweep closes idle ones.
    socket.unref();
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const x of waiting) this.#open(x);
  }

  onConnectFailed(err: Error | null): void {
    this.#connecting = null;
    this.#error = err;
    this.#closed();
  }

  onRead(): void {
    // The socket is read by node:http2 (the connect left it unread).
  }

  #open(x: H2Exchange): void {
    if (x.phase === Phase.Done) return;
    const session = this.#session!;
    let stream: ClientHttp2Stream;
    try {
      stream = session.request(x.headers, { endStream: false });
    } catch (e) {
      x.fail(new TransportError('connection_reset', `upstream HTTP/2 session refused a new stream: ${(e as Error).message}`));
      return;
    }
    this.#streams.add(x);
    x.stream = stream;
    x.phase = Phase.Headers;
    x.activity = true;
    // node:http2 emits 'response' a tick after the HEADERS frame, so DATA read in the same turn
    // would reach a 'data' listener first: a fast answer then looked empty (3–14 streams in 1,000 answered
    // 502 in the gateway; test/e2e/upstream-http2.test.ts).
    // The body is read only once the head is in: until then the stream is not flowing and keeps it.
    stream.once('response', (h: IncomingHttpHeaders) => {
      if (x.phase !== Phase.Headers) return;
      x.phase = Phase.Body;
      x.activity = true;
      x.body = SENT;
      const status = Number(h[':status']);
      const type = h['content-type'];
      const length = h['content-length'];
      x.sink.onResponseHead(status, type === undefined ? null : type, length === undefined ? -1 : Number(length));
      if (x.phase !== Phase.Body) return;
      stream.on('data', (chunk: Buffer) => {
        if (x.phase !== Phase.Body) return;
        x.activity = true;
        if (!x.sink.onResponseData(chunk) && !x.paused) {
          x.paused = true;
          stream.pause();
        }
      });
      stream.once('end', () => {
        if (x.phase !== Phase.Body) return;
        x.phase = Phase.Done;
        this.#origin.finished(x);
        x.sink.onResponseEnd();
      });
      if (x.paused) stream.pause();
    });
    stream.on('error', () => {
      // Reported by 'close', with the stream's reset code.
    });
    stream.once('close', () => this.#streamClosed(x, stream));
    const body = x.body;
    // A lent slab (lib/request-slabs.ts) is held while the stream may still read it: until it closes.
    const lease = x.lease;
    if (lease !== null) {
      lease.hold();
      stream.once('close', lease.released);
    }
    if (typeof body === 'string' || Buffer.isBuffer(body)) stream.end(body);
    else {
      for (const piece of body) stream.write(piece);
      stream.end();
    }
  }

  #streamClosed(x: H2Exchange, stream: ClientHttp2Stream): void {
    if (x.phase === Phase.Done || x.stream !== stream) return;
    const code = stream.rstCode;
    // Refused unprocessed (RST_STREAM REFUSED_STREAM, or above a GOAWAY's last stream id): safe to send again.
    // nghttp2 closes the streams above a GOAWAY's last stream id with the same code.
    if (x.phase === Phase.Headers && !x.resent && !this.#origin.closing && code === constants.NGHTTP2_REFUSED_STREAM) {
      this.#streams.delete(x);
      this.#origin.resend(x);
      return;
    }
    const detail = code !== undefined && code !== constants.NGHTTP2_NO_ERROR ? ` (HTTP/2 error ${code})` : '';
    x.fail(new TransportError(x.phase === Phase.Headers && code === constants.NGHTTP2_PROTOCOL_ERROR ? 'protocol_error' : 'connection_reset',
      `upstream closed the HTTP/2 stream${detail}`));
  }

  #closed(): void {
    this.#draining = true;
    this.#origin.sessionClosed(this);
    const e = this.#error;
    const connecting = this.#session === null;
    const failure = !connecting ? new TransportError('connection_reset', 'upstream closed the HTTP/2 session')
      : this.#timedOut ? new TransportError('connect_timeout', 'upstream connect timeout') : socketError(e, true);
    for (const x of this.#waiting.splice(0)) x.fail(failure);
    for (const x of [...this.#streams]) {
      // Normally each stream's own close reported it already.
      x.fail(new TransportError('connection_reset', `upstream closed the HTTP/2 session${e ? `: ${e.message}` : ''}`));
    }
  }
}
