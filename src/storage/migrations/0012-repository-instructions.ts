import type { Kysely } from 'kysely';

/**
 * The docs repository's own assistant instructions (`.docent/Assistant.md`, `.mintlify/Assistant.md`),
 * written by each ingestion beside the site's pages; null: the repository has none.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sites').addColumn('repository_instructions', 'text').execute();
}
