import { sql, type Transaction } from 'kysely';
import { ANALYZER_VERSION, analyzeChunk } from '../search/analyze.ts';
import { yieldToIo } from '../search/yield-to-io.ts';
import type { Storage } from '../storage/database.ts';
import type { Database, IngestionStagedChunksTable, IngestionStagedPagesTable } from '../storage/schema.ts';
import type { IngestionCounts } from './jobs.ts';
import type { ParsedPage } from './types.ts';

/**
 * How an ingestion writes what it parsed without holding the site in memory or the database's writer
 * for the whole parse (migration 0015):
 *
 * 1. Staging. Each parsed page is written, as the `pages` and `chunks` rows it will become, to
 *    `ingestion_staged_pages` and `ingestion_staged_chunks` under the job, in small transactions of a
 *    few dozen pages (PageStager). A page that took another page's parse (`sameAs`, duplicate-pages.ts)
 *    is copied from that page's staged rows by the database, not sent again. Searches never read these
 *    tables, so they go on seeing the published site.
 * 2. Publishing. One transaction (publishStagedPages) compares what the loader saw (a small record per
 *    page: hash and navigation place) with what is stored now, deletes the removed and changed pages,
 *    moves the staged rows in with INSERT … SELECT (no row passes through JavaScript again; chunks a
 *    few hundred pages per statement, with the event loop free between them), updates
 *    the navigation place of unchanged pages and bumps the generation: a search sees the old site or
 *    the new one, never a mix, exactly as when everything was written in one transaction from memory.
 * 3. Clearing. The job's staged rows are deleted after publishing, or after a failure; a crash leaves
 *    them to recover-interrupted-ingestions.ts, which clears the rows of every job that has ended.
 */

/**
 * What is stored and compared for incremental ingestion: the loader's content hash (source, snippets,
 * labels, parser version) plus the analyzer version, since stored chunks hold analyzer output.
 */
export const STORED_HASH_PREFIX = `a${ANALYZER_VERSION}:`;

/**
 * Ends the stored hash of a page whose parse warned (ParsedPage.warned). The loader is not given such
 * hashes (loaderHashes), so the page is parsed again and its warnings reach every job, as they would a
 * fresh ingestion's; parsed unchanged, it gives the same marked hash and is counted unchanged, not
 * written again.
 */
export const WARNED_HASH_SUFFIX = '!warned';

export function storedHash(page: ParsedPage): string {
  return `${STORED_HASH_PREFIX}${page.contentHash}${page.warned ? WARNED_HASH_SUFFIX : ''}`;
}

/** PostgreSQL text cannot hold NUL; a stray one in a docs file must not fail the whole ingestion. */
export function stripNul(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '') : text;
}

/** The group as stored: compared with the stored one, so a NUL in it cannot make it differ forever. */
export function navGroupOf(page: ParsedPage): string | null {
  return page.navGroup === null ? null : stripNul(page.navGroup);
}

/** Rows per multi-row statement: 10 columns × 500 stays far below both dialects' bound-parameter limits. */
const INSERT_BATCH = 500;
/**
 * A staging transaction is written once this many pages (or copies), chunks or characters of chunk
 * text and analysis are waiting, whichever comes first: small enough that the writer is held for
 * milliseconds and the waiting rows stay a few megabytes, large enough that commits cost little.
 */
export const STAGE_BATCH_PAGES = 64;
const STAGE_BATCH_CHUNKS = 2_000;
const STAGE_BATCH_CHARS = 8_000_000;

/** A page written by copying the staged rows of the page whose parse it took. */
interface StagedCopy {
  row: Omit<IngestionStagedPagesTable, 'title' | 'description'>;
  from: string;
}

/** Writes one job's parsed pages to the staging tables in small transactions (see above). */
export class PageStager {
  private pages: IngestionStagedPagesTable[] = [];
  private chunks: IngestionStagedChunksTable[] = [];
  private copies: StagedCopy[] = [];
  private chars = 0;
  /** Staging transactions written (tests check that pages are written while others are parsed). */
  batches = 0;

  constructor(
    private readonly storage: Storage,
    private readonly jobId: string,
    private readonly updatedAt: string,
  ) {}

