import { renderPageMarkdown } from '../pages/page-markdown.ts';
import { readStoredPages } from '../pages/stored-page.ts';
import type { Storage } from '../storage/database.ts';

/** Longest page path looked up. */
export const MAX_PAGE_PATH_CHARS = 1_000;

export interface PageMarkdown {
  path: string;
  /** The page as Markdown (pages/page-markdown.ts). */
  content: string;
}

/**
 * A page by the path a caller has (`guides/cli`, `/guides/cli`, `guides/cli.mdx`, a search result's
 * path): undefined when the site has no such page.
 */
export async function readPageMarkdown(
  storage: Storage,
  siteId: string,
  requested: string,
): Promise<PageMarkdown | undefined> {
  if (requested.length > MAX_PAGE_PATH_CHARS || requested.includes('\u0000')) return undefined;
  // `?` and `#` are read as a URL's query and anchor only last: a page's own path may hold them (an
  // OpenAPI summary, a file named so), and search gives it as it is.
  const candidates = [
    ...new Set([withoutSlashesAndExtension(requested), requested, normalizePagePath(requested)]),
  ].filter((path) => path !== '');
  const pages = await readStoredPages(storage.db, siteId, candidates);
  const page = candidates.map((path) => pages.get(path)).find((found) => found !== undefined);
  return page === undefined ? undefined : { path: page.path, content: renderPageMarkdown(page) };
}

/** `/a#b.md/` → `a#b`: the forms a path is written in, without reading `?` or `#` as a URL's. */
function withoutSlashesAndExtension(path: string): string {
  return path.replace(/^\/+|\/+$/g, '').replace(/\.(mdx|md)$/i, '');
}

/** `/guides/cli.mdx#install` → `guides/cli`; `/` → `index`. */
export function normalizePagePath(path: string): string {
  const bare = path
    .replace(/[?#].*$/, '')
    .replace(/^\/+|\/+$/g, '')
    .replace(/\.(mdx|md)$/i, '');
  return bare === '' && path.startsWith('/') ? 'index' : bare;
}
