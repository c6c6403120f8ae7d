import { refundWithin } from '../limits/credits.ts';
import type { Storage } from '../storage/database.ts';
import { withWriteUnit } from '../storage/write-unit.ts';
import { lastQuestionWithin, questionOfRequestWithin, storeAnswerWithin } from './threads.ts';

export interface RecoveredAnswers {
  /** Answers found in flight under the dead instances. */
  answers: number;
  /** Of those, charges given back (the others had been refunded already). */
  refunded: number;
}

/**
 * Settles the answers that server instances which died (crashed, killed) were still writing: each
 * was charged with its question stored and no answer. The reader never got a stored answer, so the
 * credit goes back, and the thread gets an empty `aborted` answer, as when a reader leaves before the
 * first word, so it reads as question → answer like every other. One unit per answer, each re-checking
 * its in-flight row under the organization's lock, so two live processes recovering at once settle
 * each answer once.
 */
export async function recoverInterruptedAnswers(
  storage: Storage,
  deadInstanceIds: string[],
): Promise<RecoveredAnswers> {
  const recovered: RecoveredAnswers = { answers: 0, refunded: 0 };
  // Also rows whose instance row is gone (an instance that stopped with an answer it could not store):
  // a live instance is registered before it answers anything.
  const rows = await storage.db
    .selectFrom('answers_in_flight')
    .select(['request_id', 'organization_id', 'thread_id', 'message_id', 'question_seq'])
    .where((eb) =>
      eb.or([
        ...(deadInstanceIds.length > 0 ? [eb('instance_id', 'in', deadInstanceIds)] : []),
        eb('instance_id', 'not in', eb.selectFrom('server_instances').select('id')),
      ]),
    )
    .execute();
  for (const row of rows) {
    await withWriteUnit(storage, { lockOrganizationId: row.organization_id }, async (unit) => {
      const still = await unit.db
        .deleteFrom('answers_in_flight')
        .where('request_id', '=', row.request_id)
        .executeTakeFirst();
      if (Number(still.numDeletedRows) === 0) return;
      recovered.answers++;
      if (await refundWithin(unit, { organizationId: row.organization_id, requestId: row.request_id }))
        recovered.refunded++;
      // In its question's place: the one it recorded; else (a row from a Docent before migration 0017)
      // the question stored under its request id, or, for a regenerate, which stores no question, the
      // thread's last one. Nothing when the thread is gone or a newer answer holds the place.
      const questionSeq =
        row.question_seq !== null
          ? Number(row.question_seq)
          : ((await questionOfRequestWithin(unit, row.thread_id, row.request_id))?.seq ??
            (await lastQuestionWithin(unit, row.thread_id))?.seq);
      if (questionSeq === undefined) return;
      await storeAnswerWithin(unit, row.thread_id, questionSeq, {
        // The id its reader was streamed, when the row has one (rows from before migration 0007 do not).
        ...(row.message_id ? { id: row.message_id } : {}),
        content: '',
        status: 'aborted',
        finishReason: 'unknown',
        requestId: row.request_id,
      });
    });
  }
  return recovered;
}
