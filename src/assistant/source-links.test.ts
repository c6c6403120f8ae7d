import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SiteSearch } from '../search/site-search.ts';
import { bootstrapSite } from '../tenancy/bootstrap-site.ts';
import { getSite } from '../tenancy/sites.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { sourceLinker } from './source-links.ts';

/**
 * New base URLs are refused unless http(s) (tenancy/sites.ts), but a database written before that rule
 * may hold a script URL: readers' links never use one.
 */
describe('links to the sections readers are sent to', () => {
  it("follow the site's published paths under its base URL, and page ids on Docent's page view", () => {
    const own = sourceLinker(
      { domain: 'acme', base_url: 'https://docs.acme.dev/' },
      'https://docent.example.com',
    );
    expect(own({ pagePath: 'index', anchor: null })).toBe('https://docs.acme.dev/');
    expect(own({ pagePath: 'index', anchor: 'install' })).toBe('https://docs.acme.dev/#install');
    expect(own({ pagePath: 'guides/index', anchor: null })).toBe('https://docs.acme.dev/guides/');
    expect(own({ pagePath: 'guides/reindex', anchor: 'a' })).toBe('https://docs.acme.dev/guides/reindex#a');
    const view = sourceLinker({ domain: 'acme', base_url: null }, 'https://docent.example.com');
    expect(view({ pagePath: 'index', anchor: null })).toBe(
      'https://docent.example.com/sites/acme/pages/index',
    );
  });
});

describe.each(dialects)('links from a stored script base URL on %s', (dialect) => {
  let database: TestDatabase;
  let docs: string;
  let siteId: string;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    docs = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-links-'));
    fs.writeFileSync(path.join(docs, 'widgets.md'), '# Widgets\n\n## Install\n\nInstall the widget.\n');
    const boot = await bootstrapSite(database.storage, { domain: 'links', docsDir: docs });
    siteId = boot.site.id;
    // As an older version could store it, past today's check.
    await database.storage.db
      .updateTable('sites')
      .set({ base_url: 'javascript:alert(1)//' })
      .where('id', '=', siteId)
      .execute();
  });
  afterAll(async () => {
    await database?.drop();
    fs.rmSync(docs, { recursive: true, force: true });
  });

  it("links to Docent's page view in answers, and to a relative path in search results", async () => {
    const site = await getSite(database.storage, siteId);
    if (!site) throw new Error('site missing');
    expect(site.base_url).toBe('javascript:alert(1)//');
    const link = sourceLinker(site, 'https://docent.example.com')({ pagePath: 'widgets', anchor: 'install' });
    expect(link).toBe('https://docent.example.com/sites/links/pages/widgets#install');

    const results = await new SiteSearch(database.storage).search(siteId, 'install widget', { limit: 3 });
    expect(results.length).toBeGreaterThan(0);
    for (const result of results) expect(result.url).toMatch(/^\/widgets/);
  });
});
