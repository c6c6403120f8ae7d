/**
 * Coverage gaps and top questions: the range's questions counted per group (question-grouping.ts),
 * ordered by how many went unanswered ("gaps", groups with at least one) or by how many were asked
 * ("top"), each with a few example questions and the pages the site's search finds closest to it, so
 * an owner sees "12 people asked how to rotate keys; no page covers it".
 */
import { sql } from 'kysely';
import type { SiteSearch } from '../search/site-search.ts';
import type { Storage } from '../storage/database.ts';
import type { AnalyticsFilter } from './analytics-filter.ts';
import { ANSWERED, decodeCursor, encodeCursor, num, questionsFrom, siteIdsOf } from './question-scope.ts';

/** Most groups one page lists. */
export const MAX_GROUPS_PAGE = 50;
/** Example questions shown per group (the latest distinct ones in the range). */
export const MAX_GROUP_EXAMPLES = 3;
/** Closest pages shown per group. */
export const MAX_CLOSEST_PAGES = 3;
/** Chunks searched for them: several chunks of one page count once. */
const CLOSEST_PAGES_SEARCHED = 10;
/** Latest questions read per group to find distinct examples among. */
const EXAMPLE_ROWS_PER_GROUP = 10;

export interface QuestionGroup {
  groupId: string;
  /** The site the group belongs to (groups are per site). */
  site: string;
  /** The group's first question. */
  label: string;
  /** Questions of the group in the range (matching the filter). */
  count: number;
  unanswered: number;
  examples: string[];
  closestPages: { path: string; title: string }[];
}

export interface QuestionGroupsOptions {
  kind: 'gaps' | 'top';
  limit: number;
  cursor?: string | undefined;
  /** The site search, for each group's closest pages; without it they are left empty. */
  search?: SiteSearch | undefined;
}

export async function listQuestionGroups(
  storage: Storage,
  organizationId: string,
  filter: AnalyticsFilter,
  options: QuestionGroupsOptions,
): Promise<{ items: QuestionGroup[]; nextCursor: string | null }> {
  const limit = Math.max(1, Math.min(options.limit, MAX_GROUPS_PAGE));
  const gaps = options.kind === 'gaps';
  const after =
    options.cursor === undefined
      ? undefined
      : decodeCursor(options.cursor, ['number', 'number', 'string'] as const);
  const siteIds = await siteIdsOf(storage, organizationId, filter);
  const count = sql<number>`count(*)`;
  const unanswered = sql<number>`sum(1 - ${ANSWERED})`;
  // Gaps sort by unanswered then count, top questions by count then unanswered; the id breaks ties.
  const [first, second] = gaps ? [unanswered, count] : [count, unanswered];
  const keyset =
    after === undefined
      ? sql``
      : sql`and (${first} < ${after[0]} or (${first} = ${after[0]} and (${second} < ${after[1]}
          or (${second} = ${after[1]} and q.question_group_id < ${after[2]}))))`;
  const rows = await sql<{ group_id: string; count: unknown; unanswered: unknown }>`
    select q.question_group_id as group_id, ${count} as count, ${unanswered} as unanswered
    ${questionsFrom(organizationId, siteIds, filter)} and q.question_group_id is not null
    group by q.question_group_id
    having ${gaps ? sql`${unanswered} >= 1` : sql`1 = 1`} ${keyset}
    order by ${first} desc, ${second} desc, q.question_group_id desc
    limit ${limit + 1}`.execute(storage.db);
  const page = rows.rows.slice(0, limit);
  const ids = page.map((row) => row.group_id);

  const groups = new Map(
    (
      await storage.db
        .selectFrom('question_groups')
        .innerJoin('sites', 'sites.id', 'question_groups.site_id')
        .select(['question_groups.id', 'question_groups.label', 'question_groups.site_id', 'sites.domain'])
        .where('question_groups.id', 'in', ids.length > 0 ? ids : [''])
        .where('question_groups.organization_id', '=', organizationId)
        .execute()
    ).map((row) => [row.id, row]),
  );
  const examples = await examplesOf(storage, organizationId, siteIds, filter, ids);

  const items: QuestionGroup[] = [];
  for (const row of page) {
    const group = groups.get(row.group_id);
    const questions = examples.get(row.group_id) ?? [];
    // A group row deleted meanwhile (its last question went) still has this range's questions: shown by them.
    const label = group?.label ?? questions[0] ?? '';
    items.push({
      groupId: row.group_id,
      site: group?.domain ?? '',
      label,
      count: num(row.count),
      unanswered: num(row.unanswered),
      examples: questions,
      closestPages:
        group !== undefined && options.search !== undefined
          ? await closestPages(options.search, group.site_id, label)
          : [],
    });
  }
  const last = page.at(-1);
  const nextCursor =
    rows.rows.length > limit && last !== undefined
      ? encodeCursor(
          gaps
            ? [num(last.unanswered), num(last.count), last.group_id]
            : [num(last.count), num(last.unanswered), last.group_id],
        )
      : null;
  return { items, nextCursor };
}

/**
 * The latest distinct questions of each group in the range (the filter applies), newest first: one
 * small query per group, each read from the group's index (question_group_id, created_at) backwards.
 */
async function examplesOf(
  storage: Storage,
  organizationId: string,
  siteIds: readonly string[],
  filter: AnalyticsFilter,
  groupIds: readonly string[],
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const groupId of groupIds) {
    const rows = await sql<{ content: string }>`
      select q.content ${questionsFrom(organizationId, siteIds, filter)} and q.question_group_id = ${groupId}
      order by q.created_at desc, q.id desc
      limit ${EXAMPLE_ROWS_PER_GROUP}`.execute(storage.db);
    const list: string[] = [];
    for (const row of rows.rows) {
      if (list.length >= MAX_GROUP_EXAMPLES) break;
      const seen = list.some((q) => q.trim().toLowerCase() === row.content.trim().toLowerCase());
      if (!seen) list.push(row.content);
    }
    out.set(groupId, list);
  }
  return out;
}

/** The pages the site's search ranks first for the group's label, at most `MAX_CLOSEST_PAGES`. */
async function closestPages(
  search: SiteSearch,
  siteId: string,
  label: string,
): Promise<{ path: string; title: string }[]> {
  try {
    const results = await search.search(siteId, label, { limit: CLOSEST_PAGES_SEARCHED });
    const pages: { path: string; title: string }[] = [];
    for (const result of results) {
      if (pages.length >= MAX_CLOSEST_PAGES) break;
      if (!pages.some((p) => p.path === result.pagePath))
        pages.push({ path: result.pagePath, title: result.title });
    }
    return pages;
  } catch {
    // A site deleted meanwhile has no pages to offer; the group is still worth showing.
    return [];
  }
}
