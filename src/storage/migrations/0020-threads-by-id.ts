import type { Kysely } from 'kysely';

/**
 * An organization's threads in id order (their creation time): the conversation export pages through
 * them by id, which never changes, so a thread a reader continues meanwhile is neither lost nor
 * repeated; without this index every batch would sort all the range's threads again.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('threads_org_id_idx')
    .on('threads')
    .columns(['organization_id', 'id'])
    .execute();
}
