import { connect as netConnect, isIP, isIPv6, type LookupFunction, type Socket } from 'node:net';
import { connect as tlsConnect, createSecureContext, type SecureContext } from 'node:tls';
import { socks5Connect } from './socks5.js';
import { ResponseParser, type ResponseEvents, type ResponseHead } from './response-parser.js';
import type { RequestControl, ResponseSink } from './response-sink.js';
import { TransportError } from './transport-error.js';

export const enum Phase {
  Connecting,
  Headers,
  Body,
  Idle,
  Closed,
}

export interface Target {
  host: string;
  port: number;
  tls: boolean;
  ca?: string | Buffer;
  /** Made once from `ca` by secureContextOf and shared by every TLS connection to this target and its proxy. */
  context?: SecureContext;
  /** The latest TLS session the origin gave us: a new connection resumes it instead of a full handshake. */
  session?: Buffer;
  /** A proxy to reach the origin through: an HTTP CONNECT tunnel, or SOCKS5 (TLS is still end to end). */
  tunnel?: TunnelProxy;
  /** Resolves the origin's name for a direct connection (a guard that refuses internal addresses). */
  lookup?: LookupFunction;
}

export interface TunnelProxy {
  host: string;
  port: number;
  /** TLS to the proxy itself (an https:// proxy), verified against `Target.ca` or the bundled roots. */
  tls: boolean;
  /** The `proxy-authorization` value, or null. */
  authorization: string | null;
  /** A SOCKS5 proxy instead of an HTTP one. */
  socks?: { remoteDns: boolean; username: string | null; password: string | null } | null;
}

/** The longest answer to CONNECT we read; a proxy's status line and headers are far shorter. */
const MAX_TUNNEL_HEAD = 16 * 1024;

/**
 * The TLS context (trusted roots, protocol settings) for a target's connections, made on first use.
 * tls.connect without one builds a new context per connection, loading the certificate store each
 * time: 1,000 streams opened to a TLS provider spent 336 ms in SecureContext and its configuration,
 * about 170 µs a connection (bench/slow-streams.bench.ts with BENCH_SLOW_TLS=1, --cpu-prof), and
 * each connection kept a context of its own for as long as it lived.
 */
export function secureContextOf(target: Target): SecureContext {
  return (target.context ??= createSecureContext({ ca: target.ca }));
}

/** What a connection tells its pool. */
export interface ConnectionOwner {
  released(c: Connection): void;
  closed(c: Connection): void;
  /** Sends again, on another socket, an exchange whose kept-alive socket was already closed. */
  resend(x: Exchange): void;
}

// Every plain-TCP read lands in this one buffer and is parsed before the callback returns:
// the parser copies what it keeps, so one buffer serves all connections and no read allocates.
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

/** What an exchange's payload becomes once its answer has begun. */
const SENT = Buffer.alloc(0);

/** One request in flight or waiting for a connection; its control is handed to the caller. */
export class Exchange implements RequestControl {
  /**
   * The framed request: one string or buffer, or pieces (a large upload) written together without
   * being joined. Let go once the answer's head is in (see Connection.onHead).
   */
  payload: string | Buffer | readonly Buffer[];
  readonly sink: ResponseSink;
  connection: Connection | null = null;
  finished = false;
  /** Already resent once after finding its reused socket closed; never resent twice. */
  resent = false;
  /** When it joined the pool's queue (performance.now()); 0 while it never waited. */
  queuedAt = 0;
  /** How long it waited for a connection, in ms; 0 when one was free. */
  queueMs = 0;
  #queue: { abort(x: Exchange): void };

  constructor(payload: string | Buffer | readonly Buffer[], sink: ResponseSink, queue: { abort(x: Exchange): void }) {
    this.payload = payload;
    this.sink = sink;
    this.#queue = queue;
  }

  pause(): void {
    this.connection?.pauseFor(this);
  }

  resume(): void {
    this.connection?.resumeFor(this);
  }

  abort(): void {
    if (this.finished) return;
    if (this.connection !== null) this.connection.abortFor(this);
    else this.#queue.abort(this);
  }

  fail(err: TransportError): void {
    if (this.finished) return;
    this.finished = true;
    this.sink.onResponseError(err);
  }
}

/**
 * One keep-alive HTTP/1.1 connection carrying one exchange at a time (no pipelining). Timeouts
 * are enforced by the pool's sweep, which reads `phase`, `activity` and `since`.
 */
