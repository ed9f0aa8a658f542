import { lookup as lookupCallback } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';

// Addresses no endpoint registered by a user may point at: this host, private networks, link-local
// (cloud metadata at 169.254.169.254), carrier-grade NAT, multicast and the unspecified address.
const PRIVATE = new BlockList();
for (const [net, bits] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.168.0.0', 16], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) PRIVATE.addSubnet(net, bits, 'ipv4');
// NAT64's local-use prefix 64:ff9b:1::/48 (RFC 8215) is internal as a whole, like fc00::/7: it is
// never routed globally, and its operator picks the prefix length (/48 to /96), so where the IPv4
// address sits cannot be known and every reading would have to pass (a /96 prefix reads 0.0.0.0 at
// the /48 position).
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b:1::', 48]] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv6');
}

/** The eight 16-bit groups of a valid IPv6 address (zone index dropped, a dotted-quad tail folded in). */
function ipv6Groups(address: string): number[] {
  const zone = address.indexOf('%');
  let text = zone === -1 ? address : address.slice(0, zone);
  const dot = text.lastIndexOf('.');
  if (dot !== -1) {
    const colon = text.lastIndexOf(':');
    const [a, b, c, d] = text.slice(colon + 1).split('.').map(Number);
    text = `${text.slice(0, colon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) => (part === undefined || part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const h = parse(head);
  if (tail === undefined) return h;
  const t = parse(tail);
  return [...h, ...Array<number>(8 - h.length - t.length).fill(0), ...t];
}

const quad = (hi: number, lo: number) => `${hi >>> 8}.${hi & 0xff}.${lo >>> 8}.${lo & 0xff}`;

/**
 * The IPv4 addresses an IPv6 address carries, by the transition scheme its prefix names. A
 * translator or relay on the path would deliver packets for them to that IPv4 address, so the
 * guard judges them by it: `[64:ff9b::a9fe:a9fe]` is the metadata address 169.254.169.254.
 * - IPv4-mapped `::ffff:0:0/96`, IPv4-compatible `::/96`, SIIT `::ffff:0:0:0/96`, NAT64 well-known
 *   `64:ff9b::/96`: the last 32 bits.
 * - NAT64 local-use `64:ff9b:1::/48`: every RFC 6052 position a /48../96 prefix may use (bits
 *   48-63+72-87, 56-63+72-95, 72-103, 96-127); the whole /48 is internal anyway (above).
 * - 6to4 `2002::/16`: bits 16-47.
 * - Teredo `2001::/32`: the server in bits 32-63, the client obfuscated (XOR 0xffffffff) in 96-127.
 */
export function embeddedIPv4(address: string): string[] {
  if (isIP(address) !== 6) return [];
  const g = ipv6Groups(address);
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && (g[5] === 0 || g[5] === 0xffff)) return [quad(g[6], g[7])];
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return [quad(g[6], g[7])];
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return [quad(g[6], g[7])];
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) {
    const byte = (i: number) => (i & 1) === 0 ? g[i >> 1] >>> 8 : g[i >> 1] & 0xff;
    const at = (...bytes: number[]) => bytes.map(byte).join('.');
    return [at(6, 7, 9, 10), at(7, 9, 10, 11), at(9, 10, 11, 12), quad(g[6], g[7])];
  }
  if (g[0] === 0x2002) return [quad(g[1], g[2])];
  if (g[0] === 0x2001 && g[1] === 0) return [quad(g[2], g[3]), quad(g[6] ^ 0xffff, g[7] ^ 0xffff)];
  return [];
}

/** True for an address on this host or a private, link-local or otherwise internal network. */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  return PRIVATE.check(address, 'ipv6') || embeddedIPv4(address).some((v4) => PRIVATE.check(v4, 'ipv4'));
}

/** An internal address for a refusal message, naming the IPv4 address it carries if that is why. */
function shown(address: string): string {
  const inner = embeddedIPv4(address).find((v4) => PRIVATE.check(v4, 'ipv4'));
  return inner === undefined || PRIVATE.check(address, 'ipv6') ? address : `${address} (which carries ${inner})`;
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
  return inward === undefined ? null : `${host} resolves to ${shown(inward)}, an internal address (server-side request forgery guard)`;
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
        : `${hostname} now resolves to ${shown(inward.address)}, an internal address (server-side request forgery guard)`);
      e.code = 'EADDRBLOCKED';
      callback(e, '', 0);
      return;
    }
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  });
};
