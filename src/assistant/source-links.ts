import { linkableBaseUrl, pageUrl, publishedUrl, type SearchResult } from '../search/site-search.ts';
import type { Site } from '../tenancy/sites.ts';

/** Where Docent serves a site's pages itself (http/routes/page-view.ts), under its own address. */
export function pageViewBase(docentUrl: string, domain: string): string {
  return `${docentUrl.replace(/\/+$/, '')}/sites/${encodeURIComponent(domain)}/pages`;
}

/**
 * The absolute link a reader gets for a cited section: on the site's own docs when it has a base URL,
 * else on Docent's page view at `docentUrl` (`DOCENT_PUBLIC_URL`, else the address the request came to),
 * so every citation opens, in a widget on another origin too.
 */
export function sourceLinker(
  site: Pick<Site, 'domain' | 'base_url'>,
  docentUrl: string,
): (result: Pick<SearchResult, 'pagePath' | 'anchor'>) => string {
  const own = linkableBaseUrl(site.base_url);
  if (own !== null) return (result) => publishedUrl(own, result.pagePath, result.anchor);
  const view = pageViewBase(docentUrl, site.domain);
  return (result) => pageUrl(view, result.pagePath, result.anchor);
}
