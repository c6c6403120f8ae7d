/**
 * Which pages answers lean on: the pages the range's answers cited most (with readers' votes on those
 * answers), and the pages of the organization's sites no answer in the range cited. Citations are read
 * from each answer's stored sources with the database's own JSON functions, so nothing is parsed here.
 */
import { type RawBuilder, sql } from 'kysely';
import type { DialectName, Storage } from '../storage/database.ts';
import type { AnalyticsFilter } from './analytics-filter.ts';
import { num, questionsFrom, siteIdsOf, votesByAnswer } from './question-scope.ts';

/** Pages listed as most cited, and as never cited. */
export const MAX_CITED_PAGES = 100;
export const MAX_UNCITED_PAGES = 200;

export interface PageStats {
  mostCited: { site: string; path: string; title: string; citations: number; up: number; down: number }[];
  neverCited: { site: string; path: string; title: string }[];
}

/** The join giving one row (`e`) per source of answer `a`, and the cited page path of that row. */
function eachSource(dialect: DialectName): { join: RawBuilder<unknown>; path: RawBuilder<unknown> } {
  return dialect === 'postgres'
    ? { join: sql`cross join lateral json_array_elements(a.sources::json) e`, path: sql`e.value ->> 'path'` }
    : { join: sql`join json_each(a.sources) e`, path: sql`json_extract(e.value, '$.path')` };
}

export async function pageStats(
  storage: Storage,
  organizationId: string,
  filter: AnalyticsFilter,
): Promise<PageStats> {
  const siteIds = await siteIdsOf(storage, organizationId, filter);
  if (siteIds.length === 0) return { mostCited: [], neverCited: [] };
  // Each cited page counts once per answer, however many of its sections the answer cited.
  const source = eachSource(storage.dialect);
  const cited = await sql<{
    site_id: string;
    domain: string;
    path: string;
    citations: unknown;
    up: unknown;
    down: unknown;
  }>`
    select c.site_id, c.domain, c.path, count(*) as citations,
      sum(coalesce(fb.up, 0)) as up, sum(coalesce(fb.down, 0)) as down
    from (
      select distinct t.site_id, s.domain, ${source.path} as path, a.id as answer_id
      ${questionsFrom(organizationId, siteIds, filter, sql`join sites s on s.id = t.site_id ${source.join}`)} and a.sources <> '[]'
    ) c
    ${votesByAnswer(organizationId, sql`c.answer_id`)}
    where c.path is not null
    group by c.site_id, c.domain, c.path
    order by count(*) desc, c.domain, c.path`.execute(storage.db);

  const titles = await storage.db
    .selectFrom('pages')
    .innerJoin('sites', 'sites.id', 'pages.site_id')
    .select(['pages.site_id', 'pages.path', 'pages.title', 'sites.domain'])
    .where('pages.site_id', 'in', siteIds)
    .orderBy('sites.domain')
    .orderBy('pages.path')
    .execute();
  const titleOf = new Map(titles.map((p) => [`${p.site_id}\u0000${p.path}`, p.title]));
  const citedKeys = new Set(cited.rows.map((row) => `${row.site_id}\u0000${row.path}`));

  return {
    mostCited: cited.rows.slice(0, MAX_CITED_PAGES).map((row) => ({
      site: row.domain,
      path: row.path,
      // A page removed since it was cited keeps its path as its title.
      title: titleOf.get(`${row.site_id}\u0000${row.path}`) ?? row.path,
      citations: num(row.citations),
      up: num(row.up),
      down: num(row.down),
    })),
    neverCited: titles
      .filter((p) => !citedKeys.has(`${p.site_id}\u0000${p.path}`))
      .slice(0, MAX_UNCITED_PAGES)
      .map((p) => ({ site: p.domain, path: p.path, title: p.title })),
  };
}
