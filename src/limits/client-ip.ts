import net from 'node:net';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import type { TrustProxy } from '../config.ts';

/** Stands for the client address when none is known (in-process requests in tests, a closed socket). */
export const UNKNOWN_IP = 'unknown';

/**
 * The address the per-IP limit counts against. `X-Forwarded-For` is read only when the operator says
 * a proxy sets it: any client can send the header, so trusting it by default would let anyone pick
 * their own rate-limit bucket.
 */
export function clientIp(c: Context, trustProxy: TrustProxy): string {
  if (trustProxy !== false) {
    const forwarded = (c.req.header('X-Forwarded-For') ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    // `true`: the left-most entry; n: the entry the n-th proxy from us saw, which clients cannot forge.
    const candidate = trustProxy === true ? forwarded[0] : forwarded[forwarded.length - trustProxy];
    if (candidate && net.isIP(candidate)) return normalise(candidate);
  }
  try {
    const address = getConnInfo(c).remote.address;
    return address ? normalise(address) : UNKNOWN_IP;
  } catch {
    // `app.request()` in tests has no socket.
    return UNKNOWN_IP;
  }
}

/** IPv4-mapped IPv6 (`::ffff:1.2.3.4`) is the same client as `1.2.3.4`. */
function normalise(address: string): string {
  return address.startsWith('::ffff:') && net.isIPv4(address.slice(7)) ? address.slice(7) : address;
}
