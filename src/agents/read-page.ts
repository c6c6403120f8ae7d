import { renderPageMarkdown } from '../pages/page-markdown.ts';
import { readStoredPage } from '../pages/stored-page.ts';
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
  const path = normalizePagePath(requested);
  const page = path === '' ? undefined : await readStoredPage(storage, siteId, path);
  return page === undefined ? undefined : { path: page.path, content: renderPageMarkdown(page) };
}

/** `/guides/cli.mdx#install` → `guides/cli`; `/` → `index`. */
export function normalizePagePath(path: string): string {
  const bare = path
    .replace(/[?#].*$/, '')
    .replace(/^\/+|\/+$/g, '')
    .replace(/\.(mdx|md)$/i, '');
  return bare === '' && path.startsWith('/') ? 'index' : bare;
}
