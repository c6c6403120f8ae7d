import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';

/** A site's pages as its navigation lists them (llms.txt, the demo page's sidebar). */

/** Section of the pages no navigation lists, when others are in groups. */
export const OTHER_PAGES = 'Other pages';
/** Section of the pages the navigation lists outside any group, or of every page when none has one. */
export const UNGROUPED_PAGES = 'Pages';

export interface ListedPage {
  path: string;
  title: string;
  description: string | null;
  navOrder: number | null;
  navGroup: string | null;
}

/**
 * The pages grouped as the navigation lists them: sections in the order their first page comes in the
 * navigation (pages it lists outside any group, such as a home page, are a section of their own, where
 * they come), then the pages no navigation lists. Sections are named by group; with no group at all,
 * everything is one `Pages` section.
 */
export function sectionsOf(pages: ListedPage[]): { name: string; pages: ListedPage[] }[] {
  // Code-unit order, not the database's collation, so both dialects list pages alike; a folder's index
  // page before the pages in it, as the frameworks' own automatic navigation puts it.
  const key = (path: string) => (path === 'index' ? '' : path.endsWith('/index') ? path.slice(0, -5) : path);
  const byPath = (a: ListedPage, b: ListedPage) => {
    const [x, y] = [key(a.path), key(b.path)];
    return x < y ? -1 : x > y ? 1 : 0;
  };
  const listed = pages.filter((p) => p.navOrder !== null);
  listed.sort((a, b) => (a.navOrder ?? 0) - (b.navOrder ?? 0) || byPath(a, b));
  const unlisted = pages.filter((p) => p.navOrder === null).sort(byPath);
  const grouped = listed.some((page) => page.navGroup !== null);
  // One section per group name: versions and languages often repeat a group's name, and agents
  // expect each H2 once.
  const sections = new Map<string, ListedPage[]>();
  const add = (name: string, page: ListedPage) => {
    const section = sections.get(name);
    if (section) section.push(page);
    else sections.set(name, [page]);
  };
  for (const page of listed) add(grouped ? (page.navGroup ?? UNGROUPED_PAGES) : UNGROUPED_PAGES, page);
  for (const page of unlisted) add(grouped ? OTHER_PAGES : UNGROUPED_PAGES, page);
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