  /** Takes a parsed (not reused) page; writes a transaction when enough is waiting. */
  async add(parsed: ParsedPage): Promise<void> {
    const row = {
      job_id: this.jobId,
      path: parsed.path,
      versions: JSON.stringify(parsed.versions),
      languages: JSON.stringify(parsed.languages),
      content_hash: storedHash(parsed),
      updated_at: this.updatedAt,
      nav_order: parsed.navOrder,
      nav_group: navGroupOf(parsed),
    };
    if (parsed.sameAs !== undefined) {
      this.copies.push({ row, from: parsed.sameAs });
    } else {
      this.pages.push({
        ...row,
        title: stripNul(parsed.title),
        description: parsed.description === null ? null : stripNul(parsed.description),
      });
      const language = parsed.languages[0] ?? null;
      for (const [ord, chunk] of parsed.chunks.entries()) {
        const analyzed =
          chunk.analyzedJson ??
          JSON.stringify(
            analyzeChunk({ pageTitle: parsed.title, headings: chunk.headings, text: chunk.text, language }),
          );
        const text = stripNul(chunk.text);
        this.chunks.push({
          job_id: this.jobId,
          page_path: parsed.path,
          ord,
          anchor: chunk.anchor,
          headings: JSON.stringify(chunk.headings),
          text,
          analyzed,
        });
        this.chars += text.length + analyzed.length;
      }
    }
    if (
      this.pages.length + this.copies.length >= STAGE_BATCH_PAGES ||
      this.chunks.length >= STAGE_BATCH_CHUNKS ||
      this.chars >= STAGE_BATCH_CHARS
    )
      await this.flush();
  }

  /** Writes whatever is waiting, in one transaction. */
  async flush(): Promise<void> {
    if (this.pages.length === 0 && this.copies.length === 0) return;
    const { pages, chunks, copies } = this;
    this.pages = [];
    this.chunks = [];
    this.copies = [];
    this.chars = 0;
    this.batches++;
    await this.storage.db.transaction().execute(async (trx) => {
      for (let i = 0; i < pages.length; i += INSERT_BATCH)
        await trx
          .insertInto('ingestion_staged_pages')
          .values(pages.slice(i, i + INSERT_BATCH))
          .execute();
      for (let i = 0; i < chunks.length; i += INSERT_BATCH)
        await trx
          .insertInto('ingestion_staged_chunks')
          .values(chunks.slice(i, i + INSERT_BATCH))
          .execute();
      // After the inserts: a page may take the parse of one staged in this same transaction.
      for (let i = 0; i < copies.length; i += INSERT_BATCH)
        await this.copy(trx, copies.slice(i, i + INSERT_BATCH));
    });
  }

  /**
   * Copies the staged rows of the pages whose parse these pages took, each under its own path, labels,
   * hash and navigation place: two statements for the batch, whatever the number of chunks. Columns of a
   * VALUES list are `column1`, `column2` … in both dialects; the casts give PostgreSQL their types.
   * `cross join` makes SQLite loop over the list and look each source page up by its key: left to
   * itself it scanned every staged chunk of the job once per copied page (quadratic in the site).
   */
  private async copy(trx: Transaction<Database>, copies: StagedCopy[]): Promise<void> {
    const values = sql.join(
      copies.map(
        ({ row, from }) =>
          sql`(cast(${row.path} as text), cast(${from} as text), cast(${row.versions} as text), cast(${row.languages} as text), cast(${row.content_hash} as text), cast(${row.nav_order} as integer), cast(${row.nav_group} as text))`,
      ),
    );
    await sql`
      insert into ingestion_staged_pages
        (job_id, path, title, description, versions, languages, content_hash, updated_at, nav_order, nav_group)
      select s.job_id, m.column1, s.title, s.description, m.column3, m.column4, m.column5, ${this.updatedAt},
        m.column6, m.column7
      from (values ${values}) as m cross join ingestion_staged_pages s
      where s.job_id = ${this.jobId} and s.path = m.column2`.execute(trx);
    await sql`
      insert into ingestion_staged_chunks (job_id, page_path, ord, anchor, headings, text, analyzed)
      select c.job_id, m.column1, c.ord, c.anchor, c.headings, c.text, c.analyzed
      from (values ${values}) as m cross join ingestion_staged_chunks c
      where c.job_id = ${this.jobId} and c.page_path = m.column2`.execute(trx);
  }
}

