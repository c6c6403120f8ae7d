import type { Kysely } from 'kysely';

/** A site's own model (`provider:model`) and custom instructions; null keeps the server's defaults. */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds a single column at a time.
  await db.schema.alterTable('sites').addColumn('model', 'text').execute();
  await db.schema.alterTable('sites').addColumn('instructions', 'text').execute();
}
