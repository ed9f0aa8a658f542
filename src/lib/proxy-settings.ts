import { BlockList, isIP } from 'node:net';

/** A forward proxy for upstream connections (HTTP or SOCKS5), as the upstream client needs it. */
export interface ProxyServer {
  host: string;
  port: number;
  /** An `https://` proxy: the connection to the proxy itself is TLS. */
  tls: boolean;
  /** `proxy-authorization` value from the URL's user info (`Basic …`), or null. */
  authorization: string | null;
  /** A SOCKS5 proxy (`socks5://`, `socks5h://`), or null for an HTTP one. */
  socks: SocksProxy | null;
}

export interface SocksProxy {
  /** socks5h: the proxy resolves provider names; socks5: the gateway does and sends addresses. */
  remoteDns: boolean;
  username: string | null;
  password: string | null;
}

export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  /** For either scheme when its own setting is absent (curl's ALL_PROXY). */
  allProxy?: string;
  noProxy?: string;
}

const SCHEMES: Record<string, { tls: boolean; port: number; socks: boolean; remoteDns: boolean }> = {
  'http:': { tls: false, port: 80, socks: false, remoteDns: false },
  'https:': { tls: true, port: 443, socks: false, remoteDns: false },
  'socks5:': { tls: false, port: 1080, socks: true, remoteDns: false },
  'socks5h:': { tls: false, port: 1080, socks: true, remoteDns: true },
};

/**
 * Parses a proxy URL as the conventional variables hold it: `scheme://[user:pass@]host[:port]`
 * with scheme http (the default when absent), https, socks5 or socks5h. Throws with the reason
 * when it is not one.
 */
export function parseProxyUrl(value: string): ProxyServer {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let u: URL;
  try {
    u = new URL(withScheme);
  } catch {
    throw new Error(`'${value}' is not a proxy URL`);
  }
  const scheme = SCHEMES[u.protocol];
  if (scheme === undefined) throw new Error(`'${value}': a proxy URL is http://, https://, socks5:// or socks5h://`);
  if ((u.pathname !== '/' && u.pathname !== '') || u.search !== '' || u.hash !== '') throw new Error(`'${value}': a proxy URL has no path`);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (host === '') throw new Error(`'${value}': a proxy URL names a host`);
  const username = u.username === '' ? null : decodeURIComponent(u.username);
  const password = u.username === '' ? null : decodeURIComponent(u.password);
  const port = u.port ? Number(u.port) : scheme.port;
  if (scheme.socks) {
    return { host, port, tls: false, authorization: null, socks: { remoteDns: scheme.remoteDns, username, password } };
  }
  const authorization = username === null ? null : `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  return { host, port, tls: scheme.tls, authorization, socks: null };
}

/** The proxy's `scheme://host:port`, without credentials. */
export function proxyOrigin(p: ProxyServer): string {
  const scheme = p.socks !== null ? (p.socks.remoteDns ? 'socks5h' : 'socks5') : p.tls ? 'https' : 'http';
  return `${scheme}://${p.host.includes(':') ? `[${p.host}]` : p.host}:${p.port}`;
}

/** What an operator should see at start-up: each proxy without its credentials, and the bypass list. */
export function describeProxies(s: ProxySettings): Record<string, string> | null {
  const shown = (v: string | undefined): string | undefined => (v ? proxyOrigin(parseProxyUrl(v)) : undefined);
  const out: Record<string, string> = {};
  const https = shown(s.httpsProxy ?? s.allProxy);
  const http = shown(s.httpProxy ?? s.allProxy);
  if (https) out.https = https;
  if (http) out.http = http;
  if (https === undefined && http === undefined) return null;
  if (s.noProxy) out.noProxy = s.noProxy;
  return out;
}

/**
 * The proxy an upstream origin is reached through, or null for a direct connection: the https
 * or http proxy by the origin's scheme (else `allProxy`), unless `noProxy` names the host. Loopback hosts are
 * always reached directly, as in Go's client: a proxy elsewhere would reach its own loopback,
 * never the self-hosted model server beside the gateway.
 */
export function proxyFor(origin: URL, settings: ProxySettings): ProxyServer | null {
  const value = (origin.protocol === 'https:' ? settings.httpsProxy : settings.httpProxy) ?? settings.allProxy;
  if (!value) return null;
  const host = origin.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isLoopback(host)) return null;
  const port = origin.port ? Number(origin.port) : origin.protocol === 'https:' ? 443 : 80;
  if (settings.noProxy && bypassesProxy(host, port, settings.noProxy)) return null;
  return parseProxyUrl(value);
}

/** localhost, 127.0.0.0/8 or ::1 (a hostname without brackets). */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * NO_PROXY as curl and undici read it: entries separated by commas or spaces; `*` matches
 * everything; `host` or `.host` (or `*.host`) matches the host and its subdomains; an entry
 * with `:port` matches that port only; a CIDR range (`10.0.0.0/8`, `fd00::/8`) matches a
 * provider given by an IP address in it (names are not resolved to check).
 */
export function bypassesProxy(host: string, port: number, noProxy: string): boolean {
  const family = isIP(host);
  for (const raw of noProxy.split(/[\s,]+/)) {
    if (raw === '') continue;
    if (raw === '*') return true;
    if (raw.includes('/')) {
      if (family !== 0 && inRange(host, family, raw)) return true;
      continue;
    }
    const [entryHost, entryPort] = splitHostPort(raw.toLowerCase());
    if (entryPort !== 0 && entryPort !== port) continue;
    const domain = entryHost.replace(/^\*?\./, '');
    if (host === domain || host.endsWith(`.${domain}`)) return true;
  }
  return false;
}

/** `host:port`, `[v6]:port`, `[v6]`, a bare IPv6 address or a bare host; port 0 when absent. */
function splitHostPort(entry: string): [string, number] {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed !== null) return [bracketed[1], bracketed[2] ? Number(bracketed[2]) : 0];
  const colon = entry.indexOf(':');
  if (colon > 0 && colon === entry.lastIndexOf(':') && /^\d+$/.test(entry.slice(colon + 1))) {
    return [entry.slice(0, colon), Number(entry.slice(colon + 1))];
  }
  return [entry, 0];
}

/** Whether the IP address `host` lies in the CIDR range `cidr`; a malformed range matches nothing. */
function inRange(host: string, family: number, cidr: string): boolean {
  const slash = cidr.indexOf('/');
  const net = cidr.slice(0, slash).replace(/^\[|\]$/g, '');
  const bits = Number(cidr.slice(slash + 1));
  const netFamily = isIP(net);
  if (netFamily !== family || !Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128)) return false;
  const list = new BlockList();
  const type = family === 4 ? 'ipv4' : 'ipv6';
  list.addSubnet(net, bits, type);
  return list.check(host, type);
}
