import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestSite } from '../ingest/ingest-site.ts';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite, getSite, updateSite } from '../tenancy/sites.ts';
import { createTestDatabase, type TestDatabase } from '../testing/databases.ts';
import { SiteSearch } from './site-search.ts';

/** The landing page (site-landing.ts) follows the site's name as it is now, not as it was at ingestion. */
describe('a question about the whole site, after the site is renamed', () => {
  let database: TestDatabase;
  let dir: string;
  let siteId: string;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-landing-'));
    const pages: Record<string, string> = {
      intro: 'Zephyr is a message queue for small teams.',
      retries: 'Zephyr retries. Zephyr retries a Zephyr message; Zephyr gives up after five Zephyr tries.',
      queues: 'Zephyr queues hold Zephyr messages. A Zephyr queue is named; Zephyr lists Zephyr queues.',
    };
    for (const [name, text] of Object.entries(pages))
      fs.writeFileSync(path.join(dir, `${name}.mdx`), `---\ntitle: ${name}\n---\n\n${text}\n`);
    fs.writeFileSync(
      path.join(dir, 'docs.json'),
      JSON.stringify({ navigation: { pages: Object.keys(pages) } }),
    );
    const org = await createOrganization(database.storage, { name: 'o' });
    siteId = (await createSite(database.storage, { organizationId: org.id, domain: 'acme', name: 'Acme' }))
      .id;
    await ingestSite(database.storage, siteId, dir);
  });
  afterAll(async () => {
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers from the landing page once the name is the one asked about, with no new ingestion', async () => {
    const search = new SiteSearch(database.storage);
    const first = async () => {
      const site = await getSite(database.storage, siteId);
      if (!site) throw new Error('no site');
      return (await search.search(siteId, 'what is zephyr', { limit: 3 }, site))[0]?.pagePath;
    };
    expect(await first()).not.toBe('intro');
    await updateSite(database.storage, siteId, { name: 'Zephyr' });
    expect(await first()).toBe('intro');
    // And through a search that reads the site row itself.
    expect((await search.search(siteId, 'what is zephyr', { limit: 3 }))[0]?.pagePath).toBe('intro');
  });
});
