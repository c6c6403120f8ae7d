import { ensureStoredIndex } from '../search/build-site-index.ts';
import { embedSiteChunks } from '../search/embeddings/embed-chunks.ts';
import type { EmbeddingModel } from '../search/embeddings/embedding-model.ts';
import type { Storage } from '../storage/database.ts';
import { nowIso } from '../storage/ids.ts';
import {
  createIngestionJob,
  failIngestionJob,
  finishIngestionJob,
  type IngestionCounts,
  type IngestionJob,
  markIngestionStarted,
} from './jobs.ts';
import { streamDocsFolder } from './load-docs-folder.ts';
import {
  clearStagedPages,
  type IncomingPage,
  navGroupOf,
  PageStager,
  publishStagedPages,
  STORED_HASH_PREFIX,
  storedHash,
  storedPages,
  WARNED_HASH_SUFFIX,
} from './page-staging.ts';
import { pinDocsFolder } from './pinned-folder.ts';
import { readPageStamps, type StoredStamp, writePageStamps } from './source-stamps.ts';
import type { LoadProgress, Warning } from './types.ts';

export interface IngestOptions {
  onProgress?: LoadProgress;
  /**
   * The registered process running it (src/recovery/instance-lifecycle.ts), recorded on the job so a
   * live process marks it failed should this one die; absent: recorded without one.
   */
  instanceId?: string;
  /**
   * Computes chunk vectors for semantic retrieval once the pages are written (`DOCENT_EMBEDDINGS`);
   * absent or null: none. A failure there is a warning, never a failed ingestion.
   */
  embeddings?: EmbeddingModel | null;
  /** Identical pages share one parse (duplicate-pages.ts; the default); false parses every page. */
  shareParses?: boolean;
  /**
   * Let a folder with no pages remove every stored page of the site. Off by default: a mistyped or
   * emptied folder would otherwise wipe a site without a word (EmptyDocsFolderError instead).
   */
  allowEmpty?: boolean;
  /** How messages name what was ingested; the folder's path by default (a git clone's is the server's). */
  sourceName?: string;
  /**
   * A tenant's folder (an API caller's, under DOCENT_DOCS_ROOT): the organization's folder it must still
   * be in when the job begins; it is then read through a pinned handle (pinned-folder.ts).
   */
  within?: string | null;
  /** Warnings about the source that reading the folder cannot see (a git submodule left empty), listed first. */
  sourceWarnings?: Warning[];
}

/** The folder has no pages, and ingesting it would remove every page the site has. */
export class EmptyDocsFolderError extends Error {
  override name = 'EmptyDocsFolderError';
}

export interface IngestionResult {
  job: IngestionJob;
  counts: IngestionCounts;
  warnings: Warning[];
  /** Pages that took an identical page's parse instead of being parsed (not stored with the job). */
  sharedParses?: number;
  /** Pages known unchanged by their files' stamps, without reading them (source-stamps.ts). */
  pagesByStamp?: number;
  /** The docs' own name for the site (docs.json `name`, `site_name`, a Docusaurus `title`), if any. */
  docsName?: string | null;
}

/**
 * Creates a job for the site and runs it to completion. Pages stream from the parser to staging tables
 * in small transactions; one last transaction publishes every changed page plus the generation bump,
 * so a search sees the old site or the new one, never a mix (page-staging.ts).
 */
export async function ingestSite(
  storage: Storage,
  siteId: string,
  dir: string,
  options: IngestOptions = {},
): Promise<IngestionResult> {
  const job = await createIngestionJob(storage, siteId, dir, options.instanceId ?? null);
  return runIngestionJob(storage, job, options);
}

/**
 * Runs a job in memory that does not grow with the site's content: the loader hands on pages one by
 * one (at most PAGES_IN_FLIGHT are being parsed or waiting), the stager writes them to the staging
 * tables a few dozen at a time, and what stays behind per page is a small record (hash and navigation
 * place) for the final diff. Pages the loader reuses unchanged are never parsed nor staged.
 */
