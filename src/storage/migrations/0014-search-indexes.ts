import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * A site's serialized search index (src/search/stored-index.ts), written for one index generation so
 * a node loads it instead of rebuilding the index from every stored chunk. Cut into parts: PostgreSQL
 * returns binary as hex text, and one string of a large site's index would pass V8's string limit.
 * Only the newest generation is kept; the site's deletion drops it.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('search_indexes')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('format', 'integer', (c) => c.notNull())
    .addColumn('part', 'integer', (c) => c.notNull())
    .addColumn('parts', 'integer', (c) => c.notNull())
    .addColumn('data', postgres ? sql`bytea` : sql`blob`, (c) => c.notNull())
    .addPrimaryKeyConstraint('search_indexes_pk', ['site_id', 'generation', 'part'])
    .execute();
}
