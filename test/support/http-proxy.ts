// A forward HTTP proxy on 127.0.0.1, as a corporate egress proxy behaves: CONNECT tunnels for
// https, absolute-form requests forwarded for plain http, optional Basic authentication (407).
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';

export interface ProxyLogEntry {
  method: string;
  /** The request target as the client sent it: `host:port` for CONNECT, a URL otherwise. */
  target: string;
  authorization: string | undefined;
}

export interface HttpProxy {
  readonly url: string;
  readonly port: number;
  readonly log: ProxyLogEntry[];
  /** Client connections the proxy accepted (keep-alive reuse shows as fewer than requests). */
  readonly connections: number;
  close(): Promise<void>;
}

export interface HttpProxyOptions {
  user?: string;
  password?: string;
  /** Names only the proxy can resolve, as a provider's host name behind an egress proxy. */
  hosts?: Record<string, string>;
  /** Serve the proxy itself over TLS (an https:// proxy). */
  tls?: { cert: string | Buffer; key: string | Buffer };
}

export async function startHttpProxy(opts: HttpProxyOptions = {}): Promise<HttpProxy> {
  const expected = opts.user === undefined ? undefined
    : `Basic ${Buffer.from(`${opts.user}:${opts.password ?? ''}`).toString('base64')}`;
  const log: ProxyLogEntry[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const lookup = (host: string): string => opts.hosts?.[host] ?? host;
  const allowed = (req: IncomingMessage): boolean => expected === undefined || req.headers['proxy-authorization'] === expected;

  const handler = (req: IncomingMessage, res: import('node:http').ServerResponse): void => {
    log.push({ method: req.method ?? '', target: req.url ?? '', authorization: req.headers['proxy-authorization'] });
    if (!allowed(req)) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"', 'content-type': 'text/plain' }).end('proxy authentication required');
      return;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute-form request target required');
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const upstream = httpRequest({ host: lookup(url.hostname), port: url.port, method: req.method, path: url.pathname + url.search, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  };
  const server: Server = opts.tls ? createHttpsServer(opts.tls, handler) as unknown as Server : createServer(handler);
  server.on('connection', (s: Socket) => {
    connections++;
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    log.push({ method: 'CONNECT', target: req.url ?? '', authorization: req.headers['proxy-authorization'] });
    if (!allowed(req)) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: Basic realm="test"\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const [host, port] = splitAuthority(req.url ?? '');
    const upstream = netConnect({ host: lookup(host), port });
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    const drop = (): void => {
      upstream.destroy();
      client.destroy();
    };
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n'));
    client.on('error', drop);
    upstream.once('close', () => client.destroy());
    client.once('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    log,
    get connections() {
      return connections;
    },
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

function splitAuthority(authority: string): [string, number] {
  const i = authority.lastIndexOf(':');
  return [authority.slice(0, i).replace(/^\[|\]$/g, ''), Number(authority.slice(i + 1))];
}
