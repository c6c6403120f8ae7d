import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import type { TrustProxy } from '../../config.ts';
import { LlmsTextCache } from '../../pages/llms-text-cache.ts';
import {
  type LlmsSite,
  type LlmsTemplate,
  readLlmsFullTemplate,
  readLlmsTxtTemplate,
  renderLlmsText,
} from '../../pages/llms-txt.ts';
import type { Storage } from '../../storage/database.ts';
import { getIndexGeneration } from '../../tenancy/sites.ts';
import type { TenancyCache } from '../../tenancy/tenancy-cache.ts';
import type { AppEnv } from '../app-env.ts';
import { DocentError } from '../errors.ts';
import { requestOrigin } from '../request-origin.ts';
import { etagMatches, publishedSite } from './page-view.ts';

/** Bump when the generated text changes shape, so clients holding an old ETag do not keep old text. */
const FORMAT_VERSION = 2;

const HEADERS = {
  // text/plain, as llmstxt.org's own files are served: every browser and HTTP client shows it as text.
  'Content-Type': 'text/plain; charset=utf-8',
  'Cache-Control': 'public, max-age=60',
  'X-Content-Type-Options': 'nosniff',
};

type Generate = (storage: Storage, site: LlmsSite) => Promise<LlmsTemplate | undefined>;

const FILES: [name: string, generate: Generate][] = [
  ['llms.txt', readLlmsTxtTemplate],
  ['llms-full.txt', readLlmsFullTemplate],
];

/**
 * `GET /sites/{domain}/llms.txt` and `/llms-full.txt` (pages/llms-txt.ts): the site's pages for
 * language models, linking Docent's Markdown mirror of each page. Public for the sites that publish
 * their pages, like the page view.
 */
export function llmsTxtRoute(deps: {
  storage: Storage;
  tenancy: TenancyCache;
  publicUrl: string | null;
  trustProxy: TrustProxy;
}): Hono<AppEnv> {
  const route = new Hono<AppEnv>();
  const generated = new LlmsTextCache();
  for (const [name, generate] of FILES) {
    route.get(`/sites/:domain/${name}`, async (c) => {
      const site = publishedSite(await deps.tenancy.siteByDomain(c.req.param('domain')));
      // Read now rather than from the cached site row: an ingestion by another process moves it.
      const current = site ? await getIndexGeneration(deps.storage, site.id) : undefined;
      if (!site || current === undefined) throw new DocentError('not_found', 'No such site');
      const docentUrl = deps.publicUrl ?? requestOrigin(c, deps.trustProxy);
      // The text holds more than the pages: the site's name (its title, which a rename changes without
      // an ingestion) and Docent's address (every link), so both are part of the tag.
      const shown = createHash('sha256').update(`${site.name}\u0000${docentUrl}`).digest('hex').slice(0, 16);
      const etagOf = (generation: number) =>
        `"${name}-${site.domain}-${generation}-${shown}-v${FORMAT_VERSION}"`;
      if (etagMatches(c.req.header('If-None-Match'), etagOf(current)))
        return c.body(null, 304, { ETag: etagOf(current), 'Cache-Control': HEADERS['Cache-Control'] });
      const template = await generated.get(
        { file: name, siteId: site.id, domain: site.domain, name: site.name, generation: current },
        () => generate(deps.storage, site),
      );
      if (!template) throw new DocentError('not_found', 'No such site');
      const text = renderLlmsText(template, docentUrl);
      // The generation the text was read at, which may be newer than `current`, never older.
      return c.body(text.body, 200, { ...HEADERS, ETag: etagOf(text.generation) });
    });
  }
  return route;
}
