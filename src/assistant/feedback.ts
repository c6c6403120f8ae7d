/**
 * Readers' votes on answers (`POST /v2/assistant/{domain}/feedback`): thumbs up or down with an optional
 * comment, one vote per answer and fingerprint, changed by voting again. The caller proves the answer is
 * theirs as a follow-up does (the thread, its fingerprint, its key when given); nothing is charged.
 */
import { z } from 'zod';
import { DomainError } from '../errors/domain-error.ts';
import { isForeignKeyViolation } from '../storage/constraint-violations.ts';
import type { Storage } from '../storage/database.ts';
import { nowIso } from '../storage/ids.ts';
import type { FeedbackRating } from '../storage/schema.ts';
import { withWriteUnit } from '../storage/write-unit.ts';
import type { Site } from '../tenancy/sites.ts';
import { contractFields, MAX_ID_CHARS } from './request-schema.ts';
import { lockThreadWithin, requireThreadForFollowUp } from './threads.ts';

export type { FeedbackRating };

/** Whole request body in bytes: ids and a comment, with room for JSON escapes of every character. */
export const MAX_FEEDBACK_BODY_BYTES = 16 * 1024;
/** Characters of a comment, after trimming: a paragraph on what was wrong. */
export const MAX_FEEDBACK_COMMENT_CHARS = 2_000;

export const FEEDBACK_RATINGS = ['up', 'down'] as const satisfies readonly FeedbackRating[];

/** Unknown keys are refused: the widget is ours, and a misspelt `comment` must not vanish silently. */
export const feedbackRequestSchema = z
  .object({
    fp: contractFields.fp,
    threadId: z.string().min(1).max(MAX_ID_CHARS),
    threadKey: z.string().max(MAX_ID_CHARS).nullish(),
    messageId: z.string().min(1).max(MAX_ID_CHARS),
    rating: z.enum(FEEDBACK_RATINGS),
    comment: z
      .string()
      .transform((value) => value.trim())
      .pipe(
        z
          .string()
          .max(MAX_FEEDBACK_COMMENT_CHARS, `must be at most ${MAX_FEEDBACK_COMMENT_CHARS} characters`),
      )
      .transform((value) => (value === '' ? null : value))
      .nullish(),
  })
  .strict();

export type FeedbackRequest = z.infer<typeof feedbackRequestSchema>;

export interface FeedbackInput {
  site: Site;
  fp: string;
  threadId: string;
  threadKey?: string | null | undefined;
  messageId: string;
  rating: FeedbackRating;
  comment?: string | null | undefined;
}

export interface RecordedFeedback {
  messageId: string;
  rating: FeedbackRating;
  comment: string | null;
  updatedAt: string;
}

/**
 * Records the reader's vote on an answer of their thread, replacing their earlier one. A vote sent again
 * unchanged (a retry) changes nothing, so it neither moves `updatedAt` nor reopens a resolved vote.
 * Throws `thread_not_found` as a follow-up would, and `not_found` when the thread has no such answer.
 */
