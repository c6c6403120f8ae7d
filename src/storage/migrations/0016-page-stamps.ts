import type { Kysely } from 'kysely';

/**
 * Source stamps (src/ingest/source-stamps.ts): per page, the stamp of the files it was read from and the
 * content hash that stamp vouches for, so an unchanged re-ingestion reuses the page after a `stat` of
 * each file instead of reading it. A cache, never data: losing a row costs one read of the page. The
 * site's deletion drops them.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('page_stamps')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('stamp', 'text', (c) => c.notNull())
    /** JSON array of the files (relative to the docs folder) the stamp covers, the page's own first. */
    .addColumn('files', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('page_stamps_pk', ['site_id', 'path'])
    .execute();
}
