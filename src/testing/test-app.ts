import type { Hono } from 'hono';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { type AppDeps, createApp } from '../app.ts';
import type { AppEnv } from '../http/app-env.ts';
import { createTenant, type Tenant } from '../limits/limits-fixtures.ts';
import { SiteSearch } from '../search/site-search.ts';
import type { DialectName, Storage } from '../storage/database.ts';
import { IngestionRunner } from '../tenancy/ingestion-runner.ts';
import { createTestDatabase, type TestDatabase } from './databases.ts';

/** The app as the server builds it, over `storage`, with a silent logger; `deps` adds or replaces parts. */
export function createTestApp(storage: Storage, deps: Partial<AppDeps> = {}): Hono<AppEnv> {
  return createApp({ storage, search: new SiteSearch(storage), logger: pino({ level: 'silent' }), ...deps });
}

export interface OwnerApp {
  readonly app: Hono<AppEnv>;
  readonly database: TestDatabase;
  /** An organization with the site `domain`, its assistant key and an admin key. */
  readonly tenant: Tenant;
}

/**
 * For a test file (or a `describe`) of the admin API or the console: an app over a fresh database holding
 * one tenant, made before its tests and removed after them (its background ingestions waited for). Read
 * the fields inside tests: they are set once `beforeAll` has run.
 */
export function useOwnerApp(
  domain: string,
  options: { dialect?: DialectName; deps?: Partial<AppDeps> } = {},
): OwnerApp {
  let state: { app: Hono<AppEnv>; database: TestDatabase; tenant: Tenant } | undefined;
  const ingestions = new IngestionRunner();
  beforeAll(async () => {
    const database = await createTestDatabase(options.dialect ?? 'sqlite');
    const app = createTestApp(database.storage, { docsRoot: null, ingestions, ...options.deps });
    state = { app, database, tenant: await createTenant(database.storage, { domain }) };
  });
  afterAll(async () => {
    await ingestions.idle();
    await state?.database.drop();
  });
  const current = () => {
    if (state === undefined) throw new Error('useOwnerApp: read its fields inside tests, after beforeAll');
    return state;
  };
  return {
    get app() {
      return current().app;
    },
    get database() {
      return current().database;
    },
    get tenant() {
      return current().tenant;
    },
  };
}
