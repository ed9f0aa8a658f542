import { lookup } from 'node:dns/promises';
import { connect as netConnect, isIP, isIPv6, type LookupFunction, type Socket } from 'node:net';
import { connect as tlsConnect, createSecureContext, type SecureContext } from 'node:tls';
import { SocksClient } from 'socks';

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
  /**
   * Offer HTTP/2 as well in TLS's ALPN, and leave the socket unread: its new owner (node:http2,
   * or an HTTP/1.1 connection when the origin chose that) reads it. See h2-origin.ts.
   */
  offerH2?: boolean;
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

/** What a connect reports to the one who asked for it (the HTTP exchange's connection). */
export interface ConnectHandler {
  /** The socket now carries the origin's bytes, which go to onRead; the handler owns it from here. */
  onConnect(socket: Socket): void;
  /** The connect failed (or was cancelled) and its sockets are closed; null when one closed without an error. */
  onConnectFailed(err: Error | null): void;
  /** Bytes from the origin: `buf` may be a buffer shared by every connection, valid only during the call. */
  onRead(buf: Buffer, n: number): void;
}

/** A connect under way. */
export interface PendingConnect {
  /** Gives up: the socket in progress is destroyed, and onConnectFailed follows. */
  cancel(): void;
}

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

/**
 * Opens a socket to `target` for an HTTP/1.1 exchange, as undici's buildConnector does for its
 * client: TCP, TLS with the target's shared secure context (resuming its last session), through
 * an HTTP CONNECT tunnel, or through SOCKS5 (the `socks` library). The handler is told once,
 * onConnect or onConnectFailed; its onRead gets the origin's bytes from then on. The caller's
 * connect timeout covers the whole setup: it cancels.
 */
export function connectUpstream(target: Target, handler: ConnectHandler): PendingConnect {
  return new Connect(target, handler);
}

const HTTP1 = ['http/1.1'];
const H2_OR_HTTP1 = ['h2', 'http/1.1'];

// Every plain-TCP read lands in this one buffer and is parsed before the callback returns:
// the parser copies what it keeps, so one buffer serves all connections and no read allocates.
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

/** The longest answer to CONNECT we read; a proxy's status line and headers are far shorter. */
const MAX_TUNNEL_HEAD = 16 * 1024;

/** RFC 1928 section 6, by the names the `socks` library gives the reply codes. */
const SOCKS_REPLIES: Record<string, string> = {
  Failure: 'general SOCKS server failure', NotAllowed: 'connection not allowed by ruleset', NetworkUnreachable: 'network unreachable',
  HostUnreachable: 'host unreachable', ConnectionRefused: 'connection refused', TTLExpired: 'TTL expired',
  CommandNotSupported: 'command not supported', AddressNotSupported: 'address type not supported',
};

class Connect implements PendingConnect {
  readonly #target: Target;
  readonly #handler: ConnectHandler;
  /** The socket being set up: to the origin, or to the proxy until the tunnel through it is open. */
  #socket: Socket;
  #error: Error | null = null;
  #settled = false;
  readonly #closed = (): void => this.#fail();

