import { Hono } from 'hono';
import { packContext } from '../../agents/context-pack.ts';
import { readPageMarkdown } from '../../agents/read-page.ts';
import {
  contextRequestSchema,
  MAX_AGENT_BODY_BYTES,
  pageRequestSchema,
  searchRequestSchema,
} from '../../agents/request-schemas.ts';
import { searchDocs } from '../../agents/search-docs.ts';
import type { TrustProxy } from '../../config.ts';
import type { SiteSearch } from '../../search/site-search.ts';
import type { Storage } from '../../storage/database.ts';
import type { AppEnv } from '../app-env.ts';
import type { AssistantAccess } from '../assistant-access.ts';
import { DocentError } from '../errors.ts';
import { readAssistantBody } from '../request-body.ts';
import { requestOrigin } from '../request-origin.ts';
import { ASSISTANT_PREFIXES } from './assistant-message.ts';

export interface AgentApiDeps {
  storage: Storage;
  search: SiteSearch;
  access: AssistantAccess;
  trustProxy: TrustProxy;
  publicUrl: string | null;
}

/**
 * The docs for agents that read them themselves: `POST /v1/search/{domain}`, `/v1/page/{domain}` and
 * `/v1/context/{domain}` (also under `/discovery`). The assistant key, CORS and rate limits of the
 * assistant routes (a site marked public needs no key); no credits.
 */
export function agentApiRoute(deps: AgentApiDeps): Hono<AppEnv> {
  const route = new Hono<AppEnv>();
  const { access } = deps;
  const docentUrl = (c: Parameters<typeof requestOrigin>[0]) =>
    deps.publicUrl ?? requestOrigin(c, deps.trustProxy);
  for (const prefix of ASSISTANT_PREFIXES) {
    const search = `${prefix}/v1/search/:domain`;
    route.options(search, access.preflight);
    route.post(search, access.wrap, async (c) => {
      const { site } = await access.admit(c, { allowPublic: true });
      const body = await readAssistantBody(c, searchRequestSchema, MAX_AGENT_BODY_BYTES);
      const hits = await searchDocs(
        deps.search,
        site,
        {
          query: body.query,
          pageSize: body.pageSize,
          scoreThreshold: body.scoreThreshold,
          filter: body.filter ?? undefined,
        },
        docentUrl(c),
      );
      return c.json(hits);
    });

    const page = `${prefix}/v1/page/:domain`;
    route.options(page, access.preflight);
    route.post(page, access.wrap, async (c) => {
      const { site } = await access.admit(c, { allowPublic: true });
      const body = await readAssistantBody(c, pageRequestSchema, MAX_AGENT_BODY_BYTES);
      const found = await readPageMarkdown(deps.storage, site.id, body.path);
      if (!found) throw new DocentError('not_found', `No page "${body.path}" in this site`);
      return c.json(found);
    });

    const context = `${prefix}/v1/context/:domain`;
    route.options(context, access.preflight);
    route.post(context, access.wrap, async (c) => {
      const { site } = await access.admit(c, { allowPublic: true });
      const body = await readAssistantBody(c, contextRequestSchema, MAX_AGENT_BODY_BYTES);
      const packed = await packContext(
        deps.search,
        site,
        { query: body.query, tokenBudget: body.tokenBudget, filter: body.filter ?? undefined },
        docentUrl(c),
      );
      return c.json(packed);
    });
  }
  return route;
}
