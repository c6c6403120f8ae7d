import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedisUrl } from '../testing/services.ts';
import { MemoryRateLimitStore } from './memory-rate-limit-store.ts';
import { rateLimitHeaders } from './rate-limit-headers.ts';
import type { RateLimitStore } from './rate-limit-store.ts';
import { RedisRateLimitStore } from './redis-rate-limit-store.ts';

const redisUrl = testRedisUrl();

describe('MemoryRateLimitStore (sliding log)', () => {
  it('slides: a slot frees exactly when the oldest request leaves the window', async () => {
    let now = 1_000_000;
    const store = new MemoryRateLimitStore(() => now);
    const window = [{ key: 'k', limit: 3, windowMs: 1000 }];
    expect((await store.hit(window)).allowed).toBe(true); // t=0
    now += 400;
    expect((await store.hit(window)).allowed).toBe(true); // t=400
    now += 400;
    const third = await store.hit(window); // t=800
    expect(third).toMatchObject({ allowed: true, windows: [{ remaining: 0, resetMs: 200 }] });
    now += 100;
    const refused = await store.hit(window); // t=900: still 3 in (−100, 900]
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBe(100);
    now += 100; // t=1000: the t=0 request has left
    expect((await store.hit(window)).allowed).toBe(true);
    expect((await store.hit(window)).allowed).toBe(false);
    // A fixed window would have allowed 3 more at t=1000; the sliding log allows one.
  });

  it('counts a request in all its windows or in none', async () => {
    const store = new MemoryRateLimitStore(() => 5_000);
    const org = { key: 'org', limit: 10, windowMs: 60_000 };
    const ipA = { key: 'ip:a', limit: 2, windowMs: 60_000 };
    const ipB = { key: 'ip:b', limit: 2, windowMs: 60_000 };
    expect((await store.hit([org, ipA])).allowed).toBe(true);
    expect((await store.hit([org, ipA])).allowed).toBe(true);
    const refused = await store.hit([org, ipA]);
    expect(refused.allowed).toBe(false);
    // The refused request did not use up an organization slot.
    expect(refused.windows[0]?.remaining).toBe(8);
    expect(rateLimitHeaders(refused)).toMatchObject({ 'RateLimit-Limit': '2', 'RateLimit-Remaining': '0' });
    expect((await store.hit([org, ipB])).windows[0]?.remaining).toBe(7);
  });

  it('honours a lowered limit with the right retry time', async () => {
    let now = 0;
    const store = new MemoryRateLimitStore(() => now);
    for (let i = 0; i < 5; i++) {
      await store.hit([{ key: 'k', limit: 5, windowMs: 1000 }]);
      now += 100;
    }
    // Now 5 in the window (t=0..400) at t=500, limit lowered to 2: one more fits once only one is
    // left, i.e. when the fourth-oldest (t=300) leaves at t=1300.
    const refused = await store.hit([{ key: 'k', limit: 2, windowMs: 1000 }]);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBe(800);
  });
});

// Skipped only off CI with no Redis to be had; the test run's first lines say so.
describe.skipIf(redisUrl === null)('RedisRateLimitStore', () => {
  const prefix = `docent-test:${crypto.randomBytes(6).toString('hex')}:`;
  let first: RateLimitStore;
  let second: RateLimitStore;
  beforeAll(async () => {
    // Two connections stand for two server processes sharing one Redis.
    first = await RedisRateLimitStore.connect(redisUrl ?? '', { keyPrefix: prefix });
    second = await RedisRateLimitStore.connect(redisUrl ?? '', { keyPrefix: prefix });
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it('is exact under concurrency across connections', async () => {
    const windows = [{ key: 'a:{org}:org', limit: 20, windowMs: 3_600_000 }];
    const decisions = await Promise.all(
      Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? first : second).hit(windows)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(20);
    const refused = decisions.find((d) => !d.allowed);
    expect(refused?.retryAfterMs).toBeGreaterThan(3_590_000);
    expect(refused?.windows[0]).toMatchObject({ limit: 20, remaining: 0 });
    expect(new Set(decisions.filter((d) => d.allowed).map((d) => d.windows[0]?.remaining))).toEqual(
      new Set(Array.from({ length: 20 }, (_, i) => i)),
    );
  });

  it('slides and counts a request in all windows or none', async () => {
    const org = { key: 'b:{org}:org', limit: 10, windowMs: 60_000 };
    const ip = { key: 'b:{org}:ip', limit: 2, windowMs: 300 };
    expect((await first.hit([org, ip])).allowed).toBe(true);
    expect((await second.hit([org, ip])).allowed).toBe(true);
    const refused = await first.hit([org, ip]);
    expect(refused.allowed).toBe(false);
    expect(refused.windows[0]?.remaining).toBe(8);
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(300);
    await new Promise((resolve) => setTimeout(resolve, refused.retryAfterMs + 20));
    expect((await second.hit([org, ip])).allowed).toBe(true);
  });

  it('fails at connect when Redis is not there', async () => {
    await expect(RedisRateLimitStore.connect('redis://127.0.0.1:1')).rejects.toThrow(/Cannot reach Redis/);
  });

  it('fails at connect on a database number the server does not have, rather than using database 0', async () => {
    const url = new URL(redisUrl ?? '');
    url.pathname = '/100000';
    await expect(RedisRateLimitStore.connect(url.href)).rejects.toThrow(
      /Cannot reach Redis .*DB index is out of range/,
    );
  });
});
