import { sql, type Transaction } from 'kysely';
import { ANALYZER_VERSION, analyzeChunk } from '../search/analyze.ts';
import { embedSiteChunks } from '../search/embeddings/embed-chunks.ts';
import type { EmbeddingModel } from '../search/embeddings/embedding-model.ts';
import type { Storage } from '../storage/database.ts';
import { nowIso } from '../storage/ids.ts';
import type { ChunksTable, Database, PagesTable } from '../storage/schema.ts';
import {
  createIngestionJob,
  failIngestionJob,
  finishIngestionJob,
  type IngestionCounts,
  type IngestionJob,
  markIngestionStarted,
} from './jobs.ts';
import { loadDocsFolder } from './load-docs-folder.ts';
import type { LoadProgress, ParsedPage, Warning } from './types.ts';

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
}

export interface IngestionResult {
  job: IngestionJob;
  counts: IngestionCounts;
  warnings: Warning[];
}

/** Rows per multi-row statement: 10 columns × 500 stays far below both dialects' bound-parameter limits. */
const INSERT_BATCH = 500;

/**
 * Creates a job for the site and runs it to completion. Parsing and analysis happen outside the
 * database transaction; the write of every changed page plus the generation bump is one transaction,
 * so a search sees the old site or the new one, never a mix.
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

export async function runIngestionJob(
  storage: Storage,
  job: IngestionJob,
  options: IngestOptions = {},
): Promise<IngestionResult> {
  await markIngestionStarted(storage, job.id);
  try {
    const known = await loaderHashes(storage, job.siteId);
    const loaded = await loadDocsFolder(job.sourceDir, {
      known,
      analyze: true,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
    const counts = await applyPages(storage, job.siteId, loaded.pages);
    // Not part of the index (no generation bump): the next answer's system prompt reads it.
    await storage.db
      .updateTable('sites')
      .set({ repository_instructions: loaded.assistantInstructions?.text ?? null })
      .where('id', '=', job.siteId)
      .execute();
    const warnings = [...loaded.warnings];
    if (options.embeddings) {
      const embedding = await embedSiteChunks(storage, job.siteId, options.embeddings);
      if (embedding.error !== null)
        warnings.push({
          file: '(embeddings)',
          message: `${embedding.missing} chunks have no ${options.embeddings.id} vector yet (${embedding.error}); they are found by their words alone until the next ingestion computes them`,
        });
    }
    counts.skipped = loaded.skipped;
    counts.warnings = warnings.length;
    await finishIngestionJob(storage, job.id, { status: 'success', counts, warnings });
    return { job: { ...job, status: 'success' }, counts, warnings };
  } catch (error) {
    await failIngestionJob(storage, job.id, error);
    throw error;
  }
}

/**
 * What is stored and compared for incremental ingestion: the loader's content hash (source, snippets,
 * labels, parser version) plus the analyzer version, since stored chunks hold analyzer output.
 */
const STORED_HASH_PREFIX = `a${ANALYZER_VERSION}:`;

function storedHash(page: ParsedPage): string {
  return `${STORED_HASH_PREFIX}${page.contentHash}`;
}

/** The loader's hashes of the pages stored under the current analyzer: the ones it may skip parsing. */
async function loaderHashes(storage: Storage, siteId: string): Promise<Record<string, string>> {
  // No prototype: page paths such as `__proto__` or `constructor` are keys like any other.
  const known: Record<string, string> = Object.create(null);
  for (const [path, { hash }] of await storedPages(storage.db, siteId)) {
    if (hash.startsWith(STORED_HASH_PREFIX)) known[path] = hash.slice(STORED_HASH_PREFIX.length);
  }
  return known;
}

interface PreparedPage {
  page: PagesTable;
  chunks: ChunksTable[];
}

/** PostgreSQL text cannot hold NUL; a stray one in a docs file must not fail the whole ingestion. */
function stripNul(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '') : text;
}

/** The group as stored: compared with the stored one, so a NUL in it cannot make it differ forever. */
function navGroupOf(page: ParsedPage): string | null {
  return page.navGroup === null ? null : stripNul(page.navGroup);
}

function preparePage(siteId: string, parsed: ParsedPage, updatedAt: string): PreparedPage {
  const language = parsed.languages[0] ?? null;
  return {
    page: {
      site_id: siteId,
      path: parsed.path,
      title: stripNul(parsed.title),
      description: parsed.description === null ? null : stripNul(parsed.description),
      versions: JSON.stringify(parsed.versions),
      languages: JSON.stringify(parsed.languages),
      content_hash: storedHash(parsed),
      updated_at: updatedAt,
      nav_order: parsed.navOrder,
      nav_group: navGroupOf(parsed),
    },
    chunks: parsed.chunks.map((chunk, ord) => ({
      site_id: siteId,
      page_path: parsed.path,
      ord,
      anchor: chunk.anchor,
      headings: JSON.stringify(chunk.headings),
      text: stripNul(chunk.text),
      analyzed:
        chunk.analyzedJson ??
        JSON.stringify(
          analyzeChunk({ pageTitle: parsed.title, headings: chunk.headings, text: chunk.text, language }),
        ),
    })),
  };
}

interface StoredPageState {
  hash: string;
  navOrder: number | null;
  navGroup: string | null;
}

