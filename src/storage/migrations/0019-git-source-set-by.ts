import type { Kysely } from 'kysely';

/**
 * Who set a site's git source: `cli` (the operator, whose git credentials it may use) or `api` (an
 * organization's admin, whose source gets none of them). Sources stored before are taken for `api`:
 * nothing recorded says the operator chose them.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('site_git_sources')
    .addColumn('set_by', 'text', (c) => c.notNull().defaultTo('api'))
    .execute();
}
