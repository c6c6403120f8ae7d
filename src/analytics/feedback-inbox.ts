/**
 * The feedback inbox: readers' votes on answers (newest change first) with the question, the answer and
 * the reader's comment, and marking one dealt with. Readers are shown by `fpHash` only; a vote is named
 * by its answer's id and that hash. A vote on an answer since regenerated is listed with that answer's
 * text, beside the question it answered (through the answer now in its place, `replaced_by`).
 */
import { sql } from 'kysely';
import { DomainError } from '../errors/domain-error.ts';
import type { Storage } from '../storage/database.ts';
import { nowIso } from '../storage/ids.ts';
import type { FeedbackRating } from '../storage/schema.ts';
import type { AnalyticsFilter } from './analytics-filter.ts';
import {
  decodeCursor,
  encodeCursor,
  fpHash,
  inList,
  questionConditions,
  siteIdsOf,
} from './question-scope.ts';

/** Most votes one page lists. */
export const MAX_FEEDBACK_PAGE = 100;
/** Votes of one (time, answer) pair a cursor may say were listed: more is not a cursor we gave out. */
const MAX_TIED_VOTES = 10_000;

export interface FeedbackItem {
  messageId: string;
  threadId: string;
  site: string;
  fpHash: string;
  rating: FeedbackRating;
  comment: string | null;
  /** The question the answer answered ('' when its thread has none before it). */
  question: string;
  answer: string;
  /**
   * The answer voted on was regenerated: `answer` is its text as the reader saw it (kept with the vote),
   * and the question's current answer is another.
   */
  regenerated: boolean;
  createdAt: string;
  updatedAt: string;
  resolvedAt: string | null;
}

export type FeedbackFilter = AnalyticsFilter & {
  /** Only votes marked resolved (true) or not (false); both when absent. */
  resolved?: boolean | undefined;
};

/**
 * Votes changed in the range, newest first. `feedback` filters the vote's rating (`none` lists nothing:
 * every vote has one); the other filters apply to the question and its answer.
 */
export async function listFeedback(
  storage: Storage,
  organizationId: string,
  filter: FeedbackFilter,
  page: { cursor?: string | undefined; limit: number },
): Promise<{ items: FeedbackItem[]; nextCursor: string | null }> {
  return feedbackPage(storage, organizationId, filter, page, MAX_FEEDBACK_PAGE);
}

/** `listFeedback` with its own cap: the export reads in larger batches. */
export async function feedbackPage(
  storage: Storage,
  organizationId: string,
  filter: FeedbackFilter,
  page: { cursor?: string | undefined; limit: number },
  maxLimit: number,
): Promise<{ items: FeedbackItem[]; nextCursor: string | null }> {
  const limit = Math.max(1, Math.min(page.limit, maxLimit));
  if (filter.feedback === 'none') return { items: [], nextCursor: null };
  // The sort key is (updated_at, answer id, fingerprint); a cursor must not carry a raw fingerprint, so
  // it holds the first two and how many votes of that pair were already listed (ties are rare and few).
  const after =
    page.cursor === undefined
      ? undefined
      : decodeCursor(page.cursor, ['string', 'string', 'number'] as const);
  const siteIds = await siteIdsOf(storage, organizationId, filter);
  const skip = after === undefined ? 0 : Math.max(0, Math.floor(after[2]));
  if (skip > MAX_TIED_VOTES)
    throw new DomainError('invalid_input', 'The cursor is not one this listing gave out');
  const { feedback, ...questionFilter } = filter;
  const rows = await sql<{
    message_id: string;
    thread_id: string;
    domain: string;
    fp: string;
    rating: FeedbackRating;
    comment: string | null;
    created_at: string;
    updated_at: string;
    resolved_at: string | null;
    question: string | null;
    answer: string;
    regenerated: unknown;
  }>`
    select f.message_id, f.thread_id, s.domain, f.fp, f.rating, f.comment, f.created_at, f.updated_at,
      f.resolved_at, q.content as question, coalesce(f.replaced_answer, a.content) as answer,
      case when f.replaced_by is null then 0 else 1 end as regenerated
    from message_feedback f
    join thread_messages a on a.id = coalesce(f.replaced_by, f.message_id)
    join threads t on t.id = f.thread_id
    join sites s on s.id = t.site_id
    left join thread_messages q on q.thread_id = a.thread_id and q.seq = a.seq - 1 and q.role = 'user'
    where f.organization_id = ${organizationId} and t.organization_id = ${organizationId}
      and ${inList(sql`f.site_id`, siteIds)}
      and f.updated_at >= ${filter.from} and f.updated_at < ${filter.to}
      ${feedback === 'up' || feedback === 'down' ? sql`and f.rating = ${feedback}` : sql``}
      ${filter.resolved === undefined ? sql`` : filter.resolved ? sql`and f.resolved_at is not null` : sql`and f.resolved_at is null`}
      ${questionConditions(questionFilter)}
      ${after === undefined ? sql`` : sql`and (f.updated_at < ${after[0]} or (f.updated_at = ${after[0]} and f.message_id <= ${after[1]}))`}
    order by f.updated_at desc, f.message_id desc, f.fp desc
    limit ${limit + skip + 1}`.execute(storage.db);
  // Drop the votes of the cursor's (time, answer) pair that earlier pages listed.
  let dropped = 0;
  const fresh = rows.rows.filter((row) => {
    if (after === undefined || dropped >= skip) return true;
    if (row.updated_at === after[0] && row.message_id === after[1]) {
      dropped++;
      return false;
    }
    return true;
  });
  const listed = fresh.slice(0, limit);
  const items = listed.map(
    (row): FeedbackItem => ({
      messageId: row.message_id,
      threadId: row.thread_id,
      site: row.domain,
      fpHash: fpHash(row.fp),
      rating: row.rating,
      comment: row.comment,
      question: row.question ?? '',
      answer: row.answer,
      regenerated: Number(row.regenerated) === 1,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      resolvedAt: row.resolved_at,
    }),
  );
  const last = listed.at(-1);
  let nextCursor: string | null = null;
  if (fresh.length > limit && last !== undefined) {
    // Votes of the last item's pair listed so far: on this page, plus those skipped when the cursor's pair is it.
    let same = listed.filter(
      (r) => r.updated_at === last.updated_at && r.message_id === last.message_id,
    ).length;
    if (after !== undefined && after[0] === last.updated_at && after[1] === last.message_id) same += skip;
    nextCursor = encodeCursor([last.updated_at, last.message_id, same]);
  }
  return { items, nextCursor };
}

/**
 * Marks one of the organization's votes resolved (keeping when it first was) or open again. The vote is
 * named by its answer and the reader's `fpHash`; returns false when the organization has no such vote.
 */
export async function resolveFeedback(
  storage: Storage,
  organizationId: string,
  input: { messageId: string; fpHash: string; resolved: boolean },
): Promise<boolean> {
  const votes = await storage.db
    .selectFrom('message_feedback')
    .select('fp')
    .where('message_id', '=', input.messageId)
    .where('organization_id', '=', organizationId)
    .execute();
  const vote = votes.find((v) => fpHash(v.fp) === input.fpHash);
  if (vote === undefined) return false;
  await storage.db
    .updateTable('message_feedback')
    .set((eb) => ({
      resolved_at: input.resolved ? eb.fn.coalesce('resolved_at', eb.val(nowIso())) : null,
    }))
    .where('message_id', '=', input.messageId)
    .where('fp', '=', vote.fp)
    .where('organization_id', '=', organizationId)
    .execute();
  return true;
}
