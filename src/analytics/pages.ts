/**
 * Which pages answers lean on: the pages the range's answers cited most (with readers' votes on those
 * answers), and the pages of the organization's sites no answer in the range cited.
 */
import { sql } from 'kysely';
import type { Storage } from '../storage/database.ts';
import type { AnalyticsFilter } from './analytics-filter.ts';
import { answerVotes, num, questionsFrom, siteIdsOf } from './question-scope.ts';

/** Pages listed as most cited, and as never cited. */
export const MAX_CITED_PAGES = 100;
export const MAX_UNCITED_PAGES = 200;

export interface PageStats {
  mostCited: { site: string; path: string; title: string; citations: number; up: number; down: number }[];
  /** The first `MAX_UNCITED_PAGES` of them, by site and path. */
  neverCited: { site: string; path: string; title: string }[];
  /** How many pages no answer in the range cited, all of them (a large site has more than are listed). */
  neverCitedTotal: number;
}

export async function pageStats(
  storage: Storage,
  organizationId: string,
  filter: AnalyticsFilter,
): Promise<PageStats> {
  const siteIds = await siteIdsOf(storage, organizationId, filter);
  if (siteIds.length === 0) return { mostCited: [], neverCited: [], neverCitedTotal: 0 };
  const votes = answerVotes(storage.dialect, organizationId, { replaced: false });
  // The answers' stored sources, parsed here: measured faster than the databases' own JSON functions
  // (json_each, json_array_elements) on both, and the same code for both.
  const answers = await sql<{ site_id: string; sources: string; up: unknown; down: unknown }>`
    select t.site_id, a.sources, ${votes.up} as up, ${votes.down} as down
    ${questionsFrom(organizationId, siteIds, filter, votes.join)}
      and a.sources <> '[]'`.execute(storage.db);
  const cited = new Map<
    string,
    { siteId: string; path: string; citations: number; up: number; down: number }
  >();
  for (const answer of answers.rows) {
    // Each cited page counts once per answer, however many of its sections the answer cited.
    for (const path of new Set(citedPaths(answer.sources))) {
      const key = `${answer.site_id}\u0000${path}`;
      const page = cited.get(key) ?? { siteId: answer.site_id, path, citations: 0, up: 0, down: 0 };
      page.citations += 1;
      page.up += num(answer.up);
      page.down += num(answer.down);
      cited.set(key, page);
    }
  }

  const titles = await storage.db
    .selectFrom('pages')
    .innerJoin('sites', 'sites.id', 'pages.site_id')
    .select(['pages.site_id', 'pages.path', 'pages.title', 'sites.domain'])
    .where('pages.site_id', 'in', siteIds)
    .orderBy('sites.domain')
    .orderBy('pages.path')
    .execute();
  const titleOf = new Map(titles.map((p) => [`${p.site_id}\u0000${p.path}`, p.title]));
  const domainOf = new Map(
    (await storage.db.selectFrom('sites').select(['id', 'domain']).where('id', 'in', siteIds).execute()).map(
      (site) => [site.id, site.domain],
    ),
  );
  const mostCited = [...cited.entries()]
    .map(([key, page]) => ({
      site: domainOf.get(page.siteId) ?? '',
      path: page.path,
      // A page removed since it was cited keeps its path as its title.
      title: titleOf.get(key) ?? page.path,
      citations: page.citations,
      up: page.up,
      down: page.down,
    }))
    .sort((a, b) => b.citations - a.citations || compare(a.site, b.site) || compare(a.path, b.path));
  const neverCited = titles.filter((p) => !cited.has(`${p.site_id}\u0000${p.path}`));
  return {
    mostCited: mostCited.slice(0, MAX_CITED_PAGES),
    neverCited: neverCited
      .slice(0, MAX_UNCITED_PAGES)
      .map((p) => ({ site: p.domain, path: p.path, title: p.title })),
    neverCitedTotal: neverCited.length,
  };
}

/** The page paths an answer's stored sources (`[{id, url, title, path}]`) cite, in order. */
function citedPaths(sources: string): string[] {
  try {
    const list = JSON.parse(sources) as unknown;
    if (!Array.isArray(list)) return [];
    return list
      .map((s) => (s as { path?: unknown } | null)?.path)
      .filter((p): p is string => typeof p === 'string');
  } catch {
    return [];
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
