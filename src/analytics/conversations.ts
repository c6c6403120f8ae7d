/**
 * The console's conversation list: an organization's threads with a question asked in the range that
 * matches the filter, most recently active first, each summarised (its first question, where it
 * was asked, how many answers did not answer, votes). And deleting one.
 */
import { sql } from 'kysely';
import type { Storage } from '../storage/database.ts';
import type { AnalyticsFilter } from './analytics-filter.ts';
import { relabelGroups } from './question-groups-upkeep.ts';
import {
  activeSince,
  decodeCursor,
  encodeCursor,
  fpHash,
  inList,
  MESSAGE_ANSWERED,
  num,
  questionConditions,
  siteIdsOf,
} from './question-scope.ts';

/** Most conversations one page lists. */
export const MAX_CONVERSATIONS_PAGE = 100;

export interface ConversationSummary {
  threadId: string;
  site: string;
  fpHash: string;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
  firstQuestion: string;
  /** Answers of the thread that did not answer. */
  unanswered: number;
  feedbackUp: number;
  feedbackDown: number;
  /** Where and how the first question was asked. */
  page: string | null;
  version: string | null;
  language: string | null;
}

export async function listConversations(
  storage: Storage,
  organizationId: string,
  filter: AnalyticsFilter,
  page: { cursor?: string | undefined; limit: number },
): Promise<{ items: ConversationSummary[]; nextCursor: string | null }> {
  const limit = Math.max(1, Math.min(page.limit, MAX_CONVERSATIONS_PAGE));
  const after =
    page.cursor === undefined ? undefined : decodeCursor(page.cursor, ['string', 'string'] as const);
  const siteIds = await siteIdsOf(storage, organizationId, filter);
  const rows = await sql<{
    id: string;
    domain: string;
    fp: string;
    created_at: string;
    updated_at: string;
    message_count: unknown;
    first_question: string | null;
    current_path: string | null;
    filter_version: string | null;
    filter_language: string | null;
    unanswered: unknown;
    up: unknown;
    down: unknown;
  }>`
    select t.id, s.domain, t.fp, t.created_at, t.updated_at,
      (select count(*) from thread_messages m where m.thread_id = t.id) as message_count,
      fq.content as first_question, fq.current_path, fq.filter_version, fq.filter_language,
      (select count(*) from thread_messages m
        where m.thread_id = t.id and m.role = 'assistant' and ${MESSAGE_ANSWERED} = 0) as unanswered,
      (select count(*) from message_feedback f where f.thread_id = t.id and f.rating = 'up') as up,
      (select count(*) from message_feedback f where f.thread_id = t.id and f.rating = 'down') as down
    ${threadsFrom(organizationId, siteIds, filter)}
      ${after === undefined ? sql`` : sql`and (t.updated_at < ${after[0]} or (t.updated_at = ${after[0]} and t.id < ${after[1]}))`}
    order by t.updated_at desc, t.id desc
    limit ${limit + 1}`.execute(storage.db);
  const items = rows.rows.slice(0, limit).map(
    (row): ConversationSummary => ({
      threadId: row.id,
      site: row.domain,
      fpHash: fpHash(row.fp),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      messageCount: num(row.message_count),
      firstQuestion: row.first_question ?? '',
      unanswered: num(row.unanswered),
      feedbackUp: num(row.up),
      feedbackDown: num(row.down),
      page: row.current_path,
      version: row.filter_version,
      language: row.filter_language,
    }),
  );
  const last = items.at(-1);
  return {
    items,
    nextCursor: rows.rows.length > limit && last ? encodeCursor([last.updatedAt, last.threadId]) : null,
  };
}

/**
 * `from … where …` of the organization's threads with a question asked in the range that matches the
 * filter (`t`, its site `s`, its first question `fq`). Shared with the export. The range applies to the
 * questions, as in every other analytics view: a thread asked on one day and followed up the next is
 * listed for both days, and a filter such as `answered=unanswered` matches only questions of the range.
 */
export function threadsFrom(organizationId: string, siteIds: readonly string[], filter: AnalyticsFilter) {
  return sql`from threads t
    join sites s on s.id = t.site_id
    left join thread_messages fq on fq.thread_id = t.id and fq.seq =
      (select min(m.seq) from thread_messages m where m.thread_id = t.id and m.role = 'user')
    where t.organization_id = ${organizationId} and ${inList(sql`t.site_id`, siteIds)}
      and t.updated_at >= ${activeSince(filter.from)}
      and exists (select 1 from thread_messages q
        left join thread_messages a on a.thread_id = q.thread_id and a.seq = q.seq + 1 and a.role = 'assistant'
        where q.thread_id = t.id and q.role = 'user'
          and q.created_at >= ${filter.from} and q.created_at < ${filter.to}
          ${questionConditions(filter)})`;
}

/**
 * Deletes one of the organization's threads with its messages and votes (another organization's is
 * never found). Groups that held its questions get their label from a question still stored, or go
 * when none is left. Returns whether there was such a thread.
 */
export async function deleteConversation(
  storage: Storage,
  organizationId: string,
  threadId: string,
): Promise<boolean> {
  return storage.db.transaction().execute(async (trx) => {
    const groups = await trx
      .selectFrom('thread_messages')
      .innerJoin('threads', 'threads.id', 'thread_messages.thread_id')
      .select('thread_messages.question_group_id')
      .distinct()
      .where('threads.id', '=', threadId)
      .where('threads.organization_id', '=', organizationId)
      .where('thread_messages.question_group_id', 'is not', null)
      .execute();
    const deleted = await trx
      .deleteFrom('threads')
      .where('id', '=', threadId)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    if (Number(deleted.numDeletedRows) === 0) return false;
    await relabelGroups(
      trx,
      groups.map((g) => g.question_group_id).filter((id): id is string => typeof id === 'string'),
    );
    return true;
  });
}