export async function recordFeedback(storage: Storage, input: FeedbackInput): Promise<RecordedFeedback> {
  const thread = await requireThreadForFollowUp(storage, {
    threadId: input.threadId,
    siteId: input.site.id,
    fp: input.fp,
    threadKey: input.threadKey,
  });
  const noSuchAnswer = (cause?: unknown) =>
    new DomainError('not_found', 'No such answer in this thread', { cause });
  const now = nowIso();
  // Blank is none, whoever calls: so a stored comment is never '' (the upsert below relies on it).
  const comment = input.comment?.trim() || null;
  // The answer is found and the vote written in one unit, with the thread locked as storing an answer
  // locks it: a vote never lands on an answer a regenerate has just replaced (a vote no longer
  // references its answer row, so nothing else would refuse it).
  const { answerId, written } = await withWriteUnit(storage, {}, async (unit) => {
    if (!(await lockThreadWithin(unit, thread.id))) throw noSuchAnswer();
    const answer = await unit.db
      .selectFrom('thread_messages')
      .select('id')
      .where('id', '=', input.messageId)
      .where('thread_id', '=', thread.id)
      .where('role', '=', 'assistant')
      .executeTakeFirst();
    if (!answer) throw noSuchAnswer();
    let row: (Pick<RecordedFeedback, 'rating' | 'comment'> & { updated_at: string }) | undefined;
    try {
      row = await unit.db
        .insertInto('message_feedback')
        .values({
          message_id: answer.id,
          fp: input.fp,
          thread_id: thread.id,
          site_id: thread.site_id,
          organization_id: thread.organization_id,
          rating: input.rating,
          comment,
          created_at: now,
          updated_at: now,
          resolved_at: null,
        })
        .onConflict((oc) =>
          oc
            .columns(['message_id', 'fp'])
            .doUpdateSet({ rating: input.rating, comment, updated_at: now, resolved_at: null })
            // Only a changed vote is written; coalescing to '' compares null-safely on both dialects.
            .where((eb) =>
              eb.or([
                eb('message_feedback.rating', '<>', input.rating),
                eb(eb.fn.coalesce('message_feedback.comment', eb.val('')), '<>', comment ?? ''),
              ]),
            ),
        )
        .returning(['rating', 'comment', 'updated_at'])
        .executeTakeFirst();
    } catch (error) {
      // The thread was deleted since it was found.
      if (isForeignKeyViolation(error)) throw noSuchAnswer(error);
      throw error;
    }
    const recorded: RecordedFeedback | undefined = row
      ? { messageId: answer.id, rating: row.rating, comment: row.comment, updatedAt: row.updated_at }
      : undefined;
    return { answerId: answer.id, written: recorded };
  });
  if (written) return written;
  // The same vote again: nothing was written, so read back the one stored.
  const stored = await storage.db
    .selectFrom('message_feedback')
    .select(['rating', 'comment', 'updated_at'])
    .where('message_id', '=', answerId)
    .where('fp', '=', input.fp)
    .executeTakeFirst();
  if (!stored) throw noSuchAnswer();
  return {
    messageId: answerId,
    rating: stored.rating,
    comment: stored.comment,
    updatedAt: stored.updated_at,
  };
}

export interface MessageFeedback {
  fp: string;
  rating: FeedbackRating;
  comment: string | null;
  createdAt: string;
  updatedAt: string;
  resolvedAt: string | null;
  /**
   * The vote was on an earlier answer to the same question, since regenerated: that answer's text (the
   * vote is listed under the answer now in its place, but was not given to it). Null otherwise.
   */
  regeneratedAnswer: string | null;
}

/**
 * Every vote on the answers of a thread, by answer id, oldest first; one query for the whole thread.
 * Votes on answers since regenerated are listed under the answer now in their place.
 */
export async function listThreadFeedback(
  storage: Storage,
  threadId: string,
): Promise<Map<string, MessageFeedback[]>> {
  const rows = await storage.db
    .selectFrom('message_feedback')
    .select([
      'message_id',
      'fp',
      'rating',
      'comment',
      'created_at',
      'updated_at',
      'resolved_at',
      'replaced_by',
      'replaced_answer',
    ])
    .where('thread_id', '=', threadId)
    .orderBy('created_at')
    .orderBy('fp')
    .execute();
  const byMessage = new Map<string, MessageFeedback[]>();
  for (const row of rows) {
    const answerId = row.replaced_by ?? row.message_id;
    const votes = byMessage.get(answerId) ?? [];
    votes.push({
      fp: row.fp,
      rating: row.rating,
      comment: row.comment,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      resolvedAt: row.resolved_at,
      regeneratedAnswer:
        row.replaced_by === null || row.replaced_by === undefined ? null : (row.replaced_answer ?? ''),
    });
    byMessage.set(answerId, votes);
  }
  return byMessage;
}
