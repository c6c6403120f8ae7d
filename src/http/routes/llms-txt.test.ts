import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapSite } from '../../tenancy/bootstrap-site.ts';
import { updateSite } from '../../tenancy/sites.ts';
import { TenancyCache } from '../../tenancy/tenancy-cache.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../../testing/databases.ts';
import { llmsTxtRoute } from './llms-txt.ts';

describe.each(dialects)('llms.txt and llms-full.txt ETags on %s', (dialect) => {
  let database: TestDatabase;
  let docsDir = '';
  let siteId = '';
  let route: ReturnType<typeof llmsTxtRoute>;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    docsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-llms-etag-'));
    fs.writeFileSync(path.join(docsDir, 'index.md'), '---\ntitle: Home\n---\nWelcome.\n');
    siteId = (await bootstrapSite(database.storage, { domain: 'acme', docsDir, siteName: 'Acme' })).site.id;
    // No cache: each request reads the site row as it is now.
    route = llmsTxtRoute({
      storage: database.storage,
      tenancy: new TenancyCache(database.storage, 0),
      publicUrl: null,
      trustProxy: false,
    });
  });
  afterAll(async () => {
    await database?.drop();
    fs.rmSync(docsDir, { recursive: true, force: true });
  });

  const get = (file: string, headers: Record<string, string> = {}) =>
    route.request(`http://docs.example.com/sites/acme/${file}`, { headers });

  it.each(['llms.txt', 'llms-full.txt'])(
    '%s: a tag held from before a rename, or from another address, is not answered 304',
    async (file) => {
      await updateSite(database.storage, siteId, { name: 'Acme' });
      const first = await get(file);
      expect(first.status).toBe(200);
      expect(await first.text()).toMatch(/^# Acme\n/);
      const etag = first.headers.get('etag') ?? '';
      expect((await get(file, { 'If-None-Match': etag })).status).toBe(304);

      // Its links start with the address the request came to: another address, another text.
      const elsewhere = await get(file, { 'If-None-Match': etag, Host: 'docs-ai.example.org' });
      expect(elsewhere.status).toBe(200);
      expect(await elsewhere.text()).toContain('http://docs-ai.example.org/sites/acme/pages/index.md');

      // A rename changes the title without an ingestion (the index generation stays).
      await updateSite(database.storage, siteId, { name: 'Acme Cloud' });
      const renamed = await get(file, { 'If-None-Match': etag });
      expect(renamed.status).toBe(200);
      expect(await renamed.text()).toMatch(/^# Acme Cloud\n/);
      const newer = renamed.headers.get('etag') ?? '';
      expect(newer).not.toBe(etag);
      expect((await get(file, { 'If-None-Match': newer })).status).toBe(304);
    },
  );

  it.each(['llms.txt', 'llms-full.txt'])(
    '%s: a request naming a new Host is answered from the pages read for the first, not by reading them again',
    async (file) => {
      const first = await get(file, { Host: 'one.example' });
      expect(await first.text()).toContain('http://one.example/sites/acme/pages/index.md');
      // Edited behind the index generation's back: only a new read of the pages would show it.
      const edit = ' EDITED';
      const db = database.storage.db;
      await db
        .updateTable('chunks')
        .set({ text: sql<string>`text || ${edit}` })
        .where('site_id', '=', siteId)
        .execute();
      await db
        .updateTable('pages')
        .set({ title: sql<string>`title || ${edit}` })
        .where('site_id', '=', siteId)
        .execute();
      try {
        const other = await get(file, { Host: 'two.example:8080' });
        const text = await other.text();
        expect(text).toContain('http://two.example:8080/sites/acme/pages/index.md');
        expect(text).not.toContain('one.example');
        expect(text).toContain('Home');
        if (file === 'llms-full.txt') expect(text).toContain('Welcome.');
        expect(text).not.toContain(edit);
      } finally {
        const cut = (column: string) =>
          sql<string>`substr(${sql.ref(column)}, 1, length(${sql.ref(column)}) - ${edit.length})`;
        await db
          .updateTable('chunks')
          .set({ text: cut('text') })
          .where('site_id', '=', siteId)
          .execute();
        await db
          .updateTable('pages')
          .set({ title: cut('title') })
          .where('site_id', '=', siteId)
          .execute();
      }
    },
  );

  it('says which request headers its links were built from, so a shared cache keys on them', async () => {
    const behindProxy = llmsTxtRoute({
      storage: database.storage,
      tenancy: new TenancyCache(database.storage, 0),
      publicUrl: null,
      trustProxy: 1,
    });
    const forged = await behindProxy.request('http://docs.example.com/sites/acme/llms.txt', {
      headers: { 'X-Forwarded-Host': 'evil.example' },
    });
    expect(await forged.text()).toContain('http://evil.example/sites/acme/pages/index.md');
    expect(forged.headers.get('vary')).toBe('Host, X-Forwarded-Host, X-Forwarded-Proto');
    const revalidated = await behindProxy.request('http://docs.example.com/sites/acme/llms.txt', {
      headers: { 'X-Forwarded-Host': 'evil.example', 'If-None-Match': forged.headers.get('etag') ?? '' },
    });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('vary')).toBe('Host, X-Forwarded-Host, X-Forwarded-Proto');

    expect((await get('llms.txt')).headers.get('vary')).toBe('Host');
    // With a public URL the links are the same whoever asks: nothing to vary by.
    const published = llmsTxtRoute({
      storage: database.storage,
      tenancy: new TenancyCache(database.storage, 0),
      publicUrl: 'https://docs-ai.example.com',
      trustProxy: 1,
    });
    const fixed = await published.request('http://docs.example.com/sites/acme/llms.txt', {
      headers: { 'X-Forwarded-Host': 'evil.example' },
    });
    expect(await fixed.text()).toContain('https://docs-ai.example.com/sites/acme/pages/index.md');
    expect(fixed.headers.get('vary')).toBeNull();
  });
});
