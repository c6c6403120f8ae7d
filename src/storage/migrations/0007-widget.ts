import type { Kysely } from 'kysely';

/**
 * What the browser widget needs: a site's starter questions (shown on an empty panel), readers' votes on
 * answers (`message_feedback`, one per answer and fingerprint), and the streamed message id of an answer
 * in flight, so that one stored by crash recovery keeps the id its reader already has.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds a single column at a time.
  await db.schema.alterTable('sites').addColumn('starter_questions', 'text').execute();
  await db.schema.alterTable('answers_in_flight').addColumn('message_id', 'text').execute();

  // The vote goes with its answer and thread: a regenerate deletes the answer, a deleted site its threads.
  // `site_id` and `organization_id` are copies of the thread's, for the owner's listings by site.
  await db.schema
    .createTable('message_feedback')
    .addColumn('message_id', 'text', (c) => c.notNull().references('thread_messages.id').onDelete('cascade'))
    .addColumn('fp', 'text', (c) => c.notNull())
    .addColumn('thread_id', 'text', (c) => c.notNull().references('threads.id').onDelete('cascade'))
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('rating', 'text', (c) => c.notNull())
    .addColumn('comment', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('resolved_at', 'text')
    .addPrimaryKeyConstraint('message_feedback_pk', ['message_id', 'fp'])
    .execute();
  await db.schema
    .createIndex('message_feedback_site_idx')
    .on('message_feedback')
    .columns(['site_id', 'updated_at'])
    .execute();
  // The transcript reads a thread's votes in one query.
  await db.schema
    .createIndex('message_feedback_thread_idx')
    .on('message_feedback')
    .column('thread_id')
    .execute();
}
