import { Hono } from 'hono';
import { normalizePagePath } from '../../agents/read-page.ts';
import type { TrustProxy } from '../../config.ts';
import { type DemoPage, demoChrome } from '../../pages/demo-page.ts';
import { llmsTxtUrl } from '../../pages/llms-txt.ts';
import { renderPageMarkdown } from '../../pages/page-markdown.ts';
import { renderPageHtml } from '../../pages/render-page-html.ts';
import { readStoredPage, type StoredPage } from '../../pages/stored-page.ts';
import type { Storage } from '../../storage/database.ts';
import { publishesPages } from '../../tenancy/sites.ts';
import type { TenancyCache } from '../../tenancy/tenancy-cache.ts';
import type { AppEnv } from '../app-env.ts';
import { DocentError } from '../errors.ts';
import { requestOrigin } from '../request-origin.ts';

/** Longest page path looked up. */
export const MAX_PAGE_PATH_CHARS = 1_000;

const COMMON = {
  'Cache-Control': 'public, max-age=60',
  'X-Content-Type-Options': 'nosniff',
};
const HTML_HEADERS = {
  ...COMMON,
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
};
/** The demo site's pages run the widget: its script and its calls to this server. */
const DEMO_HTML_HEADERS = {
  ...HTML_HEADERS,
  'Cache-Control': 'no-cache',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'",
};
const MARKDOWN_HEADERS = {
  ...COMMON,
  'Content-Type': 'text/markdown; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; sandbox",
};

/**
 * `GET /sites/{domain}/pages/{path}`: the stored page, readable, where citations of a site without a
 * base URL of its own link. Public, for the sites that publish their pages (`publishesPages`); any
 * other site's pages are not found here. As Markdown at `{path}.md`, or when `Accept`
 * prefers `text/markdown`, for agents; both name the site's llms.txt in a `Link` header.
 */
export function pageViewRoute(deps: {
  storage: Storage;
  tenancy: TenancyCache;
  publicUrl: string | null;
  trustProxy: TrustProxy;
  /** The demo page, when the server runs one. */
  demo: DemoPage | null;
}): Hono<AppEnv> {
  const route = new Hono<AppEnv>();
  route.get('/sites/:domain/pages/:path{.+}', async (c) => {
    const path = c.req.param('path');
    const site = publishedSite(await deps.tenancy.siteByDomain(c.req.param('domain')));
    const valid = path.length <= MAX_PAGE_PATH_CHARS && !path.includes('\u0000');
    const found = site && valid ? await findPage(deps.storage, site.id, path) : undefined;
    if (site && valid && !found) {
      // `guides/cli/` or `guides/cli.mdx`, as a link or a reader may write it: the page's own URL.
      const canonical = normalizePagePath(path);
      if (canonical !== path && canonical !== '' && (await readStoredPage(deps.storage, site.id, canonical)))
        return c.redirect(
          `/sites/${encodeURIComponent(site.domain)}/pages/${encodePath(canonical)}${new URL(c.req.url).search}`,
          301,
        );
    }
    if (!site || !found) throw new DocentError('not_found', 'No such page');
    const { page, suffix } = found;
    const markdown = suffix || prefersMarkdown(c.req.header('Accept'));
    const docentUrl = deps.publicUrl ?? requestOrigin(c, deps.trustProxy);
    if (!markdown && deps.demo?.domain === site.domain) {
      const chrome = await demoChrome(deps.storage, site, deps.demo);
      const html = renderPageHtml(page, { pagesBase: chrome.pagesBase, chrome });
      // Appended: the links may have come from the request's address too (request-origin.ts).
      c.header('Vary', 'Accept', { append: true });
      return c.body(html, 200, {
        ...DEMO_HTML_HEADERS,
        Link: `<${llmsTxtUrl(docentUrl, site.domain)}>; rel="llms-txt"`,
      });
    }
    // Each representation its own tag: a cache revalidating one must not be told it holds the other.
    const etag = markdown ? `"${page.contentHash}.md"` : `"${page.contentHash}"`;
    const headers: Record<string, string> = {
      ETag: etag,
      Link: `<${llmsTxtUrl(docentUrl, site.domain)}>; rel="llms-txt"`,
      'Cache-Control': COMMON['Cache-Control'],
    };
    if (!suffix) c.header('Vary', 'Accept', { append: true });
    if (etagMatches(c.req.header('If-None-Match'), etag)) return c.body(null, 304, headers);
    const pagesBase = `${docentUrl}/sites/${encodeURIComponent(site.domain)}/pages/`;
    const body = markdown ? renderPageMarkdown(page) : renderPageHtml(page, { pagesBase });
    return c.body(body, 200, { ...(markdown ? MARKDOWN_HEADERS : HTML_HEADERS), ...headers });
  });
  return route;
}

/**
 * The site, when it publishes its pages; else the error a reader gets, which says why (the domain of a
 * site is no secret: its widget names it).
 */
export function publishedSite<S extends Parameters<typeof publishesPages>[0] & { domain: string }>(
  site: S | undefined,
): S | undefined {
  if (site === undefined || publishesPages(site)) return site;
  throw new DocentError(
    'not_found',
    `Site ${site.domain} does not publish its pages here: it has a base URL of its own and is not public`,
  );
}

/**
 * `guides/cli.md` is the page `guides/cli` as Markdown; a stored page whose path itself ends in `.md`
 * is found when no page has the path without it.
 */
async function findPage(
  storage: Storage,
  siteId: string,
  path: string,
): Promise<{ page: StoredPage; suffix: boolean } | undefined> {
  if (path.endsWith('.md') && path.length > 3) {
    const page = await readStoredPage(storage, siteId, path.slice(0, -3));
    if (page) return { page, suffix: true };
  }
  const page = await readStoredPage(storage, siteId, path);
  return page && { page, suffix: false };
}

/** Whether `If-None-Match` (a list of tags, weak or strong, or `*`) names `etag`. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

/**
 * Whether `Accept` ranks `text/markdown` above `text/html`. On equal quality, Markdown wins only when
 * named itself, before any `text/html` (`text/markdown, text/html`, as agents send it); a browser's
 * `text/html,…,*\/*;q=0.8` and a bare `*\/*` get HTML, the default.
 */
export function prefersMarkdown(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept.split(',').map((range, index) => {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    return { type, index, quality: Number.isFinite(quality) ? Math.min(1, Math.max(0, quality)) : 0 };
  });
  const markdown = rank(ranges, 'text/markdown');
  const html = rank(ranges, 'text/html');
  if (markdown.quality !== html.quality) return markdown.quality > html.quality;
  return markdown.quality > 0 && markdown.exact && (!html.exact || markdown.index < html.index);
}

/** The quality `type` gets from its most specific matching range (exact, then `text/*`, then `*\/*`). */
function rank(
  ranges: { type: string; index: number; quality: number }[],
  type: string,
): { quality: number; exact: boolean; index: number } {
  for (const candidate of [type, `${type.split('/')[0]}/*`, '*/*']) {
    const match = ranges.find((r) => r.type === candidate);
    if (match) return { quality: match.quality, exact: candidate === type, index: match.index };
  }
  return { quality: 0, exact: false, index: Number.POSITIVE_INFINITY };
}

/** A page path in a URL: each segment percent-encoded, the slashes kept. */
const encodePath = (path: string): string => path.split('/').map(encodeURIComponent).join('/');
