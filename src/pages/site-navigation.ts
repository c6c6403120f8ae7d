import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';

/** A site's pages as its navigation lists them (llms.txt, the demo page's sidebar). */

/** Section of the pages the navigation does not put in a group; `Pages` when no page has a group. */
export const OTHER_PAGES = 'Other pages';

export interface ListedPage {
  path: string;
  title: string;
  description: string | null;
  navOrder: number | null;
  navGroup: string | null;
}

/** The pages grouped as the navigation lists them: groups in navigation order, then the rest. */
export function sectionsOf(pages: ListedPage[]): { name: string; pages: ListedPage[] }[] {
  // Code-unit order, not the database's collation, so both dialects list pages alike.
  const byPath = (a: ListedPage, b: ListedPage) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  const listed = pages.filter((p) => p.navOrder !== null);
  listed.sort((a, b) => (a.navOrder ?? 0) - (b.navOrder ?? 0) || byPath(a, b));
  const unlisted = pages.filter((p) => p.navOrder === null).sort(byPath);
  // One section per group name: versions and languages often repeat a group's name, and agents
  // expect each H2 once.
  const sections = new Map<string, ListedPage[]>();
  const rest: ListedPage[] = [];
  for (const page of listed) {
    if (page.navGroup === null) rest.push(page);
    else sections.set(page.navGroup, [...(sections.get(page.navGroup) ?? []), page]);
  }
  rest.push(...unlisted);
  if (rest.length > 0) {
    const name = sections.size === 0 ? 'Pages' : OTHER_PAGES;
    sections.set(name, [...(sections.get(name) ?? []), ...rest]);
  }
  return [...sections].map(([name, list]) => ({ name, pages: list }));
}

export async function listPages(db: Kysely<Database>, siteId: string): Promise<ListedPage[]> {
  const rows = await db
    .selectFrom('pages')
    .select(['path', 'title', 'description', 'nav_order', 'nav_group'])
    .where('site_id', '=', siteId)
    .execute();
  return rows.map((row) => ({
    path: row.path,
    title: row.title,
    description: row.description,
    navOrder: row.nav_order ?? null,
    navGroup: row.nav_group ?? null,
  }));
}
