import type { Kysely } from 'kysely';

/**
 * What a crash must not lose: which server processes are alive (`server_instances`, a heartbeat each),
 * which charged answers each is still writing (`answers_in_flight`, a row from the charge until the
 * answer is stored), and which process runs each ingestion (`ingestion_jobs.instance_id`). A process
 * that stops without cleaning up leaves rows a live one can find and settle.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('server_instances')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('heartbeat_at', 'text', (c) => c.notNull())
    .execute();

  // No foreign key to the thread: a site deleted mid-answer takes its threads, and the charge must still
  // be found and given back.
  await db.schema
    .createTable('answers_in_flight')
    .addColumn('request_id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('thread_id', 'text', (c) => c.notNull())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('answers_in_flight_instance_idx')
    .on('answers_in_flight')
    .column('instance_id')
    .execute();

  await db.schema.alterTable('ingestion_jobs').addColumn('instance_id', 'text').execute();
}
