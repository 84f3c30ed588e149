/**
 * The one reading of who sent a request. Every per-address decision (the loopback-only
 * endpoints, the sign-in and Auth limits, REST's callers, Realtime's sockets and broadcast API,
 * the request log) takes its address from here.
 */
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/** One entry of `TRUSTED_PROXIES`: an address, or a range in CIDR notation. */
export interface AddressRange {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** How a request's sender is read. */
export interface ClientAddresses {
  /**
   * The client's address: the socket's peer; when the peer is a trusted proxy, the right-most
   * address of `X-Forwarded-For` that is not itself a trusted proxy (the left-most when all are).
   */
  of(req: IncomingMessage): string;
  /**
   * True for a request from this machine, the only callers of the loopback-only endpoints: the
   * client address ({@link ClientAddresses.of}) is loopback, and a request carrying forwarding
   * headers (`Forwarded`, `Via`, `X-Real-IP`, `X-Forwarded-*`) came from a trusted proxy with
   * `X-Forwarded-For`. A proxy not named in `TRUSTED_PROXIES` connects from loopback for
   * strangers, so what it forwards is never local.
   */
  isLocal(req: IncomingMessage): boolean;
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** The family `BlockList` checks `address` in, or null when it is not an IP address. */
function familyOf(address: string): 'ipv4' | 'ipv6' | null {
  const version = isIP(address);
  return version === 4 ? 'ipv4' : version === 6 ? 'ipv6' : null;
}

/** One spelling per IPv4 address: IPv4 mapped into IPv6 (`::ffff:192.0.2.1`, as a dual-stack socket gives it) is written plainly. */
function canonical(address: string): string {
  const lower = address.trim().toLowerCase();
  return lower.startsWith('::ffff:') && isIP(lower.slice(7)) === 4 ? lower.slice(7) : lower;
}

/** True for a loopback address: 127.0.0.0/8, ::1, or IPv4 loopback mapped into IPv6. Anything that is not an address is false. */
export function isLoopback(address: string | undefined): boolean {
  const plain = canonical(address ?? '');
  const family = familyOf(plain);
  return family !== null && LOOPBACK.check(plain, family);
}

/** `entry` (`192.0.2.1`, `10.0.0.0/8`, `::1`, `2001:db8::/32`) as a range, or null when it is neither an address nor a valid range. */
export function parseAddressRange(entry: string): AddressRange | null {
  const [address = '', prefixText, extra] = entry.trim().split('/');
  const family = familyOf(address);
  if (family === null || extra !== undefined) return null;
  const bits = family === 'ipv4' ? 32 : 128;
  if (prefixText === undefined) return { address, prefix: bits, family };
  const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  return prefix <= bits ? { address, prefix, family } : null;
}

/** Headers by which a proxy says it forwarded the request. */
function forwarded(req: IncomingMessage): boolean {
  return Object.keys(req.headers).some((name) => name === 'forwarded' || name === 'via' || name === 'x-real-ip' || name.startsWith('x-forwarded-'));
}

/** Reads client addresses believing `X-Forwarded-For` from the peers in `trustedProxies` only (none by default). */
export function clientAddresses(trustedProxies: readonly AddressRange[] = []): ClientAddresses {
  const trusted = new BlockList();
  for (const { address, prefix, family } of trustedProxies) trusted.addSubnet(address, prefix, family);
  const isTrusted = (address: string) => {
    const family = familyOf(address);
    return family !== null && trusted.check(address, family);
  };
  const of = (req: IncomingMessage) => {
    let client = canonical(req.socket.remoteAddress ?? '');
    if (!isTrusted(client)) return client;
    const hops = String(req.headers['x-forwarded-for'] ?? '').split(',').filter((hop) => hop.trim() !== '');
    for (const hop of hops.reverse()) {
      client = canonical(hop);
      if (!isTrusted(client)) return client;
    }
    return client;
  };
  return {
    of,
    isLocal(req) {
      if (!forwarded(req)) return isLoopback(req.socket.remoteAddress);
      const throughTrusted = isTrusted(canonical(req.socket.remoteAddress ?? '')) && req.headers['x-forwarded-for'] !== undefined;
      return throughTrusted && isLoopback(of(req));
    },
  };
}
