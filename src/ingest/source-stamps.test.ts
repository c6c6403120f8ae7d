import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SiteSearch } from '../search/site-search.ts';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite } from '../tenancy/sites.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { containedFolder, RACY_MS } from './contained-file.ts';
import { ingestSite } from './ingest-site.ts';

/**
 * One time, an hour ago: files modified before RACY_MS get stamps when read. Always the same, so that a
 * file written and set back to it has every time as before but its change time.
 */
const PAST = new Date(Date.now() - 3_600_000);

/** Sets every file's (or only `files`') access and modification times to PAST. */
const settle = (dir: string, files?: string[]): void => {
  const past = PAST;
  const all = fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
  for (const file of files ?? all) fs.utimesSync(path.join(dir, file), past, past);
};

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

describe('containedFolder stamps', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-stamp-file-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('stamps a read only when the file was last modified more than RACY_MS before it', async () => {
    writeFiles(dir, { 'a.md': '# A\n' });
    const folder = containedFolder(dir);
    const fresh = await folder.readText('a.md', 1024);
    expect(fresh).toMatchObject({ ok: true, stamp: null });
    const old = new Date(Date.now() - RACY_MS - 1_000);
    fs.utimesSync(path.join(dir, 'a.md'), old, old);
    const settled = await folder.readText('a.md', 1024);
    expect(settled.ok && settled.stamp).toEqual(expect.any(String));
    expect(await folder.stampOf('a.md')).toBe(settled.ok ? settled.stamp : 'unread');
  });

  it('gives another stamp for the same size and times written back, and none for what is not a file', async () => {
    const old = new Date(Date.now() - 3_600_000);
    writeFiles(dir, { 'b.md': 'one\n' });
    fs.utimesSync(path.join(dir, 'b.md'), old, old);
    const folder = containedFolder(dir);
    const before = await folder.stampOf('b.md');
    const times = () => fs.statSync(path.join(dir, 'b.md'), { bigint: true });
    const { size, mtimeNs, ino } = times();
    fs.writeFileSync(path.join(dir, 'b.md'), 'two\n');
    fs.utimesSync(path.join(dir, 'b.md'), old, old);
    expect(times()).toMatchObject({ size, mtimeNs, ino });
    expect(await folder.stampOf('b.md')).not.toBe(before);
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
  const ingest = () => ingestSite(database.storage, siteId, dir);
  const search = async (query: string): Promise<string[]> =>
    (await new SiteSearch(database.storage).search(siteId, query, { limit: 5 })).map((h) => h.pagePath);

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const org = await createOrganization(database.storage, { name: 'o' });
    siteId = (await createSite(database.storage, { organizationId: org.id, domain: 'stamps' })).id;
  });
  afterAll(async () => {
    await database.drop();
  });
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-stamps-'));
    return () => fs.rmSync(dir, { recursive: true, force: true });
  });

  it('re-ingests an unchanged folder by its stamps, and still sees every kind of change', async () => {
    writeFiles(dir, {
      'docs.json': docsJson(['a', 'b', 'c']),
      'a.mdx':
        "---\ntitle: Alpha\n---\n\nimport Note from '/snippets/note.mdx';\n\nAlpha about apples.\n\n<Note />\n",
      'b.mdx': '---\ntitle: Beta\n---\n\nBeta about bananas.\n',
      'c.mdx': '---\ntitle: Gamma\n---\n\nGamma about cherries.\n',
      'snippets/note.mdx': 'A note about kiwis.\n',
    });
    settle(dir);
    expect((await ingest()).counts).toMatchObject({ added: 3 });
    const again = await ingest();
    expect(again.counts).toMatchObject({ unchanged: 3, updated: 0 });
    expect(again.pagesByStamp).toBe(3);

    // Same size, times set back: only the change time tells.
    fs.writeFileSync(path.join(dir, 'b.mdx'), '---\ntitle: Beta\n---\n\nBeta about papayas.\n');
    settle(dir, ['b.mdx']);
    const edited = await ingest();
    expect(edited.counts).toMatchObject({ updated: 1, unchanged: 2 });
    expect(edited.pagesByStamp).toBe(2);
    expect(await search('papayas')).toEqual(['b']);

    // A snippet's change reaches the page that imports it.
    fs.writeFileSync(path.join(dir, 'snippets/note.mdx'), 'A note about mangoes.\n');
    settle(dir, ['snippets/note.mdx']);
    const snippet = await ingest();
    expect(snippet.counts).toMatchObject({ updated: 1, unchanged: 2 });
    expect(snippet.pagesByStamp).toBe(2);
    expect(await search('mangoes')).toEqual(['a']);

    // Touched (times set to the same, the change time moves) but unchanged: read and hashed once, found
    // unchanged, stamped again.
    settle(dir);
    const touched = await ingest();
    expect(touched.counts).toMatchObject({ unchanged: 3, updated: 0 });
    expect(touched.pagesByStamp).toBe(0);
    expect((await ingest()).pagesByStamp).toBe(3);
  });

  it('reads a page again when another file changes which file its import reaches', async () => {
    writeFiles(dir, {
      'docs.json': docsJson(['a']),
      'a.mdx': "import Tip from '/snippets/tip';\n\n# Alpha\n\nAlpha text.\n\n<Tip />\n",
      'snippets/tip.md': 'Tip from markdown about walnuts.\n',
    });
    settle(dir);
    await ingest();
    expect((await ingest()).pagesByStamp).toBe(1);
    // An import without an extension reaches `.mdx` before `.md`.
    writeFiles(dir, { 'snippets/tip.mdx': 'Tip from MDX about pecans.\n' });
    settle(dir, ['snippets/tip.mdx']);
    const result = await ingest();
    expect(result.pagesByStamp).toBe(0);
    expect(result.counts).toMatchObject({ updated: 1 });
    expect(await search('pecans')).toEqual(['a']);
  });

  it('reads a page again when the navigation gives it other labels', async () => {
    writeFiles(dir, { 'docs.json': docsJson(['a']), 'a.mdx': '# Alpha\n\nAlpha text.\n' });
    settle(dir);
    await ingest();
    writeFiles(dir, { 'docs.json': docsJson(['a'], 'v2') });
    settle(dir, ['docs.json']);
    const result = await ingest();
    expect(result.pagesByStamp).toBe(0);
    expect(result.counts).toMatchObject({ updated: 1 });
  });

  it('stamps no file modified just before it was read, and drops the stamps of removed pages', async () => {
    writeFiles(dir, {
      'docs.json': docsJson(['a', 'b']),
      'a.mdx': '# Alpha\n\nAlpha text.\n',
      'b.mdx': '# Beta\n\nBeta text.\n',
    });
    await ingest();
    // Fresh files: known unchanged by their hashes, never by stamps, until they have settled.
    expect((await ingest()).pagesByStamp).toBe(0);
    settle(dir);
    await ingest();
    expect((await ingest()).pagesByStamp).toBe(2);
    const stamps = () =>
      database.storage.db.selectFrom('page_stamps').select('path').where('site_id', '=', siteId).execute();
    expect((await stamps()).map((r) => r.path).sort()).toEqual(['a', 'b']);
    fs.rmSync(path.join(dir, 'b.mdx'));
    writeFiles(dir, { 'docs.json': docsJson(['a']) });
    settle(dir, ['docs.json']);
    expect((await ingest()).counts).toMatchObject({ removed: 1 });
    expect((await stamps()).map((r) => r.path)).toEqual(['a']);
  });
});
