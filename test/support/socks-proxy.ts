// A SOCKS5 proxy on 127.0.0.1 (RFC 1928, CONNECT only), with optional username/password
// authentication (RFC 1929): what `ssh -D` or a corporate SOCKS egress gives a gateway.
import { createServer, connect as netConnect, isIP, type AddressInfo, type Server, type Socket } from 'node:net';

export interface SocksLogEntry {
  /** How the client named the target: an IPv4/IPv6 address, or a host name for the proxy to resolve. */
  addressType: 'ipv4' | 'ipv6' | 'domain';
  host: string;
  port: number;
  user: string | null;
}

export interface SocksProxy {
  readonly port: number;
  /** `socks5://127.0.0.1:port` (add credentials or swap the scheme as a test needs). */
  readonly url: string;
  readonly log: SocksLogEntry[];
  close(): Promise<void>;
}

export interface SocksProxyOptions {
  user?: string;
  password?: string;
  /** Names only the proxy can resolve. */
  hosts?: Record<string, string>;
  /** Answer every CONNECT with this reply code instead of connecting (5: connection refused). */
  refuse?: number;
}

export async function startSocksProxy(opts: SocksProxyOptions = {}): Promise<SocksProxy> {
  const log: SocksLogEntry[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    void serve(client, opts, log, sockets).catch(() => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port, url: `socks5://127.0.0.1:${port}`, log,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

async function serve(client: Socket, opts: SocksProxyOptions, log: SocksLogEntry[], sockets: Set<Socket>): Promise<void> {
  const read = reader(client);
  const [version, n] = await read(2);
  if (version !== 5) throw new Error('not SOCKS5');
  const methods = [...await read(n)];
  let user: string | null = null;
  if (opts.user !== undefined) {
    if (!methods.includes(2)) {
      client.end(Buffer.from([5, 0xff]));
      return;
    }
    client.write(Buffer.from([5, 2]));
    const [, ulen] = await read(2);
    const u = (await read(ulen)).toString();
    const [plen] = await read(1);
    const p = (await read(plen)).toString();
    if (u !== opts.user || p !== (opts.password ?? '')) {
      client.end(Buffer.from([1, 1]));
      return;
    }
    user = u;
    client.write(Buffer.from([1, 0]));
  } else {
    client.write(Buffer.from([5, 0]));
  }
  const [, cmd, , atyp] = await read(4);
  let host: string;
  let addressType: SocksLogEntry['addressType'];
  if (atyp === 1) {
    host = [...await read(4)].join('.');
    addressType = 'ipv4';
  } else if (atyp === 4) {
    const b = await read(16);
    host = Array.from({ length: 8 }, (_, i) => b.readUInt16BE(i * 2).toString(16)).join(':');
    addressType = 'ipv6';
  } else {
    const [len] = await read(1);
    host = (await read(len)).toString();
    addressType = 'domain';
  }
  const port = (await read(2)).readUInt16BE(0);
  log.push({ addressType, host, port, user });
  const reply = (code: number) => Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]);
  if (cmd !== 1) return void client.end(reply(7));
  if (opts.refuse !== undefined) return void client.end(reply(opts.refuse));
  const target = netConnect({ host: opts.hosts?.[host] ?? (isIP(host) ? host : host), port });
  sockets.add(target);
  target.once('close', () => sockets.delete(target));
  target.once('connect', () => {
    client.write(reply(0));
    read.rest().forEach((b) => target.write(b));
    client.pipe(target);
    target.pipe(client);
  });
  target.on('error', () => {
    if (!client.destroyed) client.end(reply(5));
  });
  client.once('close', () => target.destroy());
}

/** Exact-length reads from a socket while the handshake runs; rest() hands back what came after. */
function reader(socket: Socket): ((n: number) => Promise<Buffer>) & { rest(): Buffer[] } {
  let buf = Buffer.alloc(0);
  let want: { n: number; resolve: (b: Buffer) => void } | null = null;
  const onData = (b: Buffer): void => {
    buf = Buffer.concat([buf, b]);
    serve();
  };
  const serve = (): void => {
    if (want !== null && buf.length >= want.n) {
      const w = want;
      want = null;
      const out = buf.subarray(0, w.n);
      buf = buf.subarray(w.n);
      w.resolve(out);
    }
  };
  socket.on('data', onData);
  const read = (n: number): Promise<Buffer> => new Promise((resolve) => {
    want = { n, resolve };
    serve();
  });
  return Object.assign(read, {
    rest(): Buffer[] {
      socket.off('data', onData);
      return buf.length > 0 ? [buf] : [];
    },
  });
}
