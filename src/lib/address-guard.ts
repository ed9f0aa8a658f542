import { lookup as lookupCallback } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';

// Addresses no endpoint registered by a user may point at: this host, private networks, link-local
// (cloud metadata at 169.254.169.254), carrier-grade NAT, multicast and the unspecified address.
const PRIVATE = new BlockList();
for (const [net, bits] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.168.0.0', 16], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) PRIVATE.addSubnet(net, bits, 'ipv4');
// IPv4-mapped IPv6 addresses (::ffff:10.0.0.1) are checked against the IPv4 rules by BlockList itself.
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv6');
}

/** True for an address on this host or a private, link-local or otherwise internal network. */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Why a URL a user gave may not be called by the gateway (server-side request forgery), or null:
 * it must be http(s) without credentials, and its host must resolve to public addresses only.
 * A name is resolved and every address checked, so `localtest.me` cannot point inward.
 */
export async function blockedReason(url: URL, allowInternal: boolean): Promise<string | null> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'only http and https URLs are allowed';
  if (url.username !== '' || url.password !== '') return 'credentials go in api_key, not in the URL';
  if (allowInternal) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) !== 0 ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    return `${host} does not resolve`;
  }
  const inward = addresses.find(isInternalAddress);
  return inward === undefined ? null : `${host} resolves to ${inward}, an internal address (server-side request forgery guard)`;
}

/**
 * A `lookup` for sockets that may reach public addresses only (an org's registered endpoint, an
 * alert webhook). The name is resolved as the connection is made and every address checked, so
 * a name that resolved outward when it was registered cannot later be pointed inward (DNS
 * rebinding): the check and the connection use the same answer. IP literals never reach a
 * lookup; they are checked once, by blockedReason, and cannot change.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookupCallback(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) {
      callback(err, '', 0);
      return;
    }
    const inward = addresses.find((a) => isInternalAddress(a.address));
    if (inward !== undefined || addresses.length === 0) {
      const e: NodeJS.ErrnoException = new Error(inward === undefined ? `${hostname} resolves to no address`
        : `${hostname} now resolves to ${inward.address}, an internal address (server-side request forgery guard)`);
      e.code = 'EADDRBLOCKED';
      callback(e, '', 0);
      return;
    }
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  });
};
