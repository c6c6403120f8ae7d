import type { Kysely } from 'kysely';

/**
 * Sites whose docs come from a git repository (`site_git_sources`, at most one per site) and the commit
 * each ingestion read (`ingestion_jobs.commit_sha`, null for folder ingestions). The webhook secret is
 * kept as is, not hashed: verifying GitHub's HMAC needs the secret itself.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('site_git_sources')
    .addColumn('site_id', 'text', (c) => c.primaryKey().references('sites.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('branch', 'text')
    .addColumn('subdir', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('hook_secret', 'text', (c) => c.notNull())
    .addColumn('poll_minutes', 'integer')
    .addColumn('next_poll_at', 'text')
    .addColumn('checked_out_commit', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('site_git_sources_next_poll_idx')
    .on('site_git_sources')
    .column('next_poll_at')
    .execute();

  await db.schema.alterTable('ingestion_jobs').addColumn('commit_sha', 'text').execute();
}
