/**
 * The SQL every analytics query shares: the questions an `AnalyticsFilter` selects, each beside its
 * answer (the thread's next message), in one organization. Written with Kysely's `sql` tag rather than
 * its typed builder: the queries join a table to itself and aggregate, which the typed builder spells
 * at length, while `sql` still binds every value as a parameter on both dialects.
 *
 * Aliases: `q` the question, `a` its answer (null while it is being written), `t` the thread.
 */
import crypto from 'node:crypto';
import { type RawBuilder, sql } from 'kysely';
import { DomainError } from '../errors/domain-error.ts';
import type { DialectName, Storage } from '../storage/database.ts';
import type { AnalyticsFilter } from './analytics-filter.ts';

/**
 * 1 when the answer answered, else 0. Answers stored before the rule existed (null) count as answered
 * unless empty; a question without an answer yet counts as not answered.
 */
export const ANSWERED = sql<number>`(case when a.id is null then 0 when a.answered is not null then a.answered when a.content = '' then 0 else 1 end)`;

/** The same for an answer row aliased `m` (a thread's answers, without their questions). */
export const MESSAGE_ANSWERED = sql<number>`(case when m.answered is not null then m.answered when m.content = '' then 0 else 1 end)`;

/**
 * How many votes of `rating` the answer `a` has (0 without an answer), as a subquery per answer: it
 * reads the votes by the primary key (and `replaced_by`'s index). A `left join` of the organization's
 * votes summed once took seconds on SQLite on a busy site (no index on the summed rows: every question
 * scanned them all; 3.3 s for 6,400 questions of a 30-day overview, 22 s for a year), and naming the
 * organization here makes SQLite read by the organization's index instead; the answer's thread is the
 * organization's already. With `replaced`, votes on answers since regenerated count with the answer
 * now in their place, so a question's votes are all its reader gave, whichever answer; without, only
 * votes on the answers stored now (what a page's cited answers got).
 */
export function votesOnAnswer(rating: 'up' | 'down', options: { replaced: boolean }): RawBuilder<number> {
  const onAnswer = options.replaced
    ? sql`((f.message_id = a.id and f.replaced_by is null) or f.replaced_by = a.id)`
    : sql`f.message_id = a.id and f.replaced_by is null`;
  return sql<number>`(select count(*) from message_feedback f where f.rating = ${rating} and ${onAnswer})`;
}

/**
 * The votes on each answer `a` of a question scope: `up` and `down` to select, and a `join` to add to
 * `questionsFrom`. Each database has its own fastest plan (`npm run bench:console`, 100,000 messages):
 * SQLite reads each answer's votes by index (`votesOnAnswer`; the summed join took 5.2 s for a 30-day
 * overview), while PostgreSQL hash-joins the organization's votes summed once (the subqueries per
 * answer doubled its 30-day overview, 230 → 449 ms p50).
 */
export function answerVotes(
  dialect: DialectName,
  organizationId: string,
  options: { replaced: boolean },
): { up: RawBuilder<unknown>; down: RawBuilder<unknown>; join: RawBuilder<unknown> } {
  if (dialect === 'sqlite')
    return { up: votesOnAnswer('up', options), down: votesOnAnswer('down', options), join: sql`` };
  const answer = options.replaced ? sql`coalesce(replaced_by, message_id)` : sql`message_id`;
  return {
    up: sql`fb.up`,
    down: sql`fb.down`,
    join: sql`left join (
      select ${answer} as message_id,
        sum(case when rating = 'up' then 1 else 0 end) as up,
        sum(case when rating = 'down' then 1 else 0 end) as down
      from message_feedback where organization_id = ${organizationId}
        ${options.replaced ? sql`` : sql`and replaced_by is null`}
      group by ${answer}
    ) fb on fb.message_id = a.id`,
  };
}

/** The site ids the filter's `site` names in this organization: all when absent, none when it is not theirs. */
export async function siteIdsOf(
  storage: Storage,
  organizationId: string,
  filter: Pick<AnalyticsFilter, 'site'>,
): Promise<string[]> {
  let query = storage.db.selectFrom('sites').select('id').where('organization_id', '=', organizationId);
  if (filter.site !== undefined) query = query.where('domain', '=', filter.site);
  return (await query.orderBy('id').execute()).map((row) => row.id);
}

/** `column in (…)`; an empty list is false (SQL has no empty `in ()`). */
export function inList(column: RawBuilder<unknown>, values: readonly string[]): RawBuilder<unknown> {
  if (values.length === 0) return sql`1 = 0`;
  return sql`${column} in (${sql.join(values.map((v) => sql`${v}`))})`;
}

/**
 * `from … where …` of the questions the filter selects, with `a` joined. `siteIds` from `siteIdsOf`.
 * `joins` are added before the `where` (a query's own aggregates).
 */
export function questionsFrom(
  organizationId: string,
  siteIds: readonly string[] | null,
  filter: AnalyticsFilter,
  joins: RawBuilder<unknown> = sql``,
): RawBuilder<unknown> {
  return sql`from thread_messages q
    join threads t on t.id = q.thread_id
    left join thread_messages a on a.thread_id = q.thread_id and a.seq = q.seq + 1 and a.role = 'assistant'
    ${joins}
    where q.role = 'user' and t.organization_id = ${organizationId}
      and t.updated_at >= ${activeSince(filter.from)}
      and q.created_at >= ${filter.from} and q.created_at < ${filter.to}
      ${siteIds === null ? sql`` : sql`and ${inList(sql`t.site_id`, siteIds)}`}
      ${questionConditions(filter)}`;
}

