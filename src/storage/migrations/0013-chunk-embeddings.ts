import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * Chunk vectors for semantic retrieval (`DOCENT_EMBEDDINGS`), one row per chunk and embeddings model.
 * The vector is little-endian float32 bytes in a plain binary column: pgvector is not assumed (the
 * search scans a site's vectors in the process, as it holds its lexical index). The foreign key drops
 * a chunk's vectors in the same statement that drops the chunk, so a changed page never keeps the
 * vectors of its old text.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('chunk_embeddings')
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('page_path', 'text', (c) => c.notNull())
    .addColumn('ord', 'integer', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('text_hash', 'text', (c) => c.notNull())
    .addColumn('dimensions', 'integer', (c) => c.notNull())
    .addColumn('vector', postgres ? sql`bytea` : sql`blob`, (c) => c.notNull())
    .addPrimaryKeyConstraint('chunk_embeddings_pk', ['site_id', 'page_path', 'ord', 'model'])
    .addForeignKeyConstraint(
      'chunk_embeddings_chunk_fk',
      ['site_id', 'page_path', 'ord'],
      'chunks',
      ['site_id', 'page_path', 'ord'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  // The search reads a site's vectors of one model.
  await db.schema
    .createIndex('chunk_embeddings_site_model_idx')
    .on('chunk_embeddings')
    .columns(['site_id', 'model'])
    .execute();
}
