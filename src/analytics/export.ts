/**
 * Exports of conversations (one message per row) and of the feedback inbox (one vote per row), as CSV
 * or JSON Lines, read and written in batches: an export of a year of conversations never holds more
 * than a batch in memory, and the HTTP response streams as it is read.
 */
import { sql } from 'kysely';
import type { Storage } from '../storage/database.ts';
import type { AnalyticsFilter } from './analytics-filter.ts';
import { threadsFrom } from './conversations.ts';
import { type FeedbackFilter, type FeedbackItem, feedbackPage } from './feedback-inbox.ts';
import { fpHash, inList, jsonNumber, MESSAGE_ANSWERED, num, siteIdsOf } from './question-scope.ts';

export type ExportFormat = 'csv' | 'jsonl';

/** Threads read per batch of the conversation export (their messages come with them). */
export const EXPORT_THREAD_BATCH = 200;
/** Votes read per batch of the feedback export. */
export const EXPORT_FEEDBACK_BATCH = 500;

const CONVERSATION_COLUMNS = [
  'threadId',
  'site',
  'fpHash',
  'messageId',
  'seq',
  'role',
  'createdAt',
  'status',
  'content',
  'answered',
  'retrievalScore',
  'page',
  'version',
  'language',
  'questionGroupId',
  'sources',
  'firstTokenMs',
  'feedbackUp',
  'feedbackDown',
] as const;

type ConversationRow = Record<(typeof CONVERSATION_COLUMNS)[number], string | number | boolean | null>;

const FEEDBACK_COLUMNS = [
  'messageId',
  'threadId',
  'site',
  'fpHash',
  'rating',
  'comment',
  'question',
  'answer',
  'regenerated',
  'createdAt',
  'updatedAt',
  'resolvedAt',
] as const satisfies readonly (keyof FeedbackItem)[];

/**
 * The attachment's file name: what, the range's first and last day (UTC), the format. `to` is exclusive,
 * so its last day is the one holding the instant before it: `from=2026-11-01&to=2026-11-30` (which ends
 * at 1 December's start) is `conversations-2026-11-01-2026-11-30.csv`, not `…-2026-12-01.csv`.
 */
export function exportFileName(
  what: 'conversations' | 'feedback',
  filter: Pick<AnalyticsFilter, 'from' | 'to'>,
  format: ExportFormat,
): string {
  const first = filter.from.slice(0, 10);
  const last = new Date(Math.max(Date.parse(filter.from), Date.parse(filter.to) - 1))
    .toISOString()
    .slice(0, 10);
  return `${what}-${first}-${last}.${format}`;
}

/**
 * Starts a CSV file: without it Excel reads the UTF-8 as the Windows code page, and every question in
 * French, Chinese or Arabic shows as mojibake (`Ã©`). Spreadsheets and CSV parsers that know UTF-8 skip it.
 */
export const CSV_BOM = '\uFEFF';