/**
 * Slack of `activeSince`: a new thread's `updated_at` is written a moment before its first question's
 * `created_at` (two clock reads in one transaction).
 */
const THREAD_CLOCK_SLACK_MS = 60_000;

/**
 * A thread with a question asked at or after `from` was last active at or after it too (`updated_at` is
 * its last question's time), give or take `THREAD_CLOCK_SLACK_MS`. Redundant as a condition, but it lets
 * both databases start from the threads index (organization, updated_at) and read only recent threads.
 */
export function activeSince(from: string): string {
  return new Date(Date.parse(from) - THREAD_CLOCK_SLACK_MS).toISOString();
}

/** The filter's conditions on a question `q` and its answer `a` (the range and site aside), each `and …`. */
export function questionConditions(filter: AnalyticsFilter): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  if (filter.page !== undefined) {
    // As typed, as the page id questions are stored with (no slashes around it), and as a URL path, how
    // questions stored before page ids kept what the widget sent.
    const id = filter.page.replace(/^\/+|\/+$/g, '');
    parts.push(sql`and q.current_path in (${filter.page}, ${id}, ${`/${id}`})`);
  }
  if (filter.version !== undefined) parts.push(sql`and q.filter_version = ${filter.version}`);
  if (filter.language !== undefined) parts.push(sql`and q.filter_language = ${filter.language}`);
  // Words, each anywhere in the question and in any order ("docs ingest" finds "ingest my docs"). The
  // database lowercases the words as it lowercases the question: PostgreSQL's lower() is not
  // JavaScript's ("İ" is "i" there, "i̇" here), and lowercased here the words missed the text they copy.
  for (const word of filter.q?.split(/\s+/u) ?? [])
    if (word !== '') parts.push(sql`and lower(q.content) like lower(${`%${escapeLike(word)}%`}) escape '\\'`);
  if (filter.answered !== undefined)
    parts.push(sql`and ${ANSWERED} = ${filter.answered === 'answered' ? 1 : 0}`);
  if (filter.feedback !== undefined) {
    const rating =
      filter.feedback === 'up' || filter.feedback === 'down' ? sql`and f.rating = ${filter.feedback}` : sql``;
    const voted = sql`exists (select 1 from message_feedback f where (f.message_id = a.id or f.replaced_by = a.id) ${rating})`;
    parts.push(filter.feedback === 'none' ? sql`and not ${voted}` : sql`and ${voted}`);
  }
  return sql.join(parts, sql` `);
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A number a JSON text column holds at `key` (`timings.firstTokenMs`), null when absent. */
export function jsonNumber(
  dialect: DialectName,
  column: RawBuilder<unknown>,
  key: string,
): RawBuilder<number | null> {
  return dialect === 'postgres'
    ? sql<number | null>`((${column})::json ->> ${sql.lit(key)})::float8`
    : sql<number | null>`json_extract(${column}, ${sql.lit(`$.${key}`)})`;
}

/** Counts and sums come back as strings from PostgreSQL (bigint, numeric). */
export function num(value: unknown): number {
  const n = Number(value ?? 0);
  return Number.isFinite(n) ? n : 0;
}

/** What the console shows instead of a reader's fingerprint: stable, short, not reversible at a glance. */
export function fpHash(fp: string): string {
  return crypto.createHash('sha256').update(fp).digest('hex').slice(0, FP_HASH_CHARS);
}

/** Hex characters of `fpHash`: 48 bits, enough to tell a site's readers apart. */
export const FP_HASH_CHARS = 12;

/** Cursor characters accepted: a sort key of a timestamp and a few ids, base64url. */
export const MAX_CURSOR_CHARS = 512;

/** An opaque page cursor: the last item's sort key, base64url JSON. */
export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The sort key a cursor holds, checked against the kinds it must have; `invalid_input` otherwise. */
export function decodeCursor<const K extends readonly ('string' | 'number')[]>(
  cursor: string,
  kinds: K,
): { [I in keyof K]: K[I] extends 'number' ? number : string } {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (
    !Array.isArray(value) ||
    value.length !== kinds.length ||
    value.some(
      (item, i) =>
        typeof item !== kinds[i] ||
        // The numbers are counts: PostgreSQL compares them with a bigint, which 1.5 or 1e308 is not.
        (typeof item === 'number' && !(Number.isSafeInteger(item) && item >= 0)) ||
        // No key this gives out holds one, and PostgreSQL text cannot.
        (typeof item === 'string' && item.includes('\u0000')),
    )
  ) {
    throw new DomainError('invalid_input', 'The cursor is not one this listing gave out');
  }
  return value as { [I in keyof K]: K[I] extends 'number' ? number : string };
}

/** Whether a cursor decodes at all (for the query schemas, which answer 400 before any use case runs). */
export function isCursor(cursor: string): boolean {
  try {
    return Array.isArray(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    return false;
  }
}
