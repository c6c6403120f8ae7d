import type { Kysely } from 'kysely';

/**
 * An answer is stored right after its question (`seq + 1`) whenever it ends (src/assistant/threads.ts),
 * so the answer in flight records its question's place, for crash recovery to store the aborted answer
 * there too. Null on rows written before: recovery then uses the thread's last question.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('answers_in_flight').addColumn('question_seq', 'integer').execute();
}
