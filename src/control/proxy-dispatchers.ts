import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { SocksClient } from 'socks';
import { Agent, ProxyAgent, buildConnector, type Dispatcher } from 'undici';
import { publicOnlyLookup } from '../lib/address-guard.js';
import { proxyFor, proxyOrigin, type ProxyServer, type ProxySettings, type SocksProxy } from '../lib/proxy-settings.js';

/** How long a SOCKS5 proxy may take to open a tunnel: undici's own connect timeout. */
const SOCKS_CONNECT_MS = 10_000;

/**
 * undici dispatchers for the control plane's own outbound calls (sign-in, price sources, alert
 * webhooks), through the same forward proxy settings as provider traffic: one agent per proxy in
 * use, keyed by its origin and credentials; undefined for a direct call.
 */
export class ProxyDispatchers {
  readonly #proxies: ProxySettings;
  readonly #agents = new Map<string, Dispatcher>();
  #publicOnly: Dispatcher | undefined;

  constructor(proxies: ProxySettings) {
    this.#proxies = proxies;
  }

  /**
   * With `publicOnly` (a URL a user gave), a direct call resolves the name as it connects and
   * refuses internal addresses, so the name cannot be rebound inward after it was checked.
   * Through a proxy, the proxy reaches it.
   */
  for(url: string, publicOnly = false): Dispatcher | undefined {
    const proxy = proxyFor(new URL(url), this.#proxies);
    if (proxy === null) return publicOnly ? (this.#publicOnly ??= new Agent({ connect: { lookup: publicOnlyLookup } })) : undefined;
    const uri = proxyOrigin(proxy);
    const s = proxy.socks;
    const key = `${uri} ${proxy.authorization ?? ''} ${s?.username ?? ''}:${s?.password ?? ''}`;
    let agent = this.#agents.get(key);
    if (agent === undefined) {
      agent = s === null ? new ProxyAgent({ uri, token: proxy.authorization ?? undefined }) : socksAgent(proxy, s);
      this.#agents.set(key, agent);
    }
    return agent;
  }
}

/**
 * An agent whose sockets are SOCKS5 tunnels opened by the `socks` library, as the data plane's
 * (upstream/connector.ts), and resolving names as it does: with socks5h:// the proxy resolves the
 * host, with socks5:// the gateway does and sends the address. TLS to an https origin then runs
 * inside the tunnel, by undici's own connector.
 */
function socksAgent(proxy: ProxyServer, s: SocksProxy): Agent {
  const tlsInside = buildConnector({});
  return new Agent({
    connect: (opts, callback) => {
      const https = opts.protocol === 'https:';
      const host = opts.hostname.replace(/^\[|\]$/g, '');
      const port = Number(opts.port) || (https ? 443 : 80);
      const destination = s.remoteDns || isIP(host) !== 0 ? Promise.resolve(host) : lookup(host).then((a) => a.address);
      destination
        .then((address) => SocksClient.createConnection({
          command: 'connect',
          destination: { host: address, port },
          proxy: { host: proxy.host, port: proxy.port, type: 5, userId: s.username ?? undefined, password: s.password ?? undefined },
          timeout: SOCKS_CONNECT_MS,
          set_tcp_nodelay: true,
        }))
        .then(({ socket }) => {
          if (https) tlsInside({ ...opts, httpSocket: socket }, callback);
          else callback(null, socket);
        }, (e: Error) => callback(new Error(`SOCKS5 proxy ${proxy.host}:${proxy.port}: ${e.message}`), null));
    },
  });
}