async function storedPages(
  db: Storage['db'] | Transaction<Database>,
  siteId: string,
): Promise<Map<string, StoredPageState>> {
  const rows = await db
    .selectFrom('pages')
    .select(['path', 'content_hash', 'nav_order', 'nav_group'])
    .where('site_id', '=', siteId)
    .execute();
  return new Map(
    rows.map((row) => [
      row.path,
      { hash: row.content_hash, navOrder: row.nav_order ?? null, navGroup: row.nav_group ?? null },
    ]),
  );
}

/**
 * Sets the navigation place of pages whose content is unchanged: one UPDATE per batch, a CASE per
 * column. Casts, because PostgreSQL cannot infer a type for a CASE made only of parameters.
 */
async function updateNavigation(
  trx: Transaction<Database>,
  siteId: string,
  pages: ParsedPage[],
): Promise<void> {
  for (let i = 0; i < pages.length; i += INSERT_BATCH) {
    const batch = pages.slice(i, i + INSERT_BATCH);
    const order = sql.join(
      batch.map((p) => sql`when ${p.path} then cast(${p.navOrder} as integer)`),
      sql` `,
    );
    const group = sql.join(
      batch.map((p) => sql`when ${p.path} then cast(${navGroupOf(p)} as text)`),
      sql` `,
    );
    await trx
      .updateTable('pages')
      .set({
        nav_order: sql<number | null>`case path ${order} end`,
        nav_group: sql<string | null>`case path ${group} end`,
      })
      .where('site_id', '=', siteId)
      .where(
        'path',
        'in',
        batch.map((p) => p.path),
      )
      .execute();
  }
}

async function applyPages(storage: Storage, siteId: string, pages: ParsedPage[]): Promise<IngestionCounts> {
  const before = await storedPages(storage.db, siteId);
  const updatedAt = nowIso();
  // Analysis is the expensive part; do it before taking any lock, only for pages that look changed.
  const prepared = new Map<string, PreparedPage>();
  for (const page of pages) {
    if (!page.reused && before.get(page.path)?.hash !== storedHash(page))
      prepared.set(page.path, preparePage(siteId, page, updatedAt));
  }

  return storage.db.transaction().execute(async (trx) => {
    if (storage.dialect === 'postgres') {
      // Serialises concurrent ingestions of one site; readers are not blocked.
      await trx.selectFrom('sites').select('id').where('id', '=', siteId).forUpdate().execute();
    }
    // Re-read inside the transaction: another ingestion may have committed since the first read.
    const current = await storedPages(trx, siteId);
    const incoming = new Set(pages.map((page) => page.path));
    const counts: IngestionCounts = {
      pages: pages.length,
      added: 0,
      updated: 0,
      removed: 0,
      unchanged: 0,
      skipped: 0,
      chunksWritten: 0,
      warnings: 0,
    };
    const toWrite: PreparedPage[] = [];
    const toDelete: string[] = [];
    // Same content, new place in the navigation: kept, with its order and group updated in place.
    const moved: ParsedPage[] = [];
    for (const page of pages) {
      const stored = current.get(page.path);
      if (stored?.hash === storedHash(page)) {
        counts.unchanged++;
        if (stored.navOrder !== page.navOrder || stored.navGroup !== navGroupOf(page)) moved.push(page);
        continue;
      }
      if (page.reused) {
        // Parsing was skipped because the page matched what was stored when loading began; another
        // ingestion has changed it since, so this run's view of the site is stale.
        throw new Error(`page ${page.path} changed during this ingestion; run the ingestion again`);
      }
      if (stored === undefined) counts.added++;
      else {
        counts.updated++;
        toDelete.push(page.path);
      }
      toWrite.push(prepared.get(page.path) ?? preparePage(siteId, page, updatedAt));
    }
    for (const path of current.keys()) {
      if (!incoming.has(path)) {
        counts.removed++;
        toDelete.push(path);
      }
    }
    if (toWrite.length === 0 && toDelete.length === 0 && moved.length === 0) return counts;

    for (let i = 0; i < toDelete.length; i += INSERT_BATCH) {
      const batch = toDelete.slice(i, i + INSERT_BATCH);
      await trx.deleteFrom('chunks').where('site_id', '=', siteId).where('page_path', 'in', batch).execute();
      await trx.deleteFrom('pages').where('site_id', '=', siteId).where('path', 'in', batch).execute();
    }
    const pageRows = toWrite.map((p) => p.page);
    for (let i = 0; i < pageRows.length; i += INSERT_BATCH) {
      await trx
        .insertInto('pages')
        .values(pageRows.slice(i, i + INSERT_BATCH))
        .execute();
    }
    const chunkRows = toWrite.flatMap((p) => p.chunks);
    for (let i = 0; i < chunkRows.length; i += INSERT_BATCH) {
      await trx
        .insertInto('chunks')
        .values(chunkRows.slice(i, i + INSERT_BATCH))
        .execute();
    }
    counts.chunksWritten = chunkRows.length;
    await updateNavigation(trx, siteId, moved);
    await trx
      .updateTable('sites')
      .set((eb) => ({ index_generation: eb('index_generation', '+', 1) }))
      .where('id', '=', siteId)
      .execute();
    return counts;
  });
}
