import type { Kysely } from 'kysely';

/**
 * For agents: where each page sits in the navigation (llms.txt lists pages by group, in navigation
 * order), and whether a site's MCP server and search are open without a key (`public`).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds a single column at a time.
  await db.schema.alterTable('pages').addColumn('nav_order', 'integer').execute();
  await db.schema.alterTable('pages').addColumn('nav_group', 'text').execute();
  await db.schema
    .alterTable('sites')
    .addColumn('public', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
}
