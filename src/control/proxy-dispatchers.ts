import { ProxyAgent, Socks5ProxyAgent, type Dispatcher } from 'undici';
import { proxyFor, proxyOrigin, type ProxySettings } from '../lib/proxy-settings.js';

/**
 * undici dispatchers for the control plane's own outbound calls (sign-in, price sources), through
 * the same forward proxy settings as provider traffic: one agent per proxy in use, keyed by its
 * origin and credentials; undefined for a direct call.
 */
export class ProxyDispatchers {
  readonly #proxies: ProxySettings;
  readonly #agents = new Map<string, Dispatcher>();

  constructor(proxies: ProxySettings) {
    this.#proxies = proxies;
  }

  for(url: string): Dispatcher | undefined {
    const proxy = proxyFor(new URL(url), this.#proxies);
    if (proxy === null) return undefined;
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
