import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../app.ts';
import { createTenant, type Tenant } from '../../../limits/limits-fixtures.ts';
import { SiteSearch } from '../../../search/site-search.ts';
import { signInToConsole } from '../../../tenancy/console-sessions.ts';
import { IngestionRunner } from '../../../tenancy/ingestion-runner.ts';
import { createTestDatabase, type TestDatabase } from '../../../testing/databases.ts';

describe('console errors', () => {
  let database: TestDatabase;
  let app: ReturnType<typeof createApp>;
  let tenant: Tenant;
  const ingestions = new IngestionRunner();

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    app = createApp({
      storage: database.storage,
      search: new SiteSearch(database.storage),
      logger: pino({ level: 'silent' }),
      docsRoot: null,
      ingestions,
    });
    tenant = await createTenant(database.storage, { domain: 'owner' });
  });
  afterAll(async () => {
    await ingestions.idle();
    await database?.drop();
  });

  it('are a page with a way back in a browser, and the JSON error body otherwise', async () => {
    const { secret } = await signInToConsole(database.storage, tenant.adminKey);
    const headers = { Cookie: `docent_console=${secret}` };
    for (const path of ['/console/conversations/thr_gone', '/console/sites/elsewhere', '/console/nowhere']) {
      const page = await app.request(`http://localhost${path}`, {
        headers: { ...headers, Accept: 'text/html,application/xhtml+xml' },
      });
      expect(page.status, path).toBe(404);
      expect(page.headers.get('Content-Type'), path).toContain('text/html');
      const text = await page.text();
      expect(text, path).toContain('<a href="/console">Back to the console</a>');
      expect(text, path).toContain(`Request id <code>${page.headers.get('X-Request-Id')}</code>`);
      const json = await app.request(`http://localhost${path}`, { headers });
      expect(json.headers.get('Content-Type'), path).toContain('application/json');
      expect(((await json.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
    // A message with markup in it is shown as text.
    const odd = await app.request('http://localhost/console/sites/%3Cb%3Ex', {
      headers: { ...headers, Accept: 'text/html' },
    });
    const oddText = await odd.text();
    expect(oddText).not.toContain('<b>x');
    expect(oddText).toContain('&lt;b&gt;x');
    // A form a browser sent that fails (its CSRF token missing) is a page too.
    const refused = await app.request('http://localhost/console/keys', {
      method: 'POST',
      headers: {
        ...headers,
        Accept: 'text/html',
        Origin: 'http://localhost',
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: 'kind=admin',
    });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('Back to the console');
  });
});
