import type { Kysely } from 'kysely';

/** A site's model call options (temperature, longest answer, reasoning effort), as JSON; null: defaults. */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sites').addColumn('model_options', 'text').execute();
}
