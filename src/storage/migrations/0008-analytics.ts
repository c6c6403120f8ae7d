import type { Kysely } from 'kysely';

/**
 * What the owner's console reads (issue 18). On each question: the page the reader was on and the
 * version and language filters it was asked with, and the group of questions it was put in; on each
 * answer: whether it answered (decided when it is stored) and how strong its retrieval was. Groups of
 * questions per site (`question_groups`), each organization's retention, and the indexes the analytics
 * queries range over. Every new message column is nullable: rows from before read as "unknown".
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds a single column at a time.
  for (const [column, type] of [
    ['current_path', 'text'],
    ['filter_version', 'text'],
    ['filter_language', 'text'],
    ['question_group_id', 'text'],
    ['answered', 'integer'],
    ['retrieval_score', 'real'],
  ] as const) {
    await db.schema.alterTable('thread_messages').addColumn(column, type).execute();
  }
  await db.schema.alterTable('organizations').addColumn('retention_days', 'integer').execute();

  await db.schema
    .createTable('question_groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('signature', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .execute();
  // A site's groups, most recently asked first: the candidates a new question is compared with.
  await db.schema
    .createIndex('question_groups_site_seen_idx')
    .on('question_groups')
    .columns(['site_id', 'last_seen_at'])
    .execute();

  // Every analytics query ranges over messages by time; retention and relabelling find a group's questions.
  await db.schema
    .createIndex('thread_messages_created_idx')
    .on('thread_messages')
    .column('created_at')
    .execute();
  await db.schema
    .createIndex('thread_messages_group_idx')
    .on('thread_messages')
    .columns(['question_group_id', 'created_at'])
    .execute();
  // The feedback inbox lists an organization's votes, newest first, across its sites.
  await db.schema
    .createIndex('message_feedback_org_idx')
    .on('message_feedback')
    .columns(['organization_id', 'updated_at'])
    .execute();
}
