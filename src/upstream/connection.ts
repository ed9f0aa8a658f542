import type { Socket } from 'node:net';
import { connectUpstream, type ConnectHandler, type PendingConnect, type Target } from './connector.js';
import { ResponseParser, type ResponseEvents, type ResponseHead } from './response-parser.js';
import type { RequestControl, ResponseSink } from './response-sink.js';
import { TransportError } from './transport-error.js';
import type { PayloadHold } from './payload-hold.js';

export const enum Phase {
  Connecting,
  Headers,
  Body,
  Idle,
  Closed,
}

/** What a connection tells its pool. */
export interface ConnectionOwner {
  released(c: Connection): void;
  closed(c: Connection): void;
  /** Sends again, on another socket, an exchange whose kept-alive socket was already closed. */
  resend(x: Exchange): void;
}

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
  /**
   * The hold on the slab the payload was written in (a large request the gateway wrote, lib/
   * request-slabs.ts), kept while the exchange may still be sent; each write holds it too.
   */
  lease: PayloadHold | null;
  #queue: { abort(x: Exchange): void };

  constructor(payload: string | Buffer | readonly Buffer[], sink: ResponseSink, queue: { abort(x: Exchange): void }, lease: PayloadHold | null = null) {
    this.payload = payload;
    this.sink = sink;
    this.#queue = queue;
    lease?.hold();
    this.lease = lease;
  }

  /** The payload is never sent again (its answer has begun, or the exchange failed): its hold goes. */
  letGo(): void {
    const l = this.lease;
    if (l === null) return;
    this.lease = null;
    l.release();
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
    this.letGo();
    this.sink.onResponseError(err);
  }
}

/**
 * One keep-alive HTTP/1.1 connection carrying one exchange at a time (no pipelining), over a
 * socket the connector (connector.ts) sets up: this class never knows whether TLS, a CONNECT
 * tunnel or SOCKS5 is under it. Timeouts are enforced by the pool's sweep, which reads `phase`,
 * `activity` and `since`.
 */
export class Connection implements ResponseEvents, ConnectHandler {
  phase = Phase.Connecting;
  /** Set on any progress; the sweep clears it and restarts the phase's clock. */
  activity = true;
  since = 0;
  paused = false;
  /** From the server's keep-alive hint, else null (the pool's default applies). */
  keepAliveMs: number | null = null;
  /** Null until the connector hands it over; a request waits to be written until then. */
  #socket: Socket | null = null;
  /** The connect under way, until it is done. */
  #connecting: PendingConnect | null;
  readonly #parser: ResponseParser;
  readonly #owner: ConnectionOwner;
  #exchange: Exchange | null = null;
  #completed = false;
  /** Exchanges this socket has carried to the end; above 0 the socket is a reused one. */
  #served = 0;
  /** Whether the current exchange has received any byte of its answer. */
  #answered = false;
  #error: Error | null = null;

  /** With `socket`, takes over one already connected (a TLS socket whose origin chose HTTP/1.1 over h2). */
  constructor(target: Target, owner: ConnectionOwner, socket?: Socket) {
    this.#owner = owner;
    this.#parser = new ResponseParser(this);
    if (socket === undefined) {
      this.#connecting = connectUpstream(target, this);
      return;
    }
    this.#connecting = null;
    socket.on('data', (b: Buffer) => this.onRead(b, b.length));
    this.onConnect(socket);
  }

  // --- ConnectHandler, called by the connector ---

  onConnect(socket: Socket): void {
    this.#connecting = null;
    this.#socket = socket;
    socket.on('end', () => this.#ended());
    socket.on('error', (e) => {
      this.#error = e;
    });
    socket.once('close', () => this.#closed());
    if (this.phase === Phase.Closed) {
      socket.destroy();
      return;
    }
    this.phase = this.#exchange !== null ? Phase.Headers : Phase.Idle;
    this.activity = true;
    if (this.#exchange !== null) this.#send(this.#exchange);
  }

  onConnectFailed(err: Error | null): void {
    this.#connecting = null;
    this.#error = err;
    this.#closed();
  }

  #send(x: Exchange): void {
    const socket = this.#socket!;
    const payload = x.payload;
    // A lent slab is held until the socket is done with it: the callback runs once the bytes are
    // written, or with an error once the socket has let them go.
    const lease = x.lease;
    lease?.hold();
    const written = lease === null ? undefined : lease.released;
    if (typeof payload === 'string' || Buffer.isBuffer(payload)) {
      socket.write(payload, written);
      return;
    }
    // Corked, the pieces leave in one writev instead of a copy of a 25 MB upload being made to join them.
    socket.cork();
    const last = payload.length - 1;
    if (last < 0) return;
    for (let i = 0; i < last; i++) socket.write(payload[i]);
    socket.write(payload[last], written);
    socket.uncork();
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
    if (this.#socket !== null) this.#send(x);
  }

  pauseFor(x: Exchange): void {
    if (this.#exchange !== x || this.paused) return;
    this.paused = true;
    this.#socket?.pause();
  }

  resumeFor(x: Exchange): void {
    if (this.#exchange !== x || !this.paused) return;
    this.paused = false;
    this.activity = true;
    this.#socket?.resume();
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
    // A socket still being set up is given up; the connector reports its close.
    if (this.#socket !== null) this.#socket.destroy();
    else this.#connecting?.cancel();
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
    x.letGo();
    x.sink.onResponseHead(head.status, head.contentType, head.contentLength);
  }

  onBody(view: Buffer): void {
    const x = this.#exchange;
    if (x !== null && !x.sink.onResponseData(view) && !this.paused) {
      this.paused = true;
      this.#socket!.pause();
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

  onRead(buf: Buffer, n: number): void {
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
      this.#socket!.resume();
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

/** A socket's failure as a transport error: refused or failed while connecting, else a reset. */
export function socketError(e: Error | null, connecting: boolean): TransportError {
  const code = (e as { code?: string } | null)?.code ?? '';
  if (connecting) {
    if (code === 'ECONNREFUSED') return new TransportError('connect_error', 'upstream refused the connection');
    return new TransportError('connect_error', `upstream connection failed${e ? `: ${e.message}` : ''}`);
  }
  return new TransportError('connection_reset', e && code !== 'ECONNRESET' && code !== 'EPIPE'
    ? `upstream connection failed: ${e.message}` : 'upstream closed the connection');
}