export class Connection implements ResponseEvents {
  phase = Phase.Connecting;
  /** Set on any progress; the sweep clears it and restarts the phase's clock. */
  activity = true;
  since = 0;
  paused = false;
  /** From the server's keep-alive hint, else null (the pool's default applies). */
  keepAliveMs: number | null = null;
  #socket: Socket;
  /** While a proxy tunnel is being opened: the request waits to be written into it. */
  #tunnelling = false;
  readonly #parser: ResponseParser;
  readonly #owner: ConnectionOwner;
  #exchange: Exchange | null = null;
  #completed = false;
  /** Exchanges this socket has carried to the end; above 0 the socket is a reused one. */
  #served = 0;
  /** Whether the current exchange has received any byte of its answer. */
  #answered = false;
  #error: Error | null = null;
  /** A proxy socket's close, until the tunnel through it is open. */
  readonly #proxyClosed = (): void => this.#closed();

  constructor(target: Target, owner: ConnectionOwner) {
    this.#owner = owner;
    this.#parser = new ResponseParser(this);
    if (target.tunnel !== undefined) {
      this.#socket = target.tunnel.socks != null ? this.#openSocks(target, target.tunnel) : this.#openTunnel(target, target.tunnel);
    } else if (target.tls) {
      this.#socket = this.#secure(target, undefined);
    } else {
      this.#socket = netConnect({
        host: target.host,
        port: target.port,
        lookup: target.lookup,
        onread: { buffer: READ_BUFFER, callback: (n: number, b: Uint8Array) => { this.#read(b as Buffer, n); return true; } },
      });
      this.#socket.once('connect', () => this.#connected());
      this.#watch(this.#socket);
    }
  }

