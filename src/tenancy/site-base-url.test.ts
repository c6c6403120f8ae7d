import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { bootstrapSite } from './bootstrap-site.ts';
import { createOrganization } from './organizations.ts';
import { createSite, getSite, getSiteByDomain, InvalidSiteError, updateSite } from './sites.ts';

/** The rule lives in the domain layer, so no writer (CLI, API, a script) can store a script URL. */
describe.each(dialects)('site URLs in the domain layer on %s', (dialect) => {
  let database: TestDatabase;
  let organizationId: string;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    organizationId = (await createOrganization(database.storage, { name: 'o' })).id;
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('refuses a base URL that is not http: or https: on create and update', async () => {
    const { storage } = database;
    for (const baseUrl of ['javascript:alert(1)', 'data:text/html,x', 'ftp://docs.example.com', '']) {
      await expect(createSite(storage, { organizationId, domain: 'bad', baseUrl })).rejects.toThrow(
        InvalidSiteError,
      );
    }
    expect(await getSiteByDomain(storage, 'bad')).toBeUndefined();

    const site = await createSite(storage, { organizationId, domain: 'good', baseUrl: 'https://d.example/' });
    expect(site.base_url).toBe('https://d.example');
    await expect(updateSite(storage, site.id, { base_url: 'javascript:alert(1)' })).rejects.toThrow(
      /baseUrl must be an http: or https: URL/,
    );
    await expect(
      updateSite(storage, site.id, { allowed_origins: '["javascript:alert(1)"]' }),
    ).rejects.toThrow(InvalidSiteError);
    const stored = await getSite(storage, site.id);
    expect(stored?.base_url).toBe('https://d.example');
    expect(stored?.allowed_origins).toBe('[]');
    await updateSite(storage, site.id, { base_url: 'http://localhost:3000/docs/' });
    expect((await getSite(storage, site.id))?.base_url).toBe('http://localhost:3000/docs');
  });

  it('bootstraps nothing (no organization either) for a bad base URL', async () => {
    const docs = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-bootstrap-'));
    try {
      fs.writeFileSync(path.join(docs, 'index.md'), '# Index\n');
      const before = await database.storage.db.selectFrom('organizations').select('id').execute();
      await expect(
        bootstrapSite(database.storage, { domain: 'boot', docsDir: docs, baseUrl: 'javascript:alert(1)' }),
      ).rejects.toThrow(InvalidSiteError);
      const after = await database.storage.db.selectFrom('organizations').select('id').execute();
      expect(after).toHaveLength(before.length);
      // Nor does a first ingestion that fails (a folder that is not there): its domain stays free.
      await expect(
        bootstrapSite(database.storage, { domain: 'gone', docsDir: path.join(docs, 'missing') }),
      ).rejects.toThrow(/docs folder not found/);
      expect(await getSiteByDomain(database.storage, 'gone')).toBeUndefined();
      expect(await database.storage.db.selectFrom('organizations').select('id').execute()).toHaveLength(
        before.length,
      );
    } finally {
      fs.rmSync(docs, { recursive: true, force: true });
    }
  });
});
