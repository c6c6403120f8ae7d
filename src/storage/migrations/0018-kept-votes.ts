import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * A regenerated answer is deleted (its place goes to the new one), but the readers' votes on it stay:
 * they are the owner's signal that it did not help. So a vote no longer references its answer row (it
 * still goes with its thread), and keeps the replaced answer's text (`replaced_answer`) and the answer
 * now in its place (`replaced_by`), which links the vote to its question. SQLite cannot drop a foreign
 * key, so there the table is rebuilt.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    await sql`alter table message_feedback drop constraint message_feedback_message_id_fkey`.execute(db);
    await db.schema.alterTable('message_feedback').addColumn('replaced_by', 'text').execute();
    await db.schema.alterTable('message_feedback').addColumn('replaced_answer', 'text').execute();
  } else {
    await db.schema
      .createTable('message_feedback_new')
      .addColumn('message_id', 'text', (c) => c.notNull())
      .addColumn('fp', 'text', (c) => c.notNull())
      .addColumn('thread_id', 'text', (c) => c.notNull().references('threads.id').onDelete('cascade'))
      .addColumn('site_id', 'text', (c) => c.notNull())
      .addColumn('organization_id', 'text', (c) => c.notNull())
      .addColumn('rating', 'text', (c) => c.notNull())
      .addColumn('comment', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('resolved_at', 'text')
      .addColumn('replaced_by', 'text')
      .addColumn('replaced_answer', 'text')
      .addPrimaryKeyConstraint('message_feedback_pk', ['message_id', 'fp'])
      .execute();
    await sql`insert into message_feedback_new (message_id, fp, thread_id, site_id, organization_id, rating,
        comment, created_at, updated_at, resolved_at)
      select message_id, fp, thread_id, site_id, organization_id, rating, comment, created_at, updated_at,
        resolved_at
      from message_feedback`.execute(db);
    await db.schema.dropTable('message_feedback').execute();
    await db.schema.alterTable('message_feedback_new').renameTo('message_feedback').execute();
    await db.schema
      .createIndex('message_feedback_site_idx')
      .on('message_feedback')
      .columns(['site_id', 'updated_at'])
      .execute();
    await db.schema
      .createIndex('message_feedback_thread_idx')
      .on('message_feedback')
      .column('thread_id')
      .execute();
    await db.schema
      .createIndex('message_feedback_org_idx')
      .on('message_feedback')
      .columns(['organization_id', 'updated_at'])
      .execute();
  }
  // A regenerate moves the votes its answer had kept from earlier ones; the question filters find them.
  await db.schema
    .createIndex('message_feedback_replaced_by_idx')
    .on('message_feedback')
    .column('replaced_by')
    .where(sql.ref('replaced_by'), 'is not', null)
    .execute();
}