  constructor(target: Target, handler: ConnectHandler) {
    this.#target = target;
    this.#handler = handler;
    const proxy = target.tunnel;
    if (proxy !== undefined) this.#socket = proxy.socks != null ? this.#openSocks(proxy) : this.#openTunnel(proxy);
    else if (target.tls) this.#socket = this.#secure(undefined);
    else {
      this.#socket = this.#follow(netConnect({
        host: target.host,
        port: target.port,
        lookup: target.lookup,
        onread: { buffer: READ_BUFFER, callback: (n: number, b: Uint8Array) => { handler.onRead(b as Buffer, n); return true; } },
      }));
      this.#socket.once('connect', () => this.#connected());
    }
  }

  cancel(): void {
    this.#socket.destroy();
  }

  /** Watches the socket being set up: until the handover, its failure fails the connect. */
  #follow(s: Socket): Socket {
    s.setNoDelay(true);
    s.on('error', this.#onError);
    s.once('close', this.#closed);
    return s;
  }

  readonly #onError = (e: Error): void => {
    if (!this.#settled) this.#error ??= e;
  };

  #connected(): void {
    // A cancelled connect reports its close instead, whatever finished meanwhile.
    if (this.#settled || this.#socket.destroyed) return;
    this.#settled = true;
    this.#socket.off('close', this.#closed);
    this.#socket.off('error', this.#onError);
    this.#handler.onConnect(this.#socket);
  }

  #fail(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#handler.onConnectFailed(this.#error);
  }

  /** A failure that names its reason: the socket is destroyed, and its close reports it. */
  #refuse(s: Socket, message: string): void {
    this.#error ??= new Error(message);
    s.destroy();
  }

  /** TLS to the origin, directly or over an open proxy tunnel. */
  #secure(tunnel: Socket | undefined): Socket {
    const target = this.#target;
    const s = tlsConnect({
      socket: tunnel, host: target.host, port: target.port, servername: isIP(target.host) ? undefined : target.host,
      ALPNProtocols: target.offerH2 === true ? H2_OR_HTTP1 : HTTP1, secureContext: secureContextOf(target), session: target.session,
      lookup: tunnel === undefined ? target.lookup : undefined,
    });
    s.on('session', (session: Buffer) => {
      target.session = session;
    });
    if (target.offerH2 !== true) s.on('data', (b: Buffer) => this.#handler.onRead(b, b.length));
    s.once('secureConnect', () => this.#connected());
    return this.#follow(s);
  }

  /**
   * A socket to a proxy: until the tunnel through it is open, its failures fail the connect,
   * naming the proxy. Its errors after the handover reach the socket that takes over too; the
   * listener stays to keep them handled.
   */
  #toProxy(raw: Socket, proxy: TunnelProxy): Socket {
    raw.on('error', (e) => {
      if (!this.#settled && this.#socket === raw) this.#error ??= new Error(`proxy ${proxy.host}:${proxy.port} failed: ${e.message}`);
    });
    return this.#follow(raw);
  }

  /** The tunnel is open: TLS to the origin inside it, or plain HTTP through it. */
  #tunnelOpen(raw: Socket): void {
    if (this.#settled || raw.destroyed) return;
    if (this.#target.tls) {
      raw.off('close', this.#closed);
      raw.off('error', this.#onError);
      this.#socket = this.#secure(raw);
    } else {
      raw.on('data', (b: Buffer) => this.#handler.onRead(b, b.length));
      this.#connected();
    }
  }

  /**
   * TCP (or TLS) to the proxy and `CONNECT host:port`; once the proxy answers 2xx the same socket
   * carries the origin's bytes. Any other answer fails the connect with the proxy's status line.
   */
  #openTunnel(proxy: TunnelProxy): Socket {
    const target = this.#target;
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
        if (head.length > MAX_TUNNEL_HEAD) this.#refuse(raw, `proxy sent more than ${MAX_TUNNEL_HEAD} bytes without ending its answer to CONNECT`);
        return;
      }
      raw.off('data', onData);
      const statusLine = head.toString('latin1', 0, head.indexOf('\r\n'));
      if (!/^HTTP\/1\.[01] 2\d\d(?: |$)/.test(statusLine)) {
        this.#refuse(raw, `proxy ${proxy.host}:${proxy.port} refused the tunnel to ${authority}: ${statusLine.slice(0, 200)}`);
      } else if (end + 4 < head.length) {
        // The origin's TLS has not started, so nothing may come through the tunnel yet.
        this.#refuse(raw, `proxy ${proxy.host}:${proxy.port} sent bytes after accepting the tunnel to ${authority}`);
      } else {
        this.#tunnelOpen(raw);
      }
    };
    raw.on('data', onData);
    return raw;
  }

  /**
   * TCP to a SOCKS5 proxy and its CONNECT to the origin (RFC 1928, with RFC 1929 credentials),
   * by the `socks` library on the socket this connect owns. With socks5h the proxy resolves the
   * origin's name; with socks5 it is resolved here and the address is sent.
   */
  #openSocks(proxy: TunnelProxy): Socket {
    const target = this.#target;
    const s = proxy.socks!;
    const raw = this.#toProxy(netConnect({ host: proxy.host, port: proxy.port }), proxy);
    const opened = new Promise<void>((resolve) => raw.once('connect', resolve));
    const destination = s.remoteDns || isIP(target.host) !== 0 ? Promise.resolve(target.host) : lookup(target.host).then((a) => a.address);
    Promise.all([destination, opened])
      .then(([host]) => raw.destroyed ? undefined : SocksClient.createConnection({
        existing_socket: raw,
        command: 'connect',
        destination: { host, port: target.port },
        proxy: { host: proxy.host, port: proxy.port, type: 5, userId: s.username ?? undefined, password: s.password ?? undefined },
      }))
      .then(() => this.#tunnelOpen(raw), (e: Error) => this.#refuse(raw, `SOCKS5 proxy ${proxy.host}:${proxy.port}: ${socksReason(e, target, s.username !== null)}`));
    return raw;
  }
}

/** The `socks` library's failure in the words of RFC 1928 and 1929, naming what the operator can change. */
function socksReason(e: Error, target: Target, withCredentials: boolean): string {
  const m = e.message;
  if (m.startsWith('Socks5 Authentication failed')) return 'the proxy refused the username and password';
  if (m.includes('no accepted authentication type')) {
    return withCredentials ? 'the proxy accepts none of the offered authentication methods'
      : 'the proxy requires authentication (give a username and password in the proxy URL)';
  }
  if (m.includes('invalid socks version')) return 'the proxy does not speak SOCKS5';
  const rejected = /^Socks5 proxy rejected connection - (\w+)/.exec(m);
  if (rejected !== null) return `the proxy could not connect to ${target.host}:${target.port}: ${SOCKS_REPLIES[rejected[1]] ?? rejected[1]}`;
  if (m === 'Socket closed') return 'the proxy closed the connection during the SOCKS5 handshake';
  return m;
}
