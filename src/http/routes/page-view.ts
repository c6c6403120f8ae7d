import { Hono } from 'hono';
import { renderPageHtml } from '../../pages/render-page-html.ts';
import { readStoredPage } from '../../pages/stored-page.ts';
import type { Storage } from '../../storage/database.ts';
import type { TenancyCache } from '../../tenancy/tenancy-cache.ts';
import type { AppEnv } from '../app-env.ts';
import { DocentError } from '../errors.ts';

/** Longest page path looked up. */
export const MAX_PAGE_PATH_CHARS = 1_000;

const HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'public, max-age=60',
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
};

/**
 * `GET /sites/{domain}/pages/{path}`: the stored page, readable, where citations of a site without a
 * base URL of its own link. Public, like the docs it mirrors (a site whose docs are private sets a
 * base URL, so its citations point at its own site).
 */
export function pageViewRoute(deps: { storage: Storage; tenancy: TenancyCache }): Hono<AppEnv> {
  const route = new Hono<AppEnv>();
  route.get('/sites/:domain/pages/:path{.+}', async (c) => {
    const path = c.req.param('path');
    const site = await deps.tenancy.siteByDomain(c.req.param('domain'));
    const valid = path.length <= MAX_PAGE_PATH_CHARS && !path.includes('\u0000');
    const page = site && valid ? await readStoredPage(deps.storage, site.id, path) : undefined;
    if (!page) throw new DocentError('not_found', 'No such page');
    const etag = `"${page.contentHash}"`;
    if (c.req.header('If-None-Match') === etag) return c.body(null, 304, { ETag: etag });
    return c.body(renderPageHtml(page), 200, { ...HEADERS, ETag: etag });
  });
  return route;
}
