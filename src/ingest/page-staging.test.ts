import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../storage/database.ts';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite } from '../tenancy/sites.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { ingestSite } from './ingest-site.ts';
import {
  createIngestionJob,
  finishIngestionJob,
  getIngestionJob,
  listIngestionJobs,
  markIngestionStarted,
} from './jobs.ts';
import { loadDocsFolder, PAGES_IN_FLIGHT, streamDocsFolder } from './load-docs-folder.ts';
import {
  clearStagedPages,
  type IncomingPage,
  navGroupOf,
  PageStager,
  PUBLISH_BATCH_PAGES,
  publishStagedPages,
  STAGE_BATCH_PAGES,
  storedHash,
} from './page-staging.ts';
import { recoverInterruptedIngestions } from './recover-interrupted-ingestions.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A plain folder of `count` distinct pages (`p0` … ), each with two sections. */
const generatedSite = (count: number, word = 'widget'): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-staging-'));
  dirs.push(dir);
  for (let i = 0; i < count; i++)
    fs.writeFileSync(
      path.join(dir, `p${i}.md`),
      `# Page ${i}\n\nThe ${word} number ${i} does one thing.\n\n## Setup ${i}\n\nInstall ${word} ${i} first.\n`,
    );
  return dir;
};

const stagedCounts = async (storage: Storage, jobId?: string) => {
  const count = async (table: 'ingestion_staged_pages' | 'ingestion_staged_chunks') => {
    let query = storage.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n'));
    if (jobId !== undefined) query = query.where('job_id', '=', jobId);
    return Number((await query.executeTakeFirstOrThrow()).n);
  };
  return { pages: await count('ingestion_staged_pages'), chunks: await count('ingestion_staged_chunks') };
};

