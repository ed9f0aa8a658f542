import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Socket } from 'node:net';

export interface SocksTarget {
  host: string;
  port: number;
  /** socks5h: the proxy resolves the host name; socks5: the gateway does, and sends the address. */
  remoteDns: boolean;
  username: string | null;
  password: string | null;
}

const VERSION = 5;
const NO_AUTH = 0;
const USER_PASS = 2;
const NO_ACCEPTABLE = 0xff;
const CONNECT = 1;
const IPV4 = 1;
const DOMAIN = 3;
const IPV6 = 4;
/** RFC 1928 section 6. */
const REPLIES = ['succeeded', 'general SOCKS server failure', 'connection not allowed by ruleset', 'network unreachable',
  'host unreachable', 'connection refused', 'TTL expired', 'command not supported', 'address type not supported'];

/**
 * A SOCKS5 CONNECT (RFC 1928) on a socket that is, or is about to be, connected to the proxy,
 * with username/password authentication (RFC 1929) when credentials are given. Resolves once the
 * proxy has opened the connection to the target: the socket then carries the target's bytes.
 * Rejects with the proxy's reason otherwise; the caller destroys the socket.
 */
export async function socks5Connect(socket: Socket, t: SocksTarget): Promise<void> {
  // Listening from the start: a socket that fails during the name lookup fails the handshake.
  const reader = new HandshakeReader(socket);
  try {
    const address = await targetAddress(t);
    const withAuth = t.username !== null;
    socket.write(Buffer.from(withAuth ? [VERSION, 2, NO_AUTH, USER_PASS] : [VERSION, 1, NO_AUTH]));
    const [version, method] = await reader.read(2);
    if (version !== VERSION) throw new Error('the proxy does not speak SOCKS5');
    if (method === USER_PASS && withAuth) {
      const user = Buffer.from(t.username!, 'utf8');
      const pass = Buffer.from(t.password ?? '', 'utf8');
      if (user.length > 255 || pass.length > 255) throw new Error('SOCKS5 username and password are at most 255 bytes each');
      socket.write(Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([pass.length]), pass]));
      const [, status] = await reader.read(2);
      if (status !== 0) throw new Error('the proxy refused the username and password');
    } else if (method === NO_ACCEPTABLE || method !== NO_AUTH) {
      throw new Error(withAuth ? 'the proxy accepts none of the offered authentication methods'
        : 'the proxy requires authentication (give a username and password in the proxy URL)');
    }
    const port = Buffer.from([t.port >> 8, t.port & 0xff]);
    socket.write(Buffer.concat([Buffer.from([VERSION, CONNECT, 0]), address, port]));
    const [, reply, , type] = await reader.read(4);
    if (reply !== 0) throw new Error(`the proxy could not connect to ${t.host}:${t.port}: ${REPLIES[reply] ?? `reply ${reply}`}`);
    // The address the proxy bound, then its port: read and ignored.
    const rest = type === IPV4 ? 4 + 2 : type === IPV6 ? 16 + 2 : type === DOMAIN ? (await reader.read(1))[0] + 2 : -1;
    if (rest < 0) throw new Error(`the proxy answered with an unknown address type ${type}`);
    await reader.read(rest);
    // The target has not been sent anything, so it cannot have answered yet.
    if (reader.pending) throw new Error('the proxy sent bytes after opening the connection');
  } finally {
    reader.stop();
  }
}

async function targetAddress(t: SocksTarget): Promise<Buffer> {
  let ip = isIP(t.host) ? t.host : null;
  if (ip === null && t.remoteDns) {
    const name = Buffer.from(t.host, 'utf8');
    if (name.length > 255) throw new Error(`host name ${t.host} is too long for SOCKS5`);
    return Buffer.concat([Buffer.from([DOMAIN, name.length]), name]);
  }
  ip ??= (await lookup(t.host)).address;
  if (isIP(ip) === 4) return Buffer.from([IPV4, ...ip.split('.').map(Number)]);
  return Buffer.concat([Buffer.from([IPV6]), ipv6Bytes(ip)]);
}

/** An IPv6 address as its 16 bytes (what SOCKS5 sends for a name the gateway resolved). */
export function ipv6Bytes(ip: string): Buffer {
  const [head, tail = ''] = ip.split('::');
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  let h = groups(head);
  let tl = groups(tail);
  // An embedded IPv4 tail (::ffff:1.2.3.4) is two groups.
  const v4 = (g: string[]) => {
    const last = g.at(-1);
    if (last === undefined || !last.includes('.')) return g;
    const [a, b, c, d] = last.split('.').map(Number);
    return [...g.slice(0, -1), ((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
  };
  if (ip.includes('::')) tl = v4(tl);
  else h = v4(h);
  const all = ip.includes('::') ? [...h, ...Array(8 - h.length - tl.length).fill('0'), ...tl] : h;
  const out = Buffer.alloc(16);
  all.forEach((g, i) => out.writeUInt16BE(Number.parseInt(g, 16), i * 2));
  return out;
}

/** Reads exact byte counts from a socket during the handshake, failing if it closes first. */
class HandshakeReader {
  readonly #socket: Socket;
  #buf: Buffer = Buffer.alloc(0);
  #want: { n: number; resolve: (b: Buffer) => void; reject: (e: Error) => void } | null = null;
  #failure: Error | null = null;
  readonly #onData = (b: Buffer): void => {
    this.#buf = this.#buf.length === 0 ? b : Buffer.concat([this.#buf, b]);
    this.#serve();
  };
  readonly #onEnd = (): void => this.#fail(new Error('the proxy closed the connection during the SOCKS5 handshake'));
  readonly #onError = (e: Error): void => this.#fail(e);

  constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', this.#onData);
    socket.on('end', this.#onEnd);
    socket.on('close', this.#onEnd);
    socket.on('error', this.#onError);
  }

  get pending(): boolean {
    return this.#buf.length > 0;
  }

  read(n: number): Promise<Buffer> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#want = { n, resolve, reject };
      this.#serve();
    });
  }

  stop(): void {
    this.#socket.off('data', this.#onData);
    this.#socket.off('end', this.#onEnd);
    this.#socket.off('close', this.#onEnd);
    this.#socket.off('error', this.#onError);
  }

  #serve(): void {
    const w = this.#want;
    if (w === null || this.#buf.length < w.n) return;
    this.#want = null;
    const out = this.#buf.subarray(0, w.n);
    this.#buf = this.#buf.subarray(w.n);
    w.resolve(out);
  }

  #fail(e: Error): void {
    this.#failure ??= e;
    const w = this.#want;
    this.#want = null;
    w?.reject(this.#failure);
  }
}
