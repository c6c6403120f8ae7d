import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../storage/database.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { createTestApp } from '../testing/test-app.ts';

describe.each(dialects)('health routes on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database.drop();
  });

  const appFor = (storage: Storage) => createTestApp(storage);

  it('answers liveness and readiness', async () => {
    const app = appFor(database.storage);
    const live = await app.request('/healthz');
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await app.request('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', database: dialect });
  });

  it('reports not ready with the standard error body when the database is gone', async () => {
    const storage = await openStorage(database.url);
    const app = appFor(storage);
    await storage.close();
    const response = await app.request('/readyz');
    expect(response.status).toBe(503);
    const body = (await response.json()) as { error: { code: string; requestId: string } };
    expect(body.error.code).toBe('unavailable');
    expect(body.error.requestId).toBe(response.headers.get('X-Request-Id'));
  });

  it('answers unknown routes with a JSON 404 carrying the request id', async () => {
    const response = await appFor(database.storage).request('/nope');
    expect(response.status).toBe(404);
    const body = (await response.json()) as { error: { code: string; requestId: string } };
    expect(body.error.code).toBe('not_found');
    expect(body.error.requestId).toMatch(/.+/);
  });
});