describe.each(dialects)('ingestion staging on %s', (dialect) => {
  let database: TestDatabase;
  let organizationId: string;
  let sites = 0;
  const newSite = async () =>
    (await createSite(database.storage, { organizationId, domain: `staging-${dialect}-${sites++}` })).id;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    organizationId = (await createOrganization(database.storage, { name: 'staging' })).id;
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('writes pages while the loader is still parsing, never holding more than the window', async () => {
    const { storage } = database;
    const total = 300;
    const dir = generatedSite(total);
    const siteId = await newSite();
    const job = await createIngestionJob(storage, siteId, dir, null);
    const stager = new PageStager(storage, job.id, '2026-01-01T00:00:00.000Z');
    let loaded = 0;
    let handedOn = 0;
    /** Pages loaded when each staging transaction after the first page batch had been written. */
    const loadedAtBatch: number[] = [];
    const site = await streamDocsFolder(
      dir,
      {
        analyze: true,
        onProgress: (done) => {
          loaded = done;
        },
      },
      async (page) => {
        // Pages loaded but not yet handed on: at most the window, however large the site.
        expect(loaded - handedOn).toBeLessThanOrEqual(PAGES_IN_FLIGHT);
        handedOn++;
        const before = stager.batches;
        await stager.add(page);
        if (stager.batches > before) loadedAtBatch.push(loaded);
      },
    );
    await stager.flush();
    expect(site.pages).toBe(total);
    // The first batch was written once STAGE_BATCH_PAGES pages were handed on, while at most the window
    // more had been loaded: far from the whole site.
    expect(loadedAtBatch.length).toBeGreaterThanOrEqual(Math.floor(total / STAGE_BATCH_PAGES));
    expect(loadedAtBatch[0]).toBeLessThanOrEqual(STAGE_BATCH_PAGES + PAGES_IN_FLIGHT);
    expect(loadedAtBatch[0]).toBeLessThan(total);
    expect(await stagedCounts(storage, job.id)).toEqual({ pages: total, chunks: 2 * total });
    // Nothing is published by staging.
    const published = await storage.db
      .selectFrom('pages')
      .select('path')
      .where('site_id', '=', siteId)
      .execute();
    expect(published).toEqual([]);
    await clearStagedPages(storage, job.id);
    expect(await stagedCounts(storage, job.id)).toEqual({ pages: 0, chunks: 0 });
  });

  it('stores copies of one page with the content parsing each gives, and clears staging afterwards', async () => {
    const { storage } = database;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-staging-copies-'));
    dirs.push(dir);
    const body = (n: number) =>
      `---\ntitle: Setup\ndescription: How to set up.\n---\n\nimport Note from './snippets/note.mdx';\n\nRun the installer. <Note />\n\n## Step ${n}\n\nThen configure it.\n`;
    for (const copy of ['v1', 'v2', 'v3']) {
      fs.mkdirSync(path.join(dir, copy, 'snippets'), { recursive: true });
      fs.writeFileSync(path.join(dir, copy, 'setup.mdx'), body(copy === 'v3' ? 3 : 1));
      fs.writeFileSync(path.join(dir, copy, 'snippets', 'note.mdx'), 'Mind the **gadget**.\n');
    }
    const siteId = await newSite();
    const result = await ingestSite(storage, siteId, dir);
    expect(result.sharedParses).toBe(1);
    expect(result.counts).toMatchObject({ pages: 3, added: 3, chunksWritten: 6 });

    const stored = await storage.db
      .selectFrom('pages')
      .innerJoin('chunks', (join) =>
        join.onRef('chunks.site_id', '=', 'pages.site_id').onRef('chunks.page_path', '=', 'pages.path'),
      )
      .select([
        'pages.path',
        'pages.title',
        'pages.description',
        'pages.versions',
        'pages.languages',
        'pages.content_hash',
        'chunks.ord',
        'chunks.anchor',
        'chunks.headings',
        'chunks.text',
        'chunks.analyzed',
      ])
      .where('pages.site_id', '=', siteId)
      .orderBy('pages.path')
      .orderBy('chunks.ord')
      .execute();
    // What parsing every page on its own gives, row for row.
    const alone = await loadDocsFolder(dir, { analyze: true, shareParses: false });
    const expected = alone.pages
      .flatMap((page) =>
        page.chunks.map((chunk, ord) => ({
          path: page.path,
          title: page.title,
          description: page.description,
          versions: JSON.stringify(page.versions),
          languages: JSON.stringify(page.languages),
          ord,
          anchor: chunk.anchor,
          headings: JSON.stringify(chunk.headings),
          text: chunk.text,
          analyzed: chunk.analyzedJson,
        })),
      )
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.ord - b.ord));
    expect(stored.map(({ content_hash: _hash, ...row }) => row)).toEqual(expected);
    expect(new Set(stored.map((row) => row.content_hash)).size).toBe(3);
    expect(await stagedCounts(storage)).toMatchObject({ pages: 0 });

    // Unchanged: nothing parsed, nothing staged or written.
    const again = await ingestSite(storage, siteId, dir);
    expect(again.counts).toMatchObject({ unchanged: 3, added: 0, updated: 0, chunksWritten: 0 });
    // One copy changed: only it is written.
    fs.writeFileSync(path.join(dir, 'v2', 'setup.mdx'), body(2));
    const changed = await ingestSite(storage, siteId, dir);
    expect(changed.counts).toMatchObject({ unchanged: 2, updated: 1, chunksWritten: 2 });
    expect(await stagedCounts(storage)).toEqual({ pages: 0, chunks: 0 });
  });

  it('publishes and clears a large site a few hundred pages per statement, the event loop turning between them', async () => {
    const { storage } = database;
    const total = 2 * PUBLISH_BATCH_PAGES + 88;
    const dir = generatedSite(total, 'gadget');
    const siteId = await newSite();
    const job = await createIngestionJob(storage, siteId, dir, null);
    const stager = new PageStager(storage, job.id, '2026-01-01T00:00:00.000Z');
    const incoming = new Map<string, IncomingPage>();
    await streamDocsFolder(dir, { analyze: true }, async (page) => {
      incoming.set(page.path, {
        hash: storedHash(page),
        navOrder: page.navOrder,
        navGroup: navGroupOf(page),
        reused: false,
      });
      await stager.add(page);
    });
    await stager.flush();
    /** Turns of the event loop while `work` runs (SQLite runs statements synchronously: none unless it yields). */
    const turnsDuring = async <T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> => {
      let turns = 0;
      let counting = true;
      const tick = (): void => {
        if (!counting) return;
        turns++;
        setImmediate(tick);
      };
      setImmediate(tick);
      const result = await work();
      counting = false;
      return { result, turns };
    };
    const published = await turnsDuring(() => publishStagedPages(storage, siteId, job.id, incoming));
    expect(published.result).toMatchObject({ added: total, chunksWritten: 2 * total });
    // Three batches of pages: the loop turned between them.
    expect(published.turns).toBeGreaterThanOrEqual(2);
    const stored = await storage.db
      .selectFrom('chunks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('site_id', '=', siteId)
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(2 * total);
    const cleared = await turnsDuring(() => clearStagedPages(storage, job.id));
    expect(cleared.turns).toBeGreaterThanOrEqual(2);
    expect(await stagedCounts(storage, job.id)).toEqual({ pages: 0, chunks: 0 });
  });

  it('clears the staged pages of a job that fails, and the site keeps what it had', async () => {
    const { storage } = database;
    const siteId = await newSite();
    await ingestSite(storage, siteId, generatedSite(5, 'gadget'));
    const dir = generatedSite(200, 'sprocket');
    let failedAfter = 0;
    await expect(
      ingestSite(storage, siteId, dir, {
        onProgress: (done, total) => {
          // Late enough that batches were staged before it.
          if (done === total - 1) {
            failedAfter = done;
            throw new Error('progress display failed');
          }
        },
      }),
    ).rejects.toThrow('progress display failed');
    expect(failedAfter).toBe(199);
    const [job] = await listIngestionJobs(storage, siteId, 1);
    expect(job?.status).toBe('failure');
    expect(await stagedCounts(storage, job?.id)).toEqual({ pages: 0, chunks: 0 });
    const pages = await storage.db.selectFrom('pages').select('path').where('site_id', '=', siteId).execute();
    expect(pages.map((p) => p.path).sort()).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
  });

  it('leaves a crashed job’s staged pages to recovery, which clears those of ended jobs only', async () => {
    const { storage } = database;
    const siteId = await newSite();
    const stage = async (jobId: string) => {
      const stager = new PageStager(storage, jobId, '2026-01-01T00:00:00.000Z');
      const site = await loadDocsFolder(generatedSite(3), { analyze: true });
      for (const page of site.pages) await stager.add(page);
      await stager.flush();
    };
    const crashed = await createIngestionJob(storage, siteId, '/docs', 'ins_gone');
    await markIngestionStarted(storage, crashed.id);
    const running = await createIngestionJob(storage, siteId, '/docs', null);
    await markIngestionStarted(storage, running.id);
    const failed = await createIngestionJob(storage, siteId, '/docs', null);
    await finishIngestionJob(storage, failed.id, {
      status: 'failure',
      counts: null,
      warnings: [],
      error: 'x',
    });
    for (const job of [crashed, running, failed]) await stage(job.id);

    // The crashed job's process is gone: recovery marks it failed and clears its rows, and the failed
    // job's; the running job (no instance, nobody to blame) keeps its own.
    await recoverInterruptedIngestions(storage, []);
    expect((await getIngestionJob(storage, crashed.id))?.status).toBe('failure');
    expect(await stagedCounts(storage, crashed.id)).toEqual({ pages: 0, chunks: 0 });
    expect(await stagedCounts(storage, failed.id)).toEqual({ pages: 0, chunks: 0 });
    expect(await stagedCounts(storage, running.id)).toEqual({ pages: 3, chunks: 6 });
    await clearStagedPages(storage, running.id);
  });
});
