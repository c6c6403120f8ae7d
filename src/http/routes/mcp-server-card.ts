import { type Context, Hono } from 'hono';
import { serverCard } from '../../agents/server-card.ts';
import type { TrustProxy } from '../../config.ts';
import type { TenancyCache } from '../../tenancy/tenancy-cache.ts';
import type { AppEnv } from '../app-env.ts';
import { DocentError } from '../errors.ts';
import { requestOrigin } from '../request-origin.ts';

/**
 * A site's MCP server card (SEP-2127: where its server is, before a client connects), at
 * `/mcp/{domain}/server-card`, `/sites/{domain}/.well-known/mcp/server-card.json`, and
 * `/.well-known/mcp/server-card.json` on the site's own host (`siteOfHost`). No key: it names only the
 * endpoint.
 */
export function mcpServerCardRoute(deps: {
  tenancy: TenancyCache;
  trustProxy: TrustProxy;
  publicUrl: string | null;
}): Hono<AppEnv> {
  const route = new Hono<AppEnv>();
  const card = async (c: Context<AppEnv>, domain: string) => {
    const site = await deps.tenancy.siteByDomain(domain);
    if (!site) throw new DocentError('not_found', `No documentation site "${domain}"`);
    const docentUrl = deps.publicUrl ?? requestOrigin(c, deps.trustProxy);
    return c.json(serverCard(site, docentUrl), 200, { 'Cache-Control': 'public, max-age=300' });
  };
  route.get('/mcp/:domain/server-card', (c) => card(c, c.req.param('domain')));
  route.get('/sites/:domain/.well-known/mcp/server-card.json', (c) => card(c, c.req.param('domain')));
  route.get('/.well-known/mcp/server-card.json', (c) => {
    const domain = siteOfHost(new URL(c.req.url).hostname, deps.publicUrl);
    if (domain === null)
      throw new DocentError(
        'not_found',
        'No site is served on this host: its card is at /sites/{domain}/.well-known/mcp/server-card.json',
      );
    return card(c, domain);
  });
  return route;
}

/**
 * The site a host serves at its root: `acme` on `acme.docs-ai.example.com` when Docent's own address
 * (`DOCENT_PUBLIC_URL`) is `docs-ai.example.com`. A host merely spelled like a site (`localhost`, a
 * container's name) serves none: any tenant can name a site so, and would then own the card of every
 * server reached that way.
 */
export function siteOfHost(hostname: string, publicUrl: string | null): string | null {
  if (publicUrl === null) return null;
  const own = new URL(publicUrl).hostname.toLowerCase();
  const host = hostname.toLowerCase();
  if (!host.endsWith(`.${own}`)) return null;
  const label = host.slice(0, -own.length - 1);
  return label !== '' && !label.includes('.') ? label : null;
}
