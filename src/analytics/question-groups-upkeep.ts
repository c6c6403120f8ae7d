import { type Kysely, sql } from 'kysely';
import type { Database } from '../storage/schema.ts';
import { MAX_LABEL_CHARS } from './question-grouper.ts';

/** Groups relabelled per statement: keeps each `in (…)` list short. */
const RELABEL_BATCH = 200;

/**
 * After questions were deleted (a conversation, or threads past retention): each of these groups takes
 * its earliest remaining question as its label, so no deleted question's words stay on show, and a group
 * with no question left is deleted.
 */
export async function relabelGroups(db: Kysely<Database>, groupIds: readonly string[]): Promise<void> {
  for (let i = 0; i < groupIds.length; i += RELABEL_BATCH) {
    const batch = groupIds.slice(i, i + RELABEL_BATCH);
    await db
      .deleteFrom('question_groups')
      .where('id', 'in', batch)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('thread_messages')
              .select(sql`1`.as('one'))
              .whereRef('thread_messages.question_group_id', '=', 'question_groups.id'),
          ),
        ),
      )
      .execute();
    await db
      .updateTable('question_groups')
      .set((eb) => ({
        label: eb
          .selectFrom('thread_messages')
          .select(sql<string>`substr(content, 1, ${sql.lit(MAX_LABEL_CHARS)})`.as('content'))
          .whereRef('thread_messages.question_group_id', '=', 'question_groups.id')
          .orderBy('thread_messages.created_at')
          .orderBy('thread_messages.id')
          .limit(1),
      }))
      .where('id', 'in', batch)
      .execute();
  }
}
