import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestSite } from '../ingest/ingest-site.ts';
import { createIngestionJob, finishIngestionJob, markIngestionStarted } from '../ingest/jobs.ts';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite } from '../tenancy/sites.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { type SeedPage, seedSite } from '../testing/seed-site.ts';
import { smallDocs } from '../testing/small-docs.ts';
import { ANALYZER_VERSION, analyzeChunk } from './analyze.ts';
import { ensureStoredIndex } from './build-site-index.ts';
import { decodeIndex, encodeIndex, INDEX_FORMAT, IndexFormatError } from './index-codec.ts';
import { INDEX_PART_BYTES } from './index-parts.ts';
import { buildSearchIndex, searchIndex } from './search-index.ts';
import { SiteSearch } from './site-search.ts';
import { readStoredIndex, storedIndexParts, writeStoredIndex } from './stored-index.ts';
import { readPartsInWorker } from './stored-index-reader.ts';
import type { IndexableChunk } from './types.ts';

const topics = ['keys', 'billing', 'webhooks', 'streaming', 'limits', 'search', 'exports', 'teams'];

/** A site about `topics`, each page saying where it is (`marker`) so results can be traced to it. */
const topicPages = (marker: string, versions: string[] = []): SeedPage[] =>
  topics.map((topic) => ({
    path: `guides/${topic}`,
    title: `${topic} guide`,
    versions,
    chunks: [
      `How to configure ${topic} for your ${marker} workspace. Rotate, limit and export ${topic} settings.`,
      `Troubleshooting ${topic}: errors you may see in the ${marker} workspace and how to fix them.`,
    ],
  }));

const queries = [
  'configure webhooks',
  'rotate keys',
  'billing errors cli',
  'streaming troubleshooting',
  'export teams settings',
  'limts',
  'nothing matches this at all zebra',
];

const chunkOf = (id: number, page: SeedPage, text: string): IndexableChunk => ({
  id,
  pagePath: page.path,
  pageTitle: page.title,
  headings: [],
  text,
  versions: page.versions ?? [],
  languages: page.languages ?? [],
  analyzed: analyzeChunk({ pageTitle: page.title, headings: [], text, language: null }),
});

describe('the serialized index', () => {
  const pages = [
    ...topicPages('alpha', ['v1']),
    ...topicPages('beta', ['v2']).map((p) => ({ ...p, path: `v2/${p.path}` })),
  ];
  let id = 0;
  const chunks = pages.flatMap((p) => p.chunks.map((text) => chunkOf(id++, p, text)));
  const built = buildSearchIndex(chunks);

  it('reads back as views over its bytes, with every array and every ranking identical', () => {
    const bytes = encodeIndex(built);
    const read = decodeIndex(bytes);
    expect(read.words.arrays).toEqual(built.words.arrays);
    expect(read.postings).toEqual(built.postings);
    expect(read.pairs.keys).toEqual(built.pairs.keys);
    expect([...read.chunkPage]).toEqual([...built.chunkPage]);
    expect(read.paths.all()).toEqual(built.paths.all());
    expect(read.pathTitles.all()).toEqual(built.pathTitles.all());
    expect(read.pagePaths.all()).toEqual(built.pagePaths.all());
    expect(read.pageByPath.arrays).toEqual(built.pageByPath.arrays);
    // Views, not copies: the postings live in the serialized bytes.
    expect(read.postings.docs.buffer).toBe(bytes.buffer);
    for (const query of queries)
      for (const options of [
        { limit: 10 },
        { limit: 3, version: 'v2' },
        { limit: 5, currentPath: '/docs/v2/guides/keys' },
      ])
        expect(searchIndex(read, query, options)).toEqual(searchIndex(built, query, options));
  });

  it('is refused when its format is another, or its bytes are cut', () => {
    const bytes = encodeIndex(built);
    const other = bytes.slice();
    new DataView(other.buffer).setUint32(4, INDEX_FORMAT + 1, true);
    expect(() => decodeIndex(other)).toThrow(IndexFormatError);
    expect(() => decodeIndex(bytes.slice(0, bytes.length - 64))).toThrow(IndexFormatError);
    expect(() => decodeIndex(new Uint8Array(8))).toThrow(IndexFormatError);
  });

  it('moves with the analyzer: a stored index holds analyzed terms', () => {
    // A stored index is rebuilt only when its format differs, so an analyzer change (ANALYZER_VERSION)
    // that does not also bump INDEX_FORMAT leaves every site searching terms the queries no longer
    // produce. When this fails, bump INDEX_FORMAT too, then both numbers here.
    expect({ ANALYZER_VERSION, INDEX_FORMAT }).toEqual({ ANALYZER_VERSION: 8, INDEX_FORMAT: 11 });
  });
});

