import type { Kysely } from 'kysely';

/**
 * Where an ingestion puts the pages it parsed until it publishes them (src/ingest/page-staging.ts).
 * Pages stream from the parser into these tables in small transactions, so neither the process nor a
 * transaction holds the whole site; one last transaction then moves them into `pages` and `chunks` with
 * INSERT … SELECT beside the deletes and the generation bump, so a search still sees the old site or the
 * new one, never a mix. Rows belong to their job: they go when it ends (success or failure), when a live
 * process settles the job of a dead one (recover-interrupted-ingestions.ts), or with the job itself.
 * Same columns as `pages` and `chunks`, with the job instead of the site.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ingestion_staged_pages')
    .addColumn('job_id', 'text', (c) => c.notNull().references('ingestion_jobs.id').onDelete('cascade'))
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('versions', 'text', (c) => c.notNull())
    .addColumn('languages', 'text', (c) => c.notNull())
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('nav_order', 'integer')
    .addColumn('nav_group', 'text')
    .addPrimaryKeyConstraint('ingestion_staged_pages_pk', ['job_id', 'path'])
    .execute();
  await db.schema
    .createTable('ingestion_staged_chunks')
    .addColumn('job_id', 'text', (c) => c.notNull().references('ingestion_jobs.id').onDelete('cascade'))
    .addColumn('page_path', 'text', (c) => c.notNull())
    .addColumn('ord', 'integer', (c) => c.notNull())
    .addColumn('anchor', 'text')
    .addColumn('headings', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('analyzed', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('ingestion_staged_chunks_pk', ['job_id', 'page_path', 'ord'])
    .execute();
}
