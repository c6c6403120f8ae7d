import { Hono } from 'hono';
import { type DemoPage, demoHomePath, demoPagesBase } from '../../pages/demo-page.ts';
import type { Storage } from '../../storage/database.ts';
import type { TenancyCache } from '../../tenancy/tenancy-cache.ts';
import type { AppEnv } from '../app-env.ts';
import { DocentError } from '../errors.ts';
import { publishedSite } from './page-view.ts';

/** `GET /`: the demo site's first page, with the widget (src/pages/demo-page.ts); 404 without a demo. */
export function demoHomeRoute(deps: {
  storage: Storage;
  tenancy: TenancyCache;
  demo: DemoPage | null;
}): Hono<AppEnv> {
  return new Hono<AppEnv>().get('/', async (c) => {
    // The demo's pages are its page view: a demo site given a base URL (and not public) has none.
    const site = deps.demo ? publishedSite(await deps.tenancy.siteByDomain(deps.demo.domain)) : undefined;
    const path = site ? await demoHomePath(deps.storage, site.id) : undefined;
    if (!deps.demo || path === undefined) throw new DocentError('not_found', 'No demo page on this server');
    const target = demoPagesBase(deps.demo.domain) + path.split('/').map(encodeURIComponent).join('/');
    // The query goes along: `/?assistant=…` opens the widget and asks, on whatever page it lands.
    return c.redirect(target + new URL(c.req.url).search, 302);
  });
}