export async function runIngestionJob(
  storage: Storage,
  job: IngestionJob,
  options: IngestOptions = {},
): Promise<IngestionResult> {
  await markIngestionStarted(storage, job.id);
  try {
    const { known, storedCount } = await loaderHashes(storage, job.siteId);
    const stamps = await readPageStamps(storage, job.siteId, known);
    const stager = new PageStager(storage, job.id, nowIso());
    // Every page handed on, by id, for the final diff: a few hundred bytes each, never its content.
    const incoming = new Map<string, IncomingPage>();
    // New source stamps, by page id, with the stored hash each vouches for (a hundred bytes a page).
    const stamped = new Map<string, StoredStamp>();
    const folder = options.within ? await pinDocsFolder(job.sourceDir, options.within) : null;
    const loaded = await streamDocsFolder(
      folder?.path ?? job.sourceDir,
      {
        known,
        stamps,
        analyze: true,
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        ...(options.shareParses === undefined ? {} : { shareParses: options.shareParses }),
      },
      async (page) => {
        incoming.set(page.path, {
          hash: storedHash(page),
          navOrder: page.navOrder,
          navGroup: navGroupOf(page),
          reused: page.reused === true,
        });
        // Only with the hash the page is stored under: a file changed between the reads of the
        // triage and of the parser leaves the stamp vouching for a hash the page does not have.
        if (page.stamped && page.stamped.contentHash === page.contentHash)
          stamped.set(page.path, {
            stamp: page.stamped.stamp,
            files: page.stamped.files,
            hash: storedHash(page),
          });
        if (!page.reused) await stager.add(page);
      },
    ).finally(() => folder?.close().catch(() => {}));
    await stager.flush();
    if (incoming.size === 0 && storedCount > 0 && options.allowEmpty !== true)
      throw new EmptyDocsFolderError(
        `${options.sourceName ?? job.sourceDir} has no pages to index: ingesting it would remove ${storedCount === 1 ? 'the one page' : `all ${storedCount} pages`} of the site. Check the folder; to empty the site on purpose, ingest it with the CLI (docent ingest --allow-empty; the admin API has no such option)`,
      );
    const counts = await publishStagedPages(storage, job.siteId, job.id, incoming);
    incoming.clear();
    await clearStagedPages(storage, job.id);
    // A hint, never data: should the write fail, the next ingestion reads those pages again.
    const siteChanged = counts.added + counts.updated + counts.removed > 0;
    await writePageStamps(storage, job.siteId, stamped, stamps, siteChanged).catch(() => {});
    // Not part of the index (no generation bump): the next answer's system prompt reads it.
    await storage.db
      .updateTable('sites')
      .set({ repository_instructions: loaded.assistantInstructions?.text ?? null })
      .where('id', '=', job.siteId)
      .execute();
    const warnings = [...(options.sourceWarnings ?? []), ...loaded.warnings];
    if (options.embeddings) {
      const embedding = await embedSiteChunks(storage, job.siteId, options.embeddings);
      if (embedding.error !== null)
        warnings.push({
          file: '(embeddings)',
          message: `${embedding.missing} chunks have no ${options.embeddings.id} vector yet (${embedding.error}); they are found by their words alone until the next ingestion computes them`,
        });
    }
    // After the vectors, whose write moves the generation again: the index is stored for the final one.
    const indexFailure = await ensureStoredIndex(storage, job.siteId);
    if (indexFailure !== null)
      warnings.push({
        file: '(search index)',
        message: `the search index was not stored (${indexFailure}); the first search builds it`,
      });
    counts.skipped = loaded.skipped;
    counts.warnings = warnings.length;
    await finishIngestionJob(storage, job.id, { status: 'success', counts, warnings });
    return {
      job: { ...job, status: 'success' },
      counts,
      warnings,
      sharedParses: loaded.sharedParses,
      pagesByStamp: loaded.pagesByStamp,
      docsName: loaded.navigation.name?.trim() || null,
    };
  } catch (error) {
    // The staged rows of a failed job are of no use; should this fail too, the next recovery pass
    // (recover-interrupted-ingestions.ts) clears them once the job is recorded as ended.
    await clearStagedPages(storage, job.id).catch(() => {});
    await failIngestionJob(storage, job.id, error);
    throw error;
  }
}

/**
 * The loader's hashes of the pages stored under the current analyzer (the ones it may skip parsing), and
 * how many pages the site has.
 */
async function loaderHashes(
  storage: Storage,
  siteId: string,
): Promise<{ known: Record<string, string>; storedCount: number }> {
  const stored = await storedPages(storage.db, siteId);
  // No prototype: page paths such as `__proto__` or `constructor` are keys like any other.
  const known: Record<string, string> = Object.create(null);
  for (const [path, { hash }] of stored) {
    // A page that warned is parsed again: reusing it would drop its warnings from the job.
    if (hash.startsWith(STORED_HASH_PREFIX) && !hash.endsWith(WARNED_HASH_SUFFIX))
      known[path] = hash.slice(STORED_HASH_PREFIX.length);
  }
  return { known, storedCount: stored.size };
}
