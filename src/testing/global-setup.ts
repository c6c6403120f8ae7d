import fs from 'node:fs';
import type { TestProject } from 'vitest/node';
import {
  ensureTestPostgres,
  ensureTestRedis,
  findTestChromium,
  readTestServiceSettings,
} from './test-services.ts';
import { buildTestWidget } from './test-widget.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PostgreSQL server the suites create throwaway databases on (see test-services.ts). */
    postgresUrl: string;
    /** Redis for the Redis-backed suites; null when none could be had (never in CI). */
    redisUrl: string | null;
    /** The widget built from this checkout's sources for this run (its folder). */
    widgetDir: string;
    /** The Chromium the browser tests drive; null: none here, and those tests are skipped. */
    chromiumPath: string | null;
  }
}

/**
 * Runs once before the suites: finds (or starts) PostgreSQL and Redis, says in one line each what it
 * used, and hands the addresses to the test workers.
 */
export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const settings = readTestServiceSettings();
  const chromium = findTestChromium(settings);
  const postgres = await ensureTestPostgres(settings);
  let redis: Awaited<ReturnType<typeof ensureTestRedis>>;
  try {
    redis = await ensureTestRedis(settings);
  } catch (error) {
    await postgres.stop();
    throw error;
  }
  console.log(`[test services] ${postgres.summary}`);
  console.log(`[test services] ${redis.summary}`);
  console.log(`[test services] ${chromium.summary}`);
  project.provide('chromiumPath', chromium.path);
  project.provide('postgresUrl', postgres.url ?? settings.postgresUrl);
  project.provide('redisUrl', redis.url);
  const widgetDir = buildTestWidget();
  project.provide('widgetDir', widgetDir);
  return async () => {
    await Promise.all([postgres.stop(), redis.stop()]);
    fs.rmSync(widgetDir, { recursive: true, force: true });
  };
}
