import { Agent, ProxyAgent, Socks5ProxyAgent, type Dispatcher } from 'undici';
import { publicOnlyLookup } from '../lib/address-guard.js';
import { proxyFor, proxyOrigin, type ProxySettings } from '../lib/proxy-settings.js';

/**
 * undici dispatchers for the control plane's own outbound calls (sign-in, price sources), through
 * the same forward proxy settings as provider traffic: one agent per proxy in use, keyed by its
 * origin and credentials; undefined for a direct call.
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
   * Through a proxy, the proxy resolves it.
   */
  for(url: string, publicOnly = false): Dispatcher | undefined {
    const proxy = proxyFor(new URL(url), this.#proxies);
    if (proxy === null) return publicOnly ? (this.#publicOnly ??= new Agent({ connect: { lookup: publicOnlyLookup } })) : undefined;
    const uri = proxyOrigin(proxy);
    const s = proxy.socks;
    const key = `${uri} ${proxy.authorization ?? ''} ${s?.username ?? ''}:${s?.password ?? ''}`;
    let agent = this.#agents.get(key);
    if (agent === undefined) {
      // undici's SOCKS5 agent sends host names for the proxy to resolve, for socks5:// URLs too.
      agent = s === null ? new ProxyAgent({ uri, token: proxy.authorization ?? undefined })
        : new Socks5ProxyAgent(`socks5://${uri.slice(uri.indexOf('://') + 3)}`, { username: s.username ?? undefined, password: s.password ?? undefined });
      this.#agents.set(key, agent);
    }
    return agent;
  }
}
