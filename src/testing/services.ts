import { inject } from 'vitest';

/** The PostgreSQL server this test run uses (configured, or started by the global setup). */
export function testPostgresUrl(): string {
  return inject('postgresUrl');
}

/** The Redis this test run uses; null when none could be had, which the global setup said and CI refuses. */
export function testRedisUrl(): string | null {
  return inject('redisUrl');
}

/** The Chromium the browser suites drive (the global setup found it), or null: they skip. */
export function testChromiumPath(): string | null {
  return inject('chromiumPath');
}
