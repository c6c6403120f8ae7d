import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SiteSearch } from '../search/site-search.ts';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite } from '../tenancy/sites.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { containedFolder, RACY_MS } from './contained-file.ts';
import { ingestSite } from './ingest-site.ts';

/**
 * A file gets a stamp only once both its modification and change times are RACY_MS old, and no program
 * can set a change time back: the tests write their folders first and wait this long once.
 */
const SETTLE_MS = RACY_MS + 200;
const IN_AN_HOUR = new Date(Date.now() + 3_600_000);
/** Every fixture's times: set back to this one Date, a file gets the very same times (Node converts alike). */
const AN_HOUR_AGO = new Date(Date.now() - 3_600_000);

const writeFiles = (dir: string, files: Record<string, string>): void => {
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
};

const docsJson = (pages: string[], version = 'v1') =>
  JSON.stringify({
    name: 'Stamps',
    navigation: { versions: [{ version, groups: [{ group: 'All', pages }] }] },
  });

/** Every test's folder, by dialect and name, written before any test runs. */
const FOLDERS: Record<string, Record<string, string>> = {
  changes: {
    'docs.json': docsJson(['a', 'b', 'c']),
    'a.mdx':
      "---\ntitle: Alpha\n---\n\nimport Note from '/snippets/note.mdx';\n\nAlpha about apples.\n\n<Note />\n",
    'b.mdx': '---\ntitle: Beta\n---\n\nBeta about bananas.\n',
    'c.mdx': '---\ntitle: Gamma\n---\n\nGamma about cherries.\n',
    'snippets/note.mdx': 'A note about kiwis.\n',
  },
  imports: {
    'docs.json': docsJson(['a']),
    'a.mdx': "import Tip from '/snippets/tip';\n\n# Alpha\n\nAlpha text.\n\n<Tip />\n",
    'snippets/tip.md': 'Tip from markdown about walnuts.\n',
  },
  labels: { 'docs.json': docsJson(['a']), 'a.mdx': '# Alpha\n\nAlpha text.\n' },
  moved: {
    'mkdocs.yml': 'site_name: Moved\ndocs_dir: one\n',
    'one/guide.md': '# Guide\n\nThe first folder speaks of hazelnuts.\n',
    'two/guide.md': '# Guide\n\nThe second folder speaks of almonds.\n',
  },
  hidden: {
    'docs.json': JSON.stringify({
      name: 'Hidden',
      seo: { indexing: 'all' },
      navigation: { pages: ['a', 'b'] },
    }),
    'a.mdx': '---\ntitle: Alpha\nhidden: true\n---\n\nAlpha text.\n',
    'b.mdx': '# Beta\n\nBeta text.\n',
  },
  fresh: {
    'docs.json': docsJson(['a', 'b', 'c']),
    'a.mdx': '# Alpha\n\nAlpha text.\n',
    'b.mdx': '# Beta\n\nBeta text.\n',
    'c.mdx': '# Gamma\n\nGamma text.\n',
  },
};

