import { afterEach, describe, expect, it, vi } from 'vitest';
import { askBody, createTenant } from '../limits/limits-fixtures.ts';
import { MemoryRateLimitStore } from '../limits/memory-rate-limit-store.ts';
import type { RateLimitStore } from '../limits/rate-limit-store.ts';
import { createTestDatabase, type TestDatabase } from '../testing/databases.ts';
import { type LogLine, loggerInto } from '../testing/log-lines.ts';
import { createTestApp } from '../testing/test-app.ts';

describe('a rate-limit store that goes away, through the app', () => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.drop();
    database = undefined;
  });

  it('answers 503 with Retry-After and says so once in the log, then once more when it is back', async () => {
    database = await createTestDatabase('sqlite');
    const tenant = await createTenant(database.storage, { domain: 'outage' });
    const lines: LogLine[] = [];
    const memory = new MemoryRateLimitStore();
    let up = true;
    // As the Redis store fails while Redis is away: the command rejects.
    const flaky: RateLimitStore = {
      kind: 'redis',
      hit: (windows) => (up ? memory.hit(windows) : Promise.reject(new Error('Connection is closed.'))),
      close: () => memory.close(),
    };
    const app = createTestApp(database.storage, { rateLimitStore: flaky, logger: loggerInto(lines) });
    const ask = () =>
      app.request('/v2/assistant/outage/message', {
        method: 'POST',
        headers: { Authorization: `Bearer ${tenant.assistantKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          fp: 'anonymous',
          messages: [
            { id: 'm1', role: 'user', parts: [{ type: 'text', text: askBody().messages[0]?.content }] },
          ],
        }),
      });
    up = false;
    for (let i = 0; i < 3; i++) {
      const response = await ask();
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unavailable');
    }
    // The admin API's limit is counted in the same store, and its 503 says when to try again too.
    const admin = await app.request('/v1/admin/sites', {
      headers: { Authorization: `Bearer ${tenant.adminKey}` },
    });
    expect(admin.status).toBe(503);
    expect(admin.headers.get('retry-after')).toBe('5');
    expect(lines.filter((l) => l.msg === 'rate-limit store unreachable')).toHaveLength(1);
    up = true;
    await vi.waitFor(() => expect(lines.map((l) => l.msg)).toContain('rate-limit store reachable again'), {
      timeout: 5_000,
    });
    expect(lines.find((l) => l.msg === 'rate-limit store reachable again')?.failures).toBe(4);
    const answered = await ask();
    expect(answered.status).toBe(200);
    await answered.text();
  });
});
