import net from 'node:net';
import proxyAddr from 'proxy-addr';

/**
 * Which reverse proxies the service believes (`TRUST_PROXY`, docs/orchestration-security.md, "Client
 * address and proxies"): whose `X-Forwarded-For` gives the client address, whose `X-Forwarded-Proto`
 * the protocol, and whose `X-Forwarded-Host` the host.
 *
 * - `private` (the default, unset): a peer on loopback or a private range (PRIVATE_RANGES);
 * - `off` (`false`, `0`): none, the connection decides;
 * - `all` (`true`): every hop, the client address is the leftmost entry;
 * - `hops` (`2`): that many hops from the service, whatever their addresses;
 * - `list` (`10.0.0.0/8,192.168.1.5,fd00::/8`): the addresses and ranges listed, and only these
 *   proxies' `X-Forwarded-Host` is honoured (no other form honours it).
 */
export type TrustProxy =
  { mode: 'private' } | { mode: 'off' } | { mode: 'all' } | { mode: 'hops'; hops: number } | { mode: 'list'; addresses: readonly string[] };

/** The default's trusted peers: loopback and the private ranges (IPv4-mapped IPv6 forms match their IPv4 range). */
const PRIVATE_RANGES: readonly string[] = ['127.0.0.0/8', '::1/128', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'];

/** The named ranges a list may hold besides addresses and CIDRs (proxy-addr's own names). */
const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/** The largest hop count: no deployment puts more proxies in front of a service. */
const MAX_PROXY_HOPS = 100;

export class TrustProxyError extends Error {
  override name = 'TrustProxyError';
}

const FORMS = 'false, true, a hop count (such as 2) or comma-separated addresses and CIDR ranges (such as 10.0.0.0/8,fd00::/8)';

/** Reads a `TRUST_PROXY` value (undefined or empty: the default); throws TrustProxyError saying what is wrong. */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = (value ?? '').trim();
  if (text === '') return { mode: 'private' };
  const word = text.toLowerCase();
  if (word === 'false') return { mode: 'off' };
  if (word === 'true') return { mode: 'all' };
  if (/^[+-]?\d+$/.test(text)) {
    const hops = Number(text);
    if (hops < 0 || hops > MAX_PROXY_HOPS) {
      throw new TrustProxyError(`"${text}" is not a hop count: a whole number from 0 to ${MAX_PROXY_HOPS} (0 is false)`);
    }
    return hops === 0 ? { mode: 'off' } : { mode: 'hops', hops };
  }
  const addresses = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of addresses) {
    const problem = entryProblem(entry);
    if (problem !== null) throw new TrustProxyError(`"${entry}" ${problem}; TRUST_PROXY is ${FORMS}`);
  }
  if (addresses.length === 0) throw new TrustProxyError(`"${text}" names no address; TRUST_PROXY is ${FORMS}`);
  // proxy-addr's own reading must agree: what it refuses is refused here too, with its message.
  try {
    proxyAddr.compile([...addresses]);
  } catch (error) {
    throw new TrustProxyError(`${(error as Error).message}; TRUST_PROXY is ${FORMS}`);
  }
  return { mode: 'list', addresses };
}

/**
 * Why a list entry is refused, or null. Addresses are read strictly (Node's parser: dotted quads and
 * standard IPv6), so `10` or `0x7f.1` is never taken for an address as ipaddr.js would take it.
 */
function entryProblem(entry: string): string | null {
  if (NAMED_RANGES.includes(entry)) return null;
  const slash = entry.indexOf('/');
  const address = slash === -1 ? entry : entry.slice(0, slash);
  const family = net.isIP(address);
  if (family === 0) return 'is not an IPv4 or IPv6 address or CIDR range';
  if (slash === -1) return null;
  const prefix = entry.slice(slash + 1);
  const max = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) < 1 || Number(prefix) > max) {
    return `is not a CIDR range: the prefix length of an IPv${family} range is a number from 1 to ${max} (to trust every address, TRUST_PROXY=true)`;
  }
  return null;
}

/** How a request's proxy headers are read under one TRUST_PROXY setting. */
export interface ProxyTrust {
  /** Whether the address `hops` hops from the service (0: the connection's peer) is a proxy to believe. */
  trusts(address: string, hops: number): boolean;
  /** Whether a trusted peer's `X-Forwarded-Host` is honoured: only for the list form. */
  readonly forwardedHost: boolean;
}

export function proxyTrust(setting: TrustProxy): ProxyTrust {
  switch (setting.mode) {
    case 'off':
      return { trusts: () => false, forwardedHost: false };
    case 'all':
      return { trusts: () => true, forwardedHost: false };
    case 'hops':
      return { trusts: (_address, hops) => hops < setting.hops, forwardedHost: false };
    case 'private':
      return { trusts: strictly(proxyAddr.compile([...PRIVATE_RANGES])), forwardedHost: false };
    case 'list':
      return { trusts: strictly(proxyAddr.compile([...setting.addresses])), forwardedHost: true };
  }
}

/** A matcher that trusts only addresses Node reads as such (ipaddr.js would also take `127.1` or `0x7f.0.0.1`). */
function strictly(matches: (address: string, hops: number) => boolean): ProxyTrust['trusts'] {
  return (address, hops) => net.isIP(address) !== 0 && matches(address, hops);
}

/** Who sent a request, as the trusted proxies say. */
export interface ForwardedClient {
  /** The client address: the first untrusted hop from the right, or the connection's peer. */
  address: string;
  /** The client and the trusted proxies between it and the service, client first (Express's `req.ips`); empty when the peer is not trusted. */
  chain: string[];
  /** Whether the connection's peer is a trusted proxy: then its X-Forwarded-Proto (and, for a list, X-Forwarded-Host) is believed. */
  peerTrusted: boolean;
}

/**
 * The standard "trusted proxies" walk (as Express's `trust proxy`): the hops are the peer, then the
 * `X-Forwarded-For` entries from the right; trusted hops are skipped and the first untrusted one is
 * the client. An entry that is not an address (`unknown`, garbage) ends the walk at the proxy that
 * reported it. `X-Forwarded-For` may come in several headers (node joins them with commas); entries
 * with a port (`1.2.3.4:5678`, `[2001:db8::1]:443`) are read without it.
 */
export function forwardedClient(peer: string, forwardedFor: string | undefined, trust: ProxyTrust): ForwardedClient {
  const peerTrusted = peer !== '' && trust.trusts(peer, 0);
  if (!peerTrusted) return { address: peer, chain: [], peerTrusted };
  const entries = (forwardedFor ?? '').split(',').map(withoutPort).filter(Boolean).reverse();
  const hops = [peer, ...entries];
  let client = 0;
  while (client < hops.length - 1 && net.isIP(hops[client]!) !== 0 && trust.trusts(hops[client]!, client)) client += 1;
  if (client > 0 && net.isIP(hops[client]!) === 0) client -= 1;
  return { address: hops[client]!, chain: hops.slice(1, client + 1).reverse(), peerTrusted };
}

function withoutPort(entry: string): string {
  const text = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text);
  if (bracketed) return bracketed[1]!;
  const ipv4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(text);
  return ipv4WithPort ? ipv4WithPort[1]! : text;
}