let base: string;
beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-stamps-'));
  for (const dialect of dialects)
    for (const [name, files] of Object.entries(FOLDERS)) writeFiles(path.join(base, dialect, name), files);
  writeFiles(base, { 'file/settled.md': '# Settled\n' });
  for (const entry of fs.readdirSync(base, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) fs.utimesSync(path.join(entry.parentPath, entry.name), AN_HOUR_AGO, AN_HOUR_AGO);
  await sleep(SETTLE_MS);
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe('containedFolder stamps', () => {
  it('stamps a read only when the file was modified and changed more than RACY_MS before it', async () => {
    const folder = containedFolder(path.join(base, 'file'));
    const settled = await folder.readText('settled.md', 1024);
    expect(settled.ok && settled.stamp).toEqual(expect.any(String));
    expect(await folder.stampOf('settled.md')).toBe(settled.ok ? settled.stamp : 'unread');
    writeFiles(path.join(base, 'file'), { 'fresh.md': '# Fresh\n' });
    expect(await folder.readText('fresh.md', 1024)).toMatchObject({ ok: true, stamp: null });
    // An old modification time does not make a file settled: its change time is new.
    const old = new Date(Date.now() - 3_600_000);
    fs.utimesSync(path.join(base, 'file', 'fresh.md'), old, old);
    expect(await folder.readText('fresh.md', 1024)).toMatchObject({ ok: true, stamp: null });
  });

  it('gives another stamp for a rewrite with the same size and times, and none for what is not a file', async () => {
    const dir = path.join(base, 'file');
    const folder = containedFolder(dir);
    const file = path.join(dir, 'settled.md');
    const old = AN_HOUR_AGO;
    const before = await folder.stampOf('settled.md');
    const { size, mtimeNs, ino } = fs.statSync(file, { bigint: true });
    // Past any kernel's coarse clock tick, so the change time moves.
    await sleep(20);
    fs.writeFileSync(file, '# Changed\n');
    fs.utimesSync(file, old, old);
    expect(fs.statSync(file, { bigint: true })).toMatchObject({ size, mtimeNs, ino });
    expect(await folder.stampOf('settled.md')).not.toBe(before);
    fs.mkdirSync(path.join(dir, 'sub'), { recursive: true });
    expect(await folder.stampOf('sub')).toBeNull();
    expect(await folder.stampOf('nowhere.md')).toBeNull();
    expect(await folder.stampOf('../outside.md')).toBeNull();
  });
});

describe.each(dialects)('source stamps on %s', (dialect) => {
  let database: TestDatabase;
  let siteId: string;
  let dir: string;
  const use = (name: string): void => {
    dir = path.join(base, dialect, name);
  };
  const ingest = () => ingestSite(database.storage, siteId, dir);
  const search = async (query: string): Promise<string[]> =>
    (await new SiteSearch(database.storage).search(siteId, query, { limit: 5 })).map((h) => h.pagePath);
  const stampedPaths = async (): Promise<string[]> =>
    (
      await database.storage.db
        .selectFrom('page_stamps')
        .select('path')
        .where('site_id', '=', siteId)
        .orderBy('path')
        .execute()
    ).map((r) => r.path);

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database.drop();
  });
  // A site per test: each test's folder is its own.
  let sites = 0;
  const newSite = async (): Promise<void> => {
    const org = await createOrganization(database.storage, { name: 'o' });
    siteId = (await createSite(database.storage, { organizationId: org.id, domain: `stamps-${sites++}` })).id;
  };

  it('re-ingests an unchanged folder by its stamps, and still sees every kind of change', async () => {
    await newSite();
    use('changes');
    expect((await ingest()).counts).toMatchObject({ added: 3 });
    const again = await ingest();
    expect(again.counts).toMatchObject({ unchanged: 3, updated: 0 });
    expect(again.pagesByStamp).toBe(3);

    // Same size, modification time set back: only the change time tells.
    const b = path.join(dir, 'b.mdx');
    const { size, mtimeNs } = fs.statSync(b, { bigint: true });
    fs.writeFileSync(b, '---\ntitle: Beta\n---\n\nBeta about papayas.\n');
    fs.utimesSync(b, AN_HOUR_AGO, AN_HOUR_AGO);
    expect(fs.statSync(b, { bigint: true })).toMatchObject({ mtimeNs, size });
    const edited = await ingest();
    expect(edited.counts).toMatchObject({ updated: 1, unchanged: 2 });
    expect(edited.pagesByStamp).toBe(2);
    expect(await search('papayas')).toEqual(['b']);

    // A snippet's change reaches the page that imports it. `b`, just written, has no stamp yet.
    fs.writeFileSync(path.join(dir, 'snippets/note.mdx'), 'A note about mangoes.\n');
    const snippet = await ingest();
    expect(snippet.counts).toMatchObject({ updated: 1, unchanged: 2 });
    expect(snippet.pagesByStamp).toBe(1);
    expect(await search('mangoes')).toEqual(['a']);

    // Once settled, the rewritten files are stamped by the next read (`b`'s perhaps by the last run's
    // already, on a slow machine) and skipped by the one after.
    await sleep(SETTLE_MS);
    await ingest();
    const settled = await ingest();
    expect(settled.counts).toMatchObject({ unchanged: 3, updated: 0 });
    expect(settled.pagesByStamp).toBe(3);
  });

  it('reads a page again when another file changes which file its import reaches', async () => {
    await newSite();
    use('imports');
    await ingest();
    expect((await ingest()).pagesByStamp).toBe(1);
    // An import without an extension reaches `.mdx` before `.md`.
    writeFiles(dir, { 'snippets/tip.mdx': 'Tip from MDX about pecans.\n' });
    const result = await ingest();
    expect(result.pagesByStamp).toBe(0);
    expect(result.counts).toMatchObject({ updated: 1 });
    expect(await search('pecans')).toEqual(['a']);
  });

  it('reads a page again when the navigation gives it other labels', async () => {
    await newSite();
    use('labels');
    await ingest();
    // A damaged stamp is no stamp: the page is read, the ingestion does not fail.
    await database.storage.db
      .updateTable('page_stamps')
      .set({ files: '{not json' })
      .where('site_id', '=', siteId)
      .execute();
    const damaged = await ingest();
    expect(damaged.counts).toMatchObject({ unchanged: 1 });
    expect(damaged.pagesByStamp).toBe(0);
    expect((await ingest()).pagesByStamp).toBe(1);
    writeFiles(dir, { 'docs.json': docsJson(['a'], 'v2') });
    const result = await ingest();
    expect(result.pagesByStamp).toBe(0);
    expect(result.counts).toMatchObject({ updated: 1 });
  });

  it('reads a page again when its id now names another file', async () => {
    await newSite();
    use('moved');
    await ingest();
    expect(await search('hazelnuts')).toEqual(['guide']);
    expect((await ingest()).pagesByStamp).toBe(1);
    // The same page id, `guide`, from another folder whose files were all there before.
    writeFiles(dir, { 'mkdocs.yml': 'site_name: Moved\ndocs_dir: two\n' });
    const moved = await ingest();
    expect(moved.pagesByStamp).toBe(0);
    expect(moved.counts).toMatchObject({ updated: 1 });
    expect(await search('almonds')).toEqual(['guide']);
  });

  it('drops a hidden page when the site stops indexing hidden pages, though no page file changed', async () => {
    await newSite();
    use('hidden');
    expect((await ingest()).counts).toMatchObject({ pages: 2 });
    writeFiles(dir, { 'docs.json': JSON.stringify({ name: 'Hidden', navigation: { pages: ['a', 'b'] } }) });
    // The setting is part of every page's hash and stamp: the other page is read and indexed again too.
    const result = await ingest();
    expect(result.counts).toMatchObject({ pages: 1, removed: 1, updated: 1 });
    expect(result.pagesByStamp).toBe(0);
  });

  it('stamps no file modified just before it was read, and drops the stamps of removed pages', async () => {
    await newSite();
    use('fresh');
    // Modified "in an hour": however slow the machine, never settled when read.
    fs.utimesSync(path.join(dir, 'a.mdx'), IN_AN_HOUR, IN_AN_HOUR);
    await ingest();
    const again = await ingest();
    expect(again.counts).toMatchObject({ unchanged: 3 });
    expect(again.pagesByStamp).toBe(2);
    expect(await stampedPaths()).toEqual(['b', 'c']);
    fs.rmSync(path.join(dir, 'c.mdx'));
    writeFiles(dir, { 'docs.json': docsJson(['a', 'b']) });
    expect((await ingest()).counts).toMatchObject({ removed: 1 });
    expect(await stampedPaths()).toEqual(['b']);
  });
});