describe.each(dialects)('stored indexes on %s', (dialect) => {
  let database: TestDatabase;
  let organizationId: string;
  const warnings: string[] = [];
  const logger = {
    info: () => {},
    warn: (object: object, message: string) => warnings.push(`${message} ${JSON.stringify(object)}`),
  };

  const newSite = async (domain: string, marker: string): Promise<string> => {
    const site = await createSite(database.storage, { organizationId, domain });
    await seedSite(database.storage, site.id, topicPages(marker));
    return site.id;
  };
  const generationOf = async (siteId: string): Promise<number> =>
    (
      await database.storage.db
        .selectFrom('sites')
        .select('index_generation')
        .where('id', '=', siteId)
        .executeTakeFirstOrThrow()
    ).index_generation;
  const storedRows = (siteId: string) =>
    database.storage.db
      .selectFrom('search_indexes')
      .select(['generation', 'format', 'part', 'parts'])
      .where('site_id', '=', siteId)
      .execute();

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    organizationId = (await createOrganization(database.storage, { name: 'o' })).id;
  });
  afterAll(async () => {
    await database.drop();
  });

  it('builds and stores an index on first use; another process loads it and ranks identically', async () => {
    const siteId = await newSite('first', 'first');
    const builder = new SiteSearch(database.storage, { logger });
    const fromBuild = await builder.search(siteId, 'configure webhooks', { limit: 5 });
    expect(fromBuild[0]?.pagePath).toBe('guides/webhooks');
    expect(fromBuild[0]?.text).toContain('first workspace');
    expect(builder.cacheStats()).toMatchObject({ loads: 1, entries: 1 });
    const generation = await generationOf(siteId);
    expect(await storedRows(siteId)).toEqual([{ generation, format: INDEX_FORMAT, part: 0, parts: 1 }]);

    const loader = new SiteSearch(database.storage, { logger });
    for (const query of queries)
      expect(await loader.search(siteId, query, { limit: 6 })).toEqual(
        await builder.search(siteId, query, { limit: 6 }),
      );
    expect(warnings).toEqual([]);
  });

  it('is stored by each ingestion that changes the site, and loaded, not built, by the first search', async () => {
    const site = await createSite(database.storage, { organizationId, domain: 'ingested' });
    const dir = smallDocs();
    try {
      await ingestSite(database.storage, site.id, dir);
      const [first] = await storedRows(site.id);
      expect(first?.format).toBe(INDEX_FORMAT);
      const loads: object[] = [];
      const search = new SiteSearch(database.storage, {
        logger: {
          warn: () => {},
          info: (object, message) => message === 'search index loaded' && loads.push(object),
        },
      });
      expect((await search.search(site.id, 'rotate an api key', { limit: 1 }))[0]?.pagePath).toBe('keys');
      expect(loads).toMatchObject([{ from: 'stored', generation: first?.generation }]);

      // Unchanged: same generation, nothing built or written.
      await ingestSite(database.storage, site.id, dir);
      expect(await storedRows(site.id)).toEqual([first]);
      // Changed: the new generation's index replaces the old one.
      fs.appendFileSync(path.join(dir, 'billing.mdx'), '\nRefunds take five days.\n');
      await ingestSite(database.storage, site.id, dir);
      const rows = await storedRows(site.id);
      expect(rows).toHaveLength(1);
      expect(rows[0]?.generation).toBeGreaterThan(first?.generation ?? 0);
      expect((await search.search(site.id, 'refunds', { limit: 1 }))[0]?.pagePath).toBe('billing');
      expect(loads).toMatchObject([{ from: 'stored' }, { from: 'stored', generation: rows[0]?.generation }]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('waits for the index an ingestion still running is storing, instead of building it too', async () => {
    // An ingestion publishes its pages (the generation moves), then builds and stores the index: a
    // search in between, on any replica, found no stored index and built the same one itself.
    const siteId = await newSite('awaited', 'awaited');
    const job = await createIngestionJob(database.storage, siteId, '/docs', null);
    await markIngestionStarted(database.storage, job.id);
    const loads: object[] = [];
    const search = new SiteSearch(database.storage, {
      storedIndexPollMs: 10,
      logger: {
        warn: () => {},
        info: (object, message) => message === 'search index loaded' && loads.push(object),
      },
    });
    const searching = search.search(siteId, 'configure webhooks', { limit: 5 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(loads).toEqual([]);
    expect(await storedRows(siteId)).toEqual([]);
    // The ingestion stores its index, then finishes.
    expect(await ensureStoredIndex(database.storage, siteId)).toBeNull();
    const hits = await searching;
    await finishIngestionJob(database.storage, job.id, { status: 'success', counts: null, warnings: [] });
    expect(hits[0]?.pagePath).toBe('guides/webhooks');
    expect(loads).toMatchObject([{ from: 'stored', generation: await generationOf(siteId) }]);
  });

  it('builds the index itself when the ingestion ends without storing one, or after the longest wait', async () => {
    const siteId = await newSite('unstored', 'unstored');
    const job = await createIngestionJob(database.storage, siteId, '/docs', null);
    const loads: object[] = [];
    const logger = {
      warn: () => {},
      info: (object: object, message: string) => message === 'search index loaded' && loads.push(object),
    };
    const waiting = new SiteSearch(database.storage, { storedIndexPollMs: 10, logger });
    const searching = waiting.search(siteId, 'configure webhooks', { limit: 5 });
    await new Promise((resolve) => setTimeout(resolve, 60));
    await finishIngestionJob(database.storage, job.id, {
      status: 'failure',
      counts: null,
      warnings: [],
      error: 'x',
    });
    expect((await searching)[0]?.pagePath).toBe('guides/webhooks');
    expect(loads).toMatchObject([{ from: 'built' }]);

    // An ingestion that stays queued (of a site whose index is missing for another reason) holds a
    // search at most the longest wait.
    const other = await newSite('stuck', 'stuck');
    await createIngestionJob(database.storage, other, '/docs', null);
    const bounded = new SiteSearch(database.storage, {
      storedIndexPollMs: 10,
      storedIndexWaitMs: 80,
      logger,
    });
    const started = performance.now();
    expect((await bounded.search(other, 'configure webhooks', { limit: 5 }))[0]?.pagePath).toBe(
      'guides/webhooks',
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(70);
    expect(loads).toMatchObject([{ from: 'built' }, { from: 'built' }]);
  });

  it('rebuilds, with a warning, an index of another format; and ignores another generation', async () => {
    const siteId = await newSite('formats', 'formats');
    const expected = await new SiteSearch(database.storage).search(siteId, 'rotate keys', { limit: 4 });
    await database.storage.db
      .updateTable('search_indexes')
      .set({ format: INDEX_FORMAT + 1 })
      .where('site_id', '=', siteId)
      .execute();
    warnings.length = 0;
    expect(
      await new SiteSearch(database.storage, { logger }).search(siteId, 'rotate keys', { limit: 4 }),
    ).toEqual(expected);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('stored search index unusable');
    expect(warnings[0]).toContain('"reason":"format"');
    // Replaced by this version's: the next process loads it without a warning.
    expect((await storedRows(siteId)).every((r) => r.format === INDEX_FORMAT)).toBe(true);
    await new SiteSearch(database.storage, { logger }).search(siteId, 'rotate keys', { limit: 4 });
    expect(warnings).toHaveLength(1);

    // An ingestion moved the generation: the stored index is another site version's, and not used.
    await seedSite(database.storage, siteId, topicPages('moved'));
    const moved = await new SiteSearch(database.storage, { logger }).search(siteId, 'rotate keys', {
      limit: 4,
    });
    expect(moved[0]?.text).toContain('moved workspace');
    const rows = await storedRows(siteId);
    expect(new Set(rows.map((r) => r.generation)).size).toBe(1);
    expect(rows.every((r) => r.format === INDEX_FORMAT)).toBe(true);
    expect(warnings).toHaveLength(1);
  });

  it('publishes a written index by its part 0, written last; before that it reads as missing', async () => {
    const siteId = await newSite('halfway', 'halfway');
    const g = await generationOf(siteId);
    // Five megabytes in three pieces: three parts, whose bounds fall inside pieces.
    const pieces = [1_000_000, 3_500_000, 742_861].map((n, i) => new Uint8Array(n).fill(i + 1));
    const whole = Buffer.concat(pieces);
    expect(await writeStoredIndex(database.storage, siteId, g, pieces)).toBe(true);
    const stored = await storedIndexParts(database.storage, siteId, g);
    expect(stored).toEqual({
      parts: [
        { part: 0, size: INDEX_PART_BYTES },
        { part: 1, size: INDEX_PART_BYTES },
        { part: 2, size: whole.length - 2 * INDEX_PART_BYTES },
      ],
    });
    const rows = await database.storage.db
      .selectFrom('search_indexes')
      .select('data')
      .where('site_id', '=', siteId)
      .orderBy('part')
      .execute();
    expect(Buffer.concat(rows.map((r) => r.data)).equals(whole)).toBe(true);

    // As a write that died before its last step leaves it: parts 1 and 2, no part 0.
    await database.storage.db
      .deleteFrom('search_indexes')
      .where('site_id', '=', siteId)
      .where('part', '=', 0)
      .execute();
    expect(await storedIndexParts(database.storage, siteId, g)).toEqual({ unusable: 'missing' });
    expect(await writeStoredIndex(database.storage, siteId, g, pieces)).toBe(true);
    expect(await storedIndexParts(database.storage, siteId, g)).toEqual(stored);

    // A new generation's index replaces this one's parts; an older generation's write stores nothing.
    await seedSite(database.storage, siteId, topicPages('halfway-2'));
    const next = await generationOf(siteId);
    expect(await writeStoredIndex(database.storage, siteId, g, pieces)).toBe(false);
    expect(await writeStoredIndex(database.storage, siteId, next, [new Uint8Array(10)])).toBe(true);
    expect(await storedRows(siteId)).toEqual([{ generation: next, format: INDEX_FORMAT, part: 0, parts: 1 }]);
  });

  it('keeps answers right under a tiny cache budget: evicts, reloads, and shares concurrent loads', async () => {
    const sites = await Promise.all(['red', 'green', 'blue'].map((m) => newSite(`tiny-${m}`, m)));
    const search = new SiteSearch(database.storage, { cacheBytes: 1, logger });
    const markers = ['red', 'green', 'blue'];
    for (let round = 0; round < 2; round++)
      for (const [i, siteId] of sites.entries()) {
        const results = await search.search(siteId, 'export settings', { limit: 4 });
        expect(results.length).toBeGreaterThan(0);
        for (const r of results) expect(r.text).toContain(`${markers[i]} workspace`);
      }
    const stats = search.cacheStats();
    expect(stats.entries).toBe(1);
    expect(stats.loads).toBe(6);
    expect(stats.misses).toBe(6);
    expect(stats.evictions).toBe(5);

    const fresh = new SiteSearch(database.storage);
    const [siteId] = sites;
    if (!siteId) throw new Error('no site');
    await Promise.all(Array.from({ length: 5 }, () => fresh.search(siteId, 'billing', { limit: 2 })));
    expect(fresh.cacheStats().loads).toBe(1);
  });
});

describe('stored indexes in a SQLite file', () => {
  let database: TestDatabase;
  let organizationId: string;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    organizationId = (await createOrganization(database.storage, { name: 'o' })).id;
  });
  afterAll(async () => {
    await database.drop();
  });

  it('reads a SQLite file in a worker thread: the stored bytes, or why not', async () => {
    const site = await createSite(database.storage, { organizationId, domain: 'worker-read' });
    await seedSite(database.storage, site.id, topicPages('worker'));
    const siteId = site.id;
    await new SiteSearch(database.storage).search(siteId, 'rotate keys', { limit: 1 });
    const rows = await database.storage.db
      .selectFrom('search_indexes')
      .select(['generation', 'data'])
      .where('site_id', '=', siteId)
      .orderBy('part')
      .execute();
    const [first] = rows;
    const file = database.storage.sqlite?.name;
    if (!first || !file) throw new Error('no stored index or no file');
    const sizes = rows.map((r) => r.data.byteLength);
    const read = await readPartsInWorker({ file, siteId, generation: first.generation, sizes });
    expect('bytes' in read && Buffer.from(read.bytes).equals(Buffer.concat(rows.map((r) => r.data)))).toBe(
      true,
    );
    expect(
      await readPartsInWorker({
        file,
        siteId,
        generation: first.generation,
        sizes: sizes.map((n) => n + 1),
      }),
    ).toEqual({ damaged: 'part 0 changed' });
    // readStoredIndex takes the worker from a size on; both ways read the same bytes.
    const byWorker = await readStoredIndex(database.storage, siteId, first.generation, {
      workerFromBytes: 0,
    });
    const inline = await readStoredIndex(database.storage, siteId, first.generation, {
      workerFromBytes: Number.POSITIVE_INFINITY,
    });
    expect('bytes' in byWorker && 'bytes' in inline && Buffer.from(byWorker.bytes).equals(inline.bytes)).toBe(
      true,
    );
  });
});
