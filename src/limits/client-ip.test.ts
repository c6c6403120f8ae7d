import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { TrustProxy } from '../config.ts';
import { clientIp, UNKNOWN_IP } from './client-ip.ts';

async function ipFor(trustProxy: TrustProxy, forwarded?: string): Promise<string> {
  const app = new Hono().get('/', (c) => c.text(clientIp(c, trustProxy)));
  const response = await app.request('/', {
    headers: forwarded === undefined ? {} : { 'X-Forwarded-For': forwarded },
  });
  return response.text();
}

describe('clientIp', () => {
  it('ignores X-Forwarded-For unless TRUST_PROXY says so', async () => {
    expect(await ipFor(false, '203.0.113.7')).toBe(UNKNOWN_IP);
  });
  it('takes the left-most entry with true, and the n-th from the right with a hop count', async () => {
    const chain = '198.51.100.1, 203.0.113.7, 10.0.0.2';
    expect(await ipFor(true, chain)).toBe('198.51.100.1');
    expect(await ipFor(1, chain)).toBe('10.0.0.2');
    expect(await ipFor(2, chain)).toBe('203.0.113.7');
    expect(await ipFor(2, '::ffff:192.0.2.4, 10.0.0.2')).toBe('192.0.2.4');
  });
  it('falls back to the socket address for garbage or too few entries', async () => {
    expect(await ipFor(true, 'not-an-ip')).toBe(UNKNOWN_IP);
    expect(await ipFor(3, '10.0.0.2')).toBe(UNKNOWN_IP);
    expect(await ipFor(true)).toBe(UNKNOWN_IP);
  });
});