  /** TLS to the origin, directly or over an open proxy tunnel. */
  #secure(target: Target, tunnel: Socket | undefined): Socket {
    const s = tlsConnect({
      socket: tunnel, host: target.host, port: target.port, servername: isIP(target.host) ? undefined : target.host,
      ALPNProtocols: ['http/1.1'], secureContext: secureContextOf(target), session: target.session,
      lookup: tunnel === undefined ? target.lookup : undefined,
    });
    s.on('session', (session: Buffer) => {
      target.session = session;
    });
    s.on('data', (b: Buffer) => this.#read(b, b.length));
    s.once('secureConnect', () => this.#connected());
    this.#watch(s);
    return s;
  }

  #watch(s: Socket): void {
    s.setNoDelay(true);
    s.on('end', () => this.#ended());
    s.on('error', (e) => {
      this.#error = e;
    });
    s.once('close', () => this.#closed());
  }

  /**
   * TCP (or TLS) to the proxy and `CONNECT host:port`; once the proxy answers 2xx the same socket
   * carries TLS to the origin. Any other answer fails the connect with the proxy's status line.
   * The pool's connect timeout covers the whole exchange.
   */
  #openTunnel(target: Target, proxy: TunnelProxy): Socket {
    // Over an https proxy the origin's TLS runs inside the proxy's: TLS over a TLS socket.
    const raw = this.#toProxy(proxy.tls
      ? tlsConnect({ host: proxy.host, port: proxy.port, servername: isIP(proxy.host) ? undefined : proxy.host, secureContext: secureContextOf(target) })
      : netConnect({ host: proxy.host, port: proxy.port }), proxy);
    const authority = `${isIPv6(target.host) ? `[${target.host}]` : target.host}:${target.port}`;
    raw.write(`CONNECT ${authority} HTTP/1.1\r\nhost: ${authority}\r\n` +
      `${proxy.authorization === null ? '' : `proxy-authorization: ${proxy.authorization}\r\n`}\r\n`);
    let head: Buffer = Buffer.alloc(0);
    const onData = (b: Buffer): void => {
      head = head.length === 0 ? b : Buffer.concat([head, b]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > MAX_TUNNEL_HEAD) this.#refuseTunnel(raw, `proxy sent more than ${MAX_TUNNEL_HEAD} bytes without ending its answer to CONNECT`);
        return;
      }
      const statusLine = head.toString('latin1', 0, head.indexOf('\r\n'));
      if (!/^HTTP\/1\.[01] 2\d\d(?: |$)/.test(statusLine)) {
        this.#refuseTunnel(raw, `proxy ${proxy.host}:${proxy.port} refused the tunnel to ${authority}: ${statusLine.slice(0, 200)}`);
        return;
      }
      if (end + 4 < head.length) {
        // The origin's TLS has not started, so nothing may come through the tunnel yet.
        this.#refuseTunnel(raw, `proxy ${proxy.host}:${proxy.port} sent bytes after accepting the tunnel to ${authority}`);
        return;
      }
      raw.off('data', onData);
      this.#tunnelOpen(raw, target);
    };
    raw.on('data', onData);
    return raw;
  }

  /**
   * TCP to a SOCKS5 proxy and its CONNECT to the origin; then TLS over it for an https origin, or
   * plain HTTP for an http one. The pool's connect timeout covers the whole handshake.
   */
  #openSocks(target: Target, proxy: TunnelProxy): Socket {
    const raw = this.#toProxy(netConnect({ host: proxy.host, port: proxy.port }), proxy);
    const s = proxy.socks!;
    socks5Connect(raw, { host: target.host, port: target.port, remoteDns: s.remoteDns, username: s.username, password: s.password })
      .then(() => {
        if (this.phase !== Phase.Closed) this.#tunnelOpen(raw, target);
      }, (e: Error) => this.#refuseTunnel(raw, `SOCKS5 proxy ${proxy.host}:${proxy.port}: ${e.message}`));
    return raw;
  }

  /** A socket to a proxy: until the tunnel through it is open, its failures fail the connect, naming the proxy. */
  #toProxy(raw: Socket, proxy: TunnelProxy): Socket {
    this.#tunnelling = true;
    raw.setNoDelay(true);
    raw.once('close', this.#proxyClosed);
    // Errors after the handover reach the socket that takes over too; this listener keeps them handled.
    raw.on('error', (e) => {
      this.#error = this.#tunnelling ? new Error(`proxy ${proxy.host}:${proxy.port} failed: ${e.message}`) : e;
    });
    return raw;
  }

  /** The tunnel is open: TLS to the origin inside it, or plain HTTP through it; a waiting request goes out. */
  #tunnelOpen(raw: Socket, target: Target): void {
    raw.off('close', this.#proxyClosed);
    this.#tunnelling = false;
    if (target.tls) {
      this.#socket = this.#secure(target, raw);
    } else {
      raw.on('data', (b: Buffer) => this.#read(b, b.length));
      this.#watch(raw);
      this.#connected();
    }
    if (this.#exchange !== null) this.#send(this.#exchange.payload);
  }

  #send(payload: string | Buffer | readonly Buffer[]): void {
    if (typeof payload === 'string' || Buffer.isBuffer(payload)) {
      this.#socket.write(payload);
      return;
    }
    // Corked, the pieces leave in one writev instead of a copy of a 25 MB upload being made to join them.
    this.#socket.cork();
    for (const piece of payload) this.#socket.write(piece);
    this.#socket.uncork();
  }

  #refuseTunnel(raw: Socket, message: string): void {
    this.#error = new Error(message);
    raw.destroy();
  }

  get busy(): boolean {
    return this.#exchange !== null;
  }

  /** Sends the exchange's request; the socket buffers it while still connecting. */
  start(x: Exchange): void {
    this.#exchange = x;
    x.connection = this;
    this.#completed = false;
    this.#answered = false;
    this.#parser.expect();
    if (this.phase !== Phase.Connecting) this.phase = Phase.Headers;
    this.activity = true;
    this.paused = false;
    if (!this.#tunnelling) this.#send(x.payload);
  }

  pauseFor(x: Exchange): void {
    if (this.#exchange !== x || this.paused) return;
    this.paused = true;
    this.#socket.pause();
  }

  resumeFor(x: Exchange): void {
    if (this.#exchange !== x || !this.paused) return;
    this.paused = false;
    this.activity = true;
    this.#socket.resume();
  }

  abortFor(x: Exchange): void {
    if (this.#exchange !== x) return;
    this.#exchange = null;
    x.fail(new TransportError('aborted', 'request aborted by the client'));
    this.destroy();
  }

  /** Fails the exchange in flight (if any) with `err` and closes the socket. */
  fail(err: TransportError): void {
    const x = this.#exchange;
    this.#exchange = null;
    x?.fail(err);
    this.destroy();
  }

  destroy(): void {
    if (this.phase === Phase.Closed) return;
    this.phase = Phase.Closed;
    this.#socket.destroy();
  }

  // --- ResponseEvents, called from inside parser.execute ---

  onHead(head: ResponseHead): void {
    this.keepAliveMs = head.keepAliveMs;
    this.phase = Phase.Body;
    const x = this.#exchange;
    if (x === null) return;
    // The request is never sent again once its answer has begun (a resend is only for a socket
    // closed before any byte came back), so its bytes are let go here rather than held for as long
    // as the answer lasts: a held stream kept a copy of its whole request, 100 KiB of RSS per
    // stream for 100 KiB agent turns (bench/slow-streams.bench.ts, BENCH_SLOW_BODY_KB=100).
    x.payload = SENT;
    x.sink.onResponseHead(head.status, head.contentType, head.contentLength);
  }

  onBody(view: Buffer): void {
    const x = this.#exchange;
    if (x !== null && !x.sink.onResponseData(view) && !this.paused) {
      this.paused = true;
      this.#socket.pause();
    }
  }

  onComplete(): void {
    this.#completed = true;
    const x = this.#exchange;
    if (x === null || x.finished) return;
    x.finished = true;
    x.sink.onResponseEnd();
  }

  // --- socket events ---

  #connected(): void {
    if (this.phase === Phase.Closed) return;
    this.phase = this.#exchange !== null ? Phase.Headers : Phase.Idle;
    this.activity = true;
  }

  #read(buf: Buffer, n: number): void {
    this.activity = true;
    this.#answered = true;
    if (this.#exchange === null) {
      // Bytes with no request outstanding: a server error page or a protocol violation.
      this.destroy();
      return;
    }
    try {
      this.#parser.execute(buf, 0, n);
    } catch (e) {
      this.fail(e instanceof TransportError ? e : new TransportError('protocol_error', String(e)));
      return;
    }
    if (this.#completed) this.#finishExchange();
  }

  #finishExchange(): void {
    this.#exchange = null;
    this.#served++;
    this.#completed = false;
    if (this.paused) {
      this.paused = false;
      this.#socket.resume();
    }
    if (!this.#parser.keepAlive || this.phase === Phase.Closed) {
      this.destroy();
      return;
    }
    this.phase = Phase.Idle;
    this.activity = true;
    this.#owner.released(this);
  }

  #ended(): void {
    if (this.#exchange !== null && this.#answered) {
      try {
        this.#parser.finish();
      } catch (e) {
        this.fail(e as TransportError);
        return;
      }
      if (this.#completed) {
        this.#exchange = null;
        this.#completed = false;
      }
    }
    this.destroy();
  }

  #closed(): void {
    const wasConnecting = this.phase === Phase.Connecting;
    this.phase = Phase.Closed;
    const x = this.#exchange;
    this.#exchange = null;
    if (x !== null && this.#staleSocket(x)) {
      x.resent = true;
      x.connection = null;
      this.#owner.closed(this);
      this.#owner.resend(x);
      return;
    }
    if (x !== null) x.fail(socketError(this.#error, wasConnecting));
    this.#owner.closed(this);
  }

  /**
   * A kept-alive socket the server closed while our request was on its way: the close arrived
   * before any byte of an answer, so the server dropped the socket as idle rather than failing
   * the request. Browsers resend in this case, once, on another socket (failover would resend it
   * to another provider anyway); without it a single-provider gateway would answer 502 after
   * every idle spell a server cuts short.
   */
  #staleSocket(x: Exchange): boolean {
    if (this.#served === 0 || this.#answered || x.resent || x.finished) return false;
    const code = (this.#error as { code?: string } | null)?.code;
    return this.#error === null || code === 'ECONNRESET' || code === 'EPIPE';
  }
}

function socketError(e: Error | null, connecting: boolean): TransportError {
  const code = (e as { code?: string } | null)?.code ?? '';
  if (connecting) {
    if (code === 'ECONNREFUSED') return new TransportError('connect_error', 'upstream refused the connection');
    return new TransportError('connect_error', `upstream connection failed${e ? `: ${e.message}` : ''}`);
  }
  return new TransportError('connection_reset', e && code !== 'ECONNRESET' && code !== 'EPIPE'
    ? `upstream connection failed: ${e.message}` : 'upstream closed the connection');
}