/** What the loader saw of one page: enough to diff it against the stored site, without its content. */
export interface IncomingPage {
  hash: string;
  navOrder: number | null;
  navGroup: string | null;
  /** Not parsed: known unchanged when loading began (so not staged either). */
  reused: boolean;
}

interface StoredPageState {
  hash: string;
  navOrder: number | null;
  navGroup: string | null;
}

export async function storedPages(
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
  pages: { path: string; navOrder: number | null; navGroup: string | null }[],
): Promise<void> {
  for (let i = 0; i < pages.length; i += INSERT_BATCH) {
    const batch = pages.slice(i, i + INSERT_BATCH);
    const order = sql.join(
      batch.map((p) => sql`when ${p.path} then cast(${p.navOrder} as integer)`),
      sql` `,
    );
    const group = sql.join(
      batch.map((p) => sql`when ${p.path} then cast(${p.navGroup} as text)`),
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

/**
 * Publishes a job's staged pages as the site's pages, in one transaction (step 2 above). `incoming` is
 * every page the loader handed on, by id; every one of them that was not reused has been staged.
 */
export async function publishStagedPages(
  storage: Storage,
  siteId: string,
  jobId: string,
  incoming: ReadonlyMap<string, IncomingPage>,
): Promise<IngestionCounts> {
  return storage.db.transaction().execute(async (trx) => {
    if (storage.dialect === 'postgres') {
      // Serialises concurrent ingestions of one site; readers are not blocked.
      await trx.selectFrom('sites').select('id').where('id', '=', siteId).forUpdate().execute();
    }
    // Read inside the transaction: another ingestion may have committed since loading began.
    const current = await storedPages(trx, siteId);
    const counts: IngestionCounts = {
      pages: incoming.size,
      added: 0,
      updated: 0,
      removed: 0,
      unchanged: 0,
      skipped: 0,
      chunksWritten: 0,
      warnings: 0,
    };
    const toDelete: string[] = [];
    // Same content, new place in the navigation: kept, with its order and group updated in place.
    const moved: { path: string; navOrder: number | null; navGroup: string | null }[] = [];
    let toWrite = 0;
    for (const [path, page] of incoming) {
      const stored = current.get(path);
      if (stored?.hash === page.hash) {
        counts.unchanged++;
        if (stored.navOrder !== page.navOrder || stored.navGroup !== page.navGroup)
          moved.push({ path, navOrder: page.navOrder, navGroup: page.navGroup });
        continue;
      }
      if (page.reused) {
        // Parsing was skipped because the page matched what was stored when loading began; another
        // ingestion has changed it since, so this run's view of the site is stale.
        throw new Error(`page ${path} changed during this ingestion; run the ingestion again`);
      }
      toWrite++;
      if (stored === undefined) counts.added++;
      else {
        counts.updated++;
        toDelete.push(path);
      }
    }
    for (const path of current.keys()) {
      if (!incoming.has(path)) {
        counts.removed++;
        toDelete.push(path);
      }
    }
    if (toWrite === 0 && toDelete.length === 0 && moved.length === 0) return counts;

    for (let i = 0; i < toDelete.length; i += INSERT_BATCH) {
      const batch = toDelete.slice(i, i + INSERT_BATCH);
      await trx.deleteFrom('chunks').where('site_id', '=', siteId).where('page_path', 'in', batch).execute();
      await trx.deleteFrom('pages').where('site_id', '=', siteId).where('path', 'in', batch).execute();
    }
    if (toWrite > 0) {
      // What is still stored under a staged path now is the same page (same hash): not written again.
      // A staged page is new or changed exactly when no page has its path any more.
      const stillStored = (column: string) =>
        sql<boolean>`exists (select 1 from pages p where p.site_id = ${siteId} and p.path = ${sql.ref(column)})`;
      await trx
        .deleteFrom('ingestion_staged_chunks')
        .where('job_id', '=', jobId)
        .where(stillStored('ingestion_staged_chunks.page_path'))
        .execute();
      await trx
        .deleteFrom('ingestion_staged_pages')
        .where('job_id', '=', jobId)
        .where(stillStored('ingestion_staged_pages.path'))
        .execute();
      const inserted = await trx
        .insertInto('pages')
        .columns([
          'site_id',
          'path',
          'title',
          'description',
          'versions',
          'languages',
          'content_hash',
          'updated_at',
          'nav_order',
          'nav_group',
        ])
        .expression(
          trx
            .selectFrom('ingestion_staged_pages')
            .select([
              sql<string>`${siteId}`.as('site_id'),
              'path',
              'title',
              'description',
              'versions',
              'languages',
              'content_hash',
              'updated_at',
              'nav_order',
              'nav_group',
            ])
            .where('job_id', '=', jobId),
        )
        .executeTakeFirst();
      // Every page to write must have been staged (and nothing else is left staged): otherwise the
      // site would lose pages it counts as written. Rolled back, the site keeps what it had.
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) !== toWrite)
        throw new Error(
          `ingestion staged ${Number(inserted.numInsertedOrUpdatedRows ?? 0)} pages to write but found ${toWrite} new or changed; nothing was published`,
        );
      counts.chunksWritten = await moveStagedChunks(trx, siteId, jobId);
    }
    await updateNavigation(trx, siteId, moved);
    await trx
      .updateTable('sites')
      .set((eb) => ({ index_generation: eb('index_generation', '+', 1) }))
      .where('id', '=', siteId)
      .execute();
    return counts;
  });
}

/**
 * Staged pages whose chunks are moved by one statement while publishing. SQLite runs a statement
 * synchronously: moving a large site's chunks in one (74,080 chunks: 1.27 s) held the event loop for all
 * of it, so a server publishing an ingestion answered nothing, not even `/healthz`. The transaction still
 * spans every batch, so a search sees the old site or the new one; between batches the event loop runs.
 */
export const PUBLISH_BATCH_PAGES = 256;

/**
 * Moves the job's staged chunks into `chunks`, the staged pages' chunks a path range at a time (the
 * ranges cover every path, so no chunk is left whatever its page), yielding to I/O between statements.
 * Returns the number of chunks moved.
 */
async function moveStagedChunks(trx: Transaction<Database>, siteId: string, jobId: string): Promise<number> {
  const move = async (from: string | null, to: string | null): Promise<number> => {
    let select = trx
      .selectFrom('ingestion_staged_chunks')
      .select([
        sql<string>`${siteId}`.as('site_id'),
        'page_path',
        'ord',
        'anchor',
        'headings',
        'text',
        'analyzed',
      ])
      .where('job_id', '=', jobId);
    if (from !== null) select = select.where('page_path', '>', from);
    if (to !== null) select = select.where('page_path', '<=', to);
    const moved = await trx
      .insertInto('chunks')
      .columns(['site_id', 'page_path', 'ord', 'anchor', 'headings', 'text', 'analyzed'])
      .expression(select)
      .executeTakeFirst();
    return Number(moved.numInsertedOrUpdatedRows ?? 0);
  };
  let moved = 0;
  let after: string | null = null;
  for (;;) {
    let batch = trx
      .selectFrom('ingestion_staged_pages')
      .select('path')
      .where('job_id', '=', jobId)
      .orderBy('path')
      .limit(PUBLISH_BATCH_PAGES);
    if (after !== null) batch = batch.where('path', '>', after);
    const last = (await batch.execute()).at(-1)?.path;
    if (last === undefined) break;
    moved += await move(after, last);
    after = last;
    await yieldToIo();
  }
  return moved + (await move(after, null));
}

/** Staged pages deleted per transaction when clearing: a large site's rows go without holding the writer long. */
const CLEAR_BATCH_PAGES = 256;

/** Deletes a job's staged rows (step 3 above), a few hundred pages per transaction. */
export async function clearStagedPages(storage: Storage, jobId: string): Promise<void> {
  for (;;) {
    const paths = (
      await storage.db
        .selectFrom('ingestion_staged_pages')
        .select('path')
        .where('job_id', '=', jobId)
        .limit(CLEAR_BATCH_PAGES)
        .execute()
    ).map((row) => row.path);
    if (paths.length === 0) break;
    await storage.db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('ingestion_staged_chunks')
        .where('job_id', '=', jobId)
        .where('page_path', 'in', paths)
        .execute();
      await trx
        .deleteFrom('ingestion_staged_pages')
        .where('job_id', '=', jobId)
        .where('path', 'in', paths)
        .execute();
    });
    // Each delete is synchronous on SQLite: without this the whole clear ran as one task.
    await yieldToIo();
  }
  // Chunks are staged in the transaction of their page, so none should be left; a sweep costs nothing.
  await storage.db.deleteFrom('ingestion_staged_chunks').where('job_id', '=', jobId).execute();
}