/** Every message of the conversations `listConversations` would list, newest thread first, each in order. */
export async function* exportConversations(
  storage: Storage,
  organizationId: string,
  filter: AnalyticsFilter,
  format: ExportFormat,
): AsyncIterable<string> {
  if (format === 'csv') yield CSV_BOM + csvLine(CONVERSATION_COLUMNS);
  const siteIds = await siteIdsOf(storage, organizationId, filter);
  // Batches follow the threads' ids (their creation time, newest first; index threads_org_id_idx),
  // which never change: by last activity, as the list sorts, a thread a reader asks in again while
  // the export runs would move ahead of the batches already read, and be left out if not read yet.
  let after: string | undefined;
  for (;;) {
    const threads = await sql<{ id: string; domain: string; fp: string }>`
      select t.id, s.domain, t.fp
      ${threadsFrom(organizationId, siteIds, filter)}
        ${after === undefined ? sql`` : sql`and t.id < ${after}`}
      order by t.id desc
      limit ${EXPORT_THREAD_BATCH}`.execute(storage.db);
    if (threads.rows.length === 0) return;
    const ids = threads.rows.map((t) => t.id);
    const firstToken = jsonNumber(storage.dialect, sql`m.timings`, 'firstTokenMs');
    // Votes on the answer, and those kept from the answers it replaced (a regenerate): the listing, the
    // overview and the feedback filter count them with the question, so the export does too.
    const votedOn = sql`((f.message_id = m.id and f.replaced_by is null) or f.replaced_by = m.id)`;
    const messages = await sql<{
      id: string;
      thread_id: string;
      seq: unknown;
      role: string;
      created_at: string;
      status: string;
      content: string;
      answered: unknown;
      retrieval_score: unknown;
      current_path: string | null;
      filter_version: string | null;
      filter_language: string | null;
      question_group_id: string | null;
      sources: string;
      first_token_ms: unknown;
      up: unknown;
      down: unknown;
    }>`
      select m.id, m.thread_id, m.seq, m.role, m.created_at, m.status, m.content,
        case when m.role = 'assistant' then ${MESSAGE_ANSWERED} end as answered,
        m.retrieval_score, m.current_path, m.filter_version, m.filter_language, m.question_group_id, m.sources,
        ${firstToken} as first_token_ms,
        (select count(*) from message_feedback f where ${votedOn} and f.rating = 'up') as up,
        (select count(*) from message_feedback f where ${votedOn} and f.rating = 'down') as down
      from thread_messages m
      where ${inList(sql`m.thread_id`, ids)}
      order by m.thread_id, m.seq`.execute(storage.db);
    const byThread = new Map<string, typeof messages.rows>();
    for (const m of messages.rows) {
      const list = byThread.get(m.thread_id) ?? [];
      list.push(m);
      byThread.set(m.thread_id, list);
    }
    const lines: string[] = [];
    for (const thread of threads.rows) {
      for (const m of byThread.get(thread.id) ?? []) {
        const assistant = m.role === 'assistant';
        const row: ConversationRow = {
          threadId: thread.id,
          site: thread.domain,
          fpHash: fpHash(thread.fp),
          messageId: m.id,
          seq: num(m.seq),
          role: m.role,
          createdAt: m.created_at,
          status: m.status,
          content: m.content,
          answered: assistant ? num(m.answered) === 1 : null,
          retrievalScore: m.retrieval_score === null ? null : num(m.retrieval_score),
          page: m.current_path,
          version: m.filter_version,
          language: m.filter_language,
          questionGroupId: m.question_group_id,
          sources: assistant ? sourcePaths(m.sources) : null,
          firstTokenMs: m.first_token_ms === null ? null : num(m.first_token_ms),
          feedbackUp: assistant ? num(m.up) : null,
          feedbackDown: assistant ? num(m.down) : null,
        };
        lines.push(
          format === 'csv' ? csvLine(CONVERSATION_COLUMNS.map((c) => row[c])) : `${JSON.stringify(row)}\n`,
        );
      }
    }
    yield lines.join('');
    const last = threads.rows.at(-1);
    if (last === undefined || threads.rows.length < EXPORT_THREAD_BATCH) return;
    after = last.id;
  }
}

/** Every vote `listFeedback` would list, newest first. */
export async function* exportFeedback(
  storage: Storage,
  organizationId: string,
  filter: FeedbackFilter,
  format: ExportFormat,
): AsyncIterable<string> {
  if (format === 'csv') yield CSV_BOM + csvLine(FEEDBACK_COLUMNS);
  let cursor: string | undefined;
  for (;;) {
    const page = await feedbackPage(
      storage,
      organizationId,
      filter,
      { limit: EXPORT_FEEDBACK_BATCH, ...(cursor === undefined ? {} : { cursor }) },
      EXPORT_FEEDBACK_BATCH,
    );
    const lines = page.items.map((item) =>
      format === 'csv' ? csvLine(FEEDBACK_COLUMNS.map((c) => item[c])) : `${JSON.stringify(item)}\n`,
    );
    if (lines.length > 0) yield lines.join('');
    if (page.nextCursor === null) return;
    cursor = page.nextCursor;
  }
}

/** The cited pages of an answer's stored sources, space-separated, each once. */
function sourcePaths(sources: string): string {
  try {
    const list = JSON.parse(sources) as { path?: unknown }[];
    return [...new Set(list.map((s) => s.path).filter((p): p is string => typeof p === 'string'))].join(' ');
  } catch {
    return '';
  }
}

/**
 * One CSV record (RFC 4180: quoted when needed, quotes doubled, CRLF). A cell a spreadsheet would run as
 * a formula (`=`, `+`, `-`, `@`, tab, CR first) gets a leading `'`: readers write these cells, and an
 * export is opened in spreadsheets (OWASP's advice on CSV injection).
 */
export function csvLine(cells: readonly (string | number | boolean | null | undefined)[]): string {
  return `${cells
    .map((cell) => {
      if (cell === null || cell === undefined) return '';
      let text = String(cell);
      if (typeof cell === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
      return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replaceAll('"', '""')}"` : text;
    })
    .join(',')}\r\n`;
}
