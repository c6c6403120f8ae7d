import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite } from '../tenancy/sites.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { MAX_UNCITED_PAGES, pageStats } from './pages.ts';

describe.each(dialects)('page statistics on %s', (dialect) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('counts every page never cited, beyond the ones it lists', async () => {
    const organizationId = (await createOrganization(db.storage, { name: 'Big docs' })).id;
    const site = await createSite(db.storage, { organizationId, domain: 'big-docs' });
    const pages = MAX_UNCITED_PAGES + 40;
    await db.storage.db
      .insertInto('pages')
      .values(
        Array.from({ length: pages }, (_, i) => ({
          site_id: site.id,
          path: `guides/page-${String(i).padStart(4, '0')}`,
          title: `Page ${i}`,
          description: null,
          versions: '[]',
          languages: '[]',
          content_hash: `h${i}`,
          updated_at: new Date().toISOString(),
          nav_order: null,
          nav_group: null,
        })),
      )
      .execute();
    const now = Date.now();
    const stats = await pageStats(db.storage, organizationId, {
      from: new Date(now - 86_400_000).toISOString(),
      to: new Date(now + 3_600_000).toISOString(),
    });
    expect(stats.neverCited).toHaveLength(MAX_UNCITED_PAGES);
    expect(stats.neverCited[0]?.path).toBe('guides/page-0000');
    expect(stats.neverCitedTotal).toBe(pages);
  });
});
