import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SiteSearch } from '../search/site-search.ts';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite, getIndexGeneration } from '../tenancy/sites.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { FIXTURES } from './frameworks/fixture-navigation.ts';
import { EmptyDocsFolderError, ingestSite } from './ingest-site.ts';
import { getIngestionJob, listIngestionJobs } from './jobs.ts';
import { DocsConfigError } from './navigation.ts';

function writeSite(dir: string, pages: Record<string, string>, nav: string[] = Object.keys(pages)): void {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'docs.json'),
    JSON.stringify({ name: 'Fixture', navigation: { groups: [{ group: 'All', pages: nav }] } }),
  );
  for (const [page, body] of Object.entries(pages)) {
    fs.mkdirSync(path.dirname(path.join(dir, `${page}.mdx`)), { recursive: true });
    fs.writeFileSync(path.join(dir, `${page}.mdx`), body);
  }
}

const page = (title: string, word: string) =>
  `---\ntitle: ${title}\n---\n\nThis page talks about ${word}.\n\n## Details\n\nMore about ${word} here.\n`;

describe.each(dialects)('ingestSite on %s', (dialect) => {
  let database: TestDatabase;
  let siteId: string;
  let dir: string;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const org = await createOrganization(database.storage, { name: 'o' });
    siteId = (await createSite(database.storage, { organizationId: org.id, domain: 'fixture' })).id;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-ingest-'));
  });
  afterAll(async () => {
    await database.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('ingests, then re-ingests incrementally', async () => {
    const { storage } = database;
    writeSite(
      dir,
      { a: page('Alpha', 'apples'), b: page('Beta', 'bananas'), 'guide/c': page('Gamma', 'cherries') },
      ['a', 'b', 'guide/c', 'missing-page'],
    );
    const first = await ingestSite(storage, siteId, dir);
    expect(first.counts).toMatchObject({ pages: 3, added: 3, updated: 0, removed: 0, unchanged: 0 });
    expect(first.counts.chunksWritten).toBeGreaterThanOrEqual(3);
    expect(first.warnings.some((w) => w.file === 'docs.json' && w.message.includes('missing-page'))).toBe(
      true,
    );
    const job = await getIngestionJob(storage, first.job.id);
    expect(job?.status).toBe('success');
    expect(job?.counts?.added).toBe(3);
    expect(job?.warnings.length).toBe(first.warnings.length);
    expect(job?.startedAt).not.toBeNull();
    expect(job?.finishedAt).not.toBeNull();
    const generation = await getIndexGeneration(storage, siteId);

    const again = await ingestSite(storage, siteId, dir);
    expect(again.counts).toMatchObject({
      pages: 3,
      added: 0,
      updated: 0,
      removed: 0,
      unchanged: 3,
      chunksWritten: 0,
    });
    expect(await getIndexGeneration(storage, siteId)).toBe(generation);

    writeSite(dir, {
      a: page('Alpha', 'apricots'),
      'guide/c': page('Gamma', 'cherries'),
      d: page('Delta', 'dates'),
    });
    const changed = await ingestSite(storage, siteId, dir);
    expect(changed.counts).toMatchObject({ pages: 3, added: 1, updated: 1, removed: 1, unchanged: 1 });
    expect(await getIndexGeneration(storage, siteId)).toBe((generation ?? 0) + 1);

    const search = new SiteSearch(storage);
    expect((await search.search(siteId, 'apricots', { limit: 5 }))[0]?.pagePath).toBe('a');
    expect(await search.search(siteId, 'bananas', { limit: 5 })).toEqual([]);
    expect(await search.search(siteId, 'apples', { limit: 5 })).toEqual([]);
    const deep = (await search.search(siteId, 'dates', { limit: 5 })).map((r) => r.url);
    expect(deep).toContain('/d#details');
    expect((await listIngestionJobs(storage, siteId)).length).toBe(3);
  });

  it("stores every page's navigation place and moves unchanged pages without re-indexing them", async () => {
    const { storage } = database;
    const org = await createOrganization(storage, { name: 'nav' });
    const navSite = (await createSite(storage, { organizationId: org.id, domain: `nav-${dialect}` })).id;
    const navDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-ingest-nav-'));
    const write = (navigation: unknown) => {
      fs.writeFileSync(path.join(navDir, 'docs.json'), JSON.stringify({ navigation }));
      for (const id of ['a', 'b', 'c']) fs.writeFileSync(path.join(navDir, `${id}.mdx`), page(id, id));
    };
    const places = async () =>
      Object.fromEntries(
        (
          await storage.db
            .selectFrom('pages')
            .select(['path', 'nav_order', 'nav_group'])
            .where('site_id', '=', navSite)
            .execute()
        ).map((row) => [row.path, [row.nav_order, row.nav_group]]),
      );

    write({
      groups: [
        { group: 'One', pages: ['a', 'b'] },
        { group: 'Two', pages: ['c'] },
      ],
    });
    await ingestSite(storage, navSite, navDir);
    expect(await places()).toEqual({ a: [0, 'One'], b: [1, 'One'], c: [2, 'Two'] });
    const generation = await getIndexGeneration(storage, navSite);

    write({ pages: ['c', { group: 'Two', pages: ['b', 'a'] }] });
    const moved = await ingestSite(storage, navSite, navDir);
    expect(moved.counts).toMatchObject({ unchanged: 3, added: 0, updated: 0, chunksWritten: 0 });
    expect(await places()).toEqual({ a: [2, 'Two'], b: [1, 'Two'], c: [0, null] });
    // Readers of the navigation (llms.txt) cache by generation: a move is a change.
    expect(await getIndexGeneration(storage, navSite)).toBe((generation ?? 0) + 1);

    const again = await ingestSite(storage, navSite, navDir);
    expect(again.counts.unchanged).toBe(3);
    expect(await getIndexGeneration(storage, navSite)).toBe((generation ?? 0) + 1);
    fs.rmSync(navDir, { recursive: true, force: true });
  });

  it('re-ingests pages named __proto__ and constructor as unchanged', async () => {
    const { storage } = database;
    const org = await createOrganization(storage, { name: 'protos' });
    const protoSite = (await createSite(storage, { organizationId: org.id, domain: 'protos' })).id;
    const protoDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-ingest-protos-'));
    try {
      // A computed key: `{ __proto__: … }` would set the prototype, not a page.
      writeSite(protoDir, {
        ['__proto__']: page('Proto', 'prototypes'),
        constructor: page('Ctor', 'builders'),
      });
      const first = await ingestSite(storage, protoSite, protoDir);
      expect(first.counts).toMatchObject({ pages: 2, added: 2 });
      const again = await ingestSite(storage, protoSite, protoDir);
      expect(again.counts).toMatchObject({ pages: 2, added: 0, updated: 0, unchanged: 2 });
    } finally {
      fs.rmSync(protoDir, { recursive: true, force: true });
    }
  });

  it("reports a broken page's warnings again when it is re-ingested unchanged, until it is fixed", async () => {
    const { storage } = database;
    const org = await createOrganization(storage, { name: 'broken' });
    const brokenSite = (await createSite(storage, { organizationId: org.id, domain: 'broken' })).id;
    const brokenDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-ingest-broken-'));
    try {
      writeSite(brokenDir, {
        good: page('Good', 'apples'),
        bad: '---\ntitle: Bad\n---\n\nSome text about pears.\n\n{oops\n',
      });
      const invalid = (w: { file: string; message: string }) =>
        w.file === 'bad.mdx' && w.message.includes('invalid MDX');
      const first = await ingestSite(storage, brokenSite, brokenDir);
      expect(first.counts).toMatchObject({ pages: 2, added: 2 });
      expect(first.warnings.filter(invalid)).toEqual([expect.objectContaining({ line: 8 })]);
      // The page is still broken: the owner must still be told, without it being written again.
      const generation = await getIndexGeneration(storage, brokenSite);
      const again = await ingestSite(storage, brokenSite, brokenDir);
      expect(again.counts).toMatchObject({ added: 0, updated: 0, unchanged: 2, chunksWritten: 0 });
      expect(again.warnings.filter(invalid)).toEqual([expect.objectContaining({ line: 8 })]);
      expect(await getIndexGeneration(storage, brokenSite)).toBe(generation);
      fs.writeFileSync(path.join(brokenDir, 'bad.mdx'), page('Bad', 'pears'));
      const fixed = await ingestSite(storage, brokenSite, brokenDir);
      expect(fixed.counts).toMatchObject({ updated: 1, unchanged: 1 });
      expect(fixed.warnings.filter(invalid)).toEqual([]);
      const after = await ingestSite(storage, brokenSite, brokenDir);
      expect(after.counts).toMatchObject({ updated: 0, unchanged: 2, chunksWritten: 0 });
    } finally {
      fs.rmSync(brokenDir, { recursive: true, force: true });
    }
  });

  it("finds an untranslated page in a language the site shows it in (the default language's text)", async () => {
    const { storage } = database;
    const org = await createOrganization(storage, { name: 'i18n' });
    const translated = (await createSite(storage, { organizationId: org.id, domain: 'translated' })).id;
    await ingestSite(storage, translated, path.join(FIXTURES, 'docusaurus-versioned-i18n'));
    const search = new SiteSearch(storage);
    const french = (query: string) =>
      search.search(translated, query, { limit: 10, language: 'fr', version: 'Next 🚧' });
    // "Scaling" has no French translation: the French site shows the English page, so French finds it.
    expect((await french('scaling workers')).map((r) => r.pagePath)).toContain(
      'docs/next/guides/advanced/scaling',
    );
    // A translated page is found in French as its translation, not as the English original.
    const intro = (await french('widgets')).map((r) => r.pagePath);
    expect(intro).toContain('fr/docs/next');
    expect(intro).not.toContain('docs/next');
    // English readers never get the French page.
    const english = await search.search(translated, 'widgets', {
      limit: 10,
      language: 'en',
      version: 'Next 🚧',
    });
    expect(english.map((r) => r.pagePath)).toContain('docs/next');
    expect(english.map((r) => r.pagePath)).not.toContain('fr/docs/next');
    // A page's <html lang> with a region selects the site's label of that language.
    const regional = await search.search(translated, 'widgets', {
      limit: 10,
      language: 'fr-FR',
      version: 'Next 🚧',
    });
    expect(regional.map((r) => r.pagePath)).toContain('fr/docs/next');
    expect(regional.map((r) => r.pagePath)).not.toContain('docs/next');
    // A language the docs lack filters nothing out: the reader reads the languages they have.
    const german = await search.search(translated, 'widgets', {
      limit: 10,
      language: 'de',
      version: 'Next 🚧',
    });
    expect(german.map((r) => r.pagePath)).toEqual(expect.arrayContaining(['docs/next', 'fr/docs/next']));
    // …stemmed as those pages are, not as German ("workers" stems apart in German and English).
    const germanWorkers = await search.search(translated, 'scaling workers', {
      limit: 10,
      language: 'de-DE',
      version: 'Next 🚧',
    });
    expect(germanWorkers.map((r) => r.pagePath)).toContain('docs/next/guides/advanced/scaling');
  });

  it('records a failed job and leaves the stored site untouched', async () => {
    const { storage } = database;
    const before = await storage.db
      .selectFrom('pages')
      .select('path')
      .where('site_id', '=', siteId)
      .execute();
    await expect(ingestSite(storage, siteId, path.join(dir, 'does-not-exist'))).rejects.toThrow();
    const [latest] = await listIngestionJobs(storage, siteId, 1);
    expect(latest?.status).toBe('failure');
    expect(latest?.error).toMatch(/.+/);
    const after = await storage.db.selectFrom('pages').select('path').where('site_id', '=', siteId).execute();
    expect(after.map((r) => r.path).sort()).toEqual(before.map((r) => r.path).sort());
  });

  it('refuses a folder with no pages rather than empty the site, unless told to', async () => {
    const { storage } = database;
    const pathsOf = async () =>
      (await storage.db.selectFrom('pages').select('path').where('site_id', '=', siteId).execute())
        .map((r) => r.path)
        .sort();
    const before = await pathsOf();
    expect(before.length).toBeGreaterThan(0);
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-empty-'));
    try {
      await expect(ingestSite(storage, siteId, empty)).rejects.toThrow(EmptyDocsFolderError);
      const [latest] = await listIngestionJobs(storage, siteId, 1);
      expect(latest?.status).toBe('failure');
      expect(latest?.error).toContain(`would remove all ${before.length} pages`);
      // Read by admin API callers too, who have no such flag: it says where the flag is.
      expect(latest?.error).toContain(
        'with the CLI (docent ingest --allow-empty; the admin API has no such option)',
      );
      expect(await pathsOf()).toEqual(before);
      // A site whose docs really are gone can still be emptied on purpose; then re-filled.
      const emptied = await ingestSite(storage, siteId, empty, { allowEmpty: true });
      expect(emptied.counts.removed).toBe(before.length);
      expect(await pathsOf()).toEqual([]);
      await ingestSite(storage, siteId, dir);
      expect(await pathsOf()).toEqual(before);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it('keeps the stored pages when docs.json breaks, instead of indexing every file it left out', async () => {
    const { storage } = database;
    const org = await createOrganization(storage, { name: 'broken-config' });
    const id = (await createSite(storage, { organizationId: org.id, domain: `broken-config-${dialect}` })).id;
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-broken-config-'));
    try {
      writeSite(folder, { intro: page('Intro', 'apples'), draft: page('Draft', 'secrets') }, ['intro']);
      await ingestSite(storage, id, folder);
      const pathsOf = async () =>
        (await storage.db.selectFrom('pages').select('path').where('site_id', '=', id).execute()).map(
          (r) => r.path,
        );
      expect(await pathsOf()).toEqual(['intro']);
      fs.writeFileSync(path.join(folder, 'docs.json'), '{"navigation": {"pages": ["intro",]}}');
      await expect(ingestSite(storage, id, folder)).rejects.toThrow(DocsConfigError);
      const [latest] = await listIngestionJobs(storage, id, 1);
      expect(latest?.status).toBe('failure');
      expect(latest?.error).toMatch(/^docs\.json is not valid JSON at line 1, column \d+/);
      expect(await pathsOf()).toEqual(['intro']);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('never lets a search see a half-updated site', async () => {
    const { storage } = database;
    const org = await createOrganization(storage, { name: 'atomic' });
    const atomicSite = (await createSite(storage, { organizationId: org.id, domain: `atomic-${dialect}` }))
      .id;
    const pageCount = 120;
    const build = (word: string) =>
      Object.fromEntries(
        Array.from({ length: pageCount }, (_, i) => [`p${i}`, page(`Page ${i}`, `${word} number ${i}`)]),
      );
    writeSite(dir, build('zebra'));
    await ingestSite(storage, atomicSite, dir);
    writeSite(dir, build('walrus'));

    // A fresh SiteSearch per observation loads whatever the database holds at that moment, so a
    // non-atomic write (pages deleted, new ones not yet inserted) would show up as a partial site.
    const observations: { pages: number; animals: Set<string> }[] = [];
    let done = false;
    const ingestion = ingestSite(storage, atomicSite, dir).finally(() => {
      done = true;
    });
    while (!done) {
      const results = await new SiteSearch(storage).search(atomicSite, 'number', { limit: 1000 });
      observations.push({
        pages: new Set(results.map((r) => r.pagePath)).size,
        animals: new Set(results.map((r) => (r.text.includes('walrus') ? 'walrus' : 'zebra'))),
      });
      await new Promise((resolve) => setImmediate(resolve));
    }
    await ingestion;
    const final = await new SiteSearch(storage).search(atomicSite, 'walrus', { limit: 1000 });
    expect(new Set(final.map((r) => r.pagePath)).size).toBe(pageCount);
    expect(observations.length).toBeGreaterThan(0);
    for (const observation of observations) {
      expect(observation.pages).toBe(pageCount);
      expect(observation.animals.size).toBe(1);
    }
  });
});
