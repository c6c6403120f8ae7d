import { Hono } from 'hono';
import { z } from 'zod';
import { getGitSource, sameGitPlace } from '../../../sources/git-sources.ts';
import { changeSiteSource, type SourceChange } from '../../../sources/site-source.ts';
import {
  allowedOriginsSchema,
  baseUrlSchema,
  getOrganizationSite,
  type Site,
  siteNameSchema,
  updateSite,
} from '../../../tenancy/sites.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { DocentError } from '../../errors.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import { docsDirOfRequest, gitSourceOfRequest, refuseBothSources } from './git-source-request.ts';
import { refuseWhileIngesting, requireOrganizationSite } from './require-site.ts';
import {
  documentedName,
  domainParamSchema,
  gitSourceInputSchema,
  MAX_PATH_LENGTH,
  siteSchema,
  siteWithGitJson,
} from './schemas.ts';

export const updateSiteBody = z
  .object({
    name: documentedName(siteNameSchema).optional(),
    baseUrl: baseUrlSchema
      .nullable()
      .optional()
      .describe("http: or https: address of the docs; citations link there (null: Docent's page view)"),
    docsDir: z
      .string()
      .min(1)
      .max(MAX_PATH_LENGTH)
      .optional()
      .describe('Folder under DOCENT_DOCS_ROOT (replaces a git source)'),
    git: gitSourceInputSchema
      .nullable()
      .optional()
      .describe('Git repository holding the docs (replaces docsDir); null: no git source, its clone deleted'),
    allowedOrigins: allowedOriginsSchema
      .optional()
      .describe('Browser origins allowed to call the assistant; an empty list allows any origin'),
    public: z
      .boolean()
      .optional()
      .describe(
        "Let agents use the site's MCP server, search, page and context API without a key, and publish its pages and llms.txt even with a base URL",
      ),
  })
  .strict();

export const updateSiteOperation: Operation = {
  method: 'patch',
  path: '/v1/admin/sites/{domain}',
  summary: 'Change a site (name, base URL, docs folder or git source, allowed origins, public)',
  tags: ['Sites'],
  security: [{ adminKey: [] }],
  request: { params: domainParamSchema, body: jsonContent(updateSiteBody) },
  responses: {
    200: {
      description: 'The changed site; `webhookSecret` when a git source was set where there was none',
      ...jsonContent(siteSchema),
    },
    ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 503),
  },
};

export function updateSiteRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().patch(
    '/v1/admin/sites/:domain',
    validate('param', domainParamSchema),
    validate('json', updateSiteBody),
    async (c) => {
      const { domain } = c.req.valid('param');
      const body = c.req.valid('json');
      refuseBothSources(body);
      const organizationId = c.get('admin').organization.id;
      const site = await requireOrganizationSite(deps.storage, organizationId, domain);
      const patch: Partial<Pick<Site, 'name' | 'base_url' | 'allowed_origins' | 'public'>> = {};
      if (body.name !== undefined) patch.name = body.name;
      if (body.baseUrl !== undefined) patch.base_url = body.baseUrl;
      if (body.allowedOrigins !== undefined) patch.allowed_origins = JSON.stringify(body.allowedOrigins);
      if (body.public !== undefined) patch.public = body.public ? 1 : 0;
      let change: SourceChange | undefined;
      if (body.docsDir !== undefined)
        change = { docsDir: await docsDirOfRequest(deps, organizationId, body.docsDir) };
      else if (body.git === null) change = { git: null };
      else if (body.git !== undefined)
        change = { git: await gitSourceOfRequest(deps, organizationId, body.git) };
      // A new polling interval for the same repository changes nothing an ingestion reads.
      const samePlace =
        change !== undefined &&
        'git' in change &&
        change.git !== null &&
        sameGitPlace(change.git, await getGitSource(deps.storage, site.id));
      if (change && !samePlace) await refuseWhileIngesting(deps, site.id, 'change its source');
      await updateSite(deps.storage, site.id, patch);
      const dataDir = deps.ingestions.git?.dataDir ?? null;
      const set = change ? await changeSiteSource(deps.storage, dataDir, site.id, change) : undefined;
      const updated = await getOrganizationSite(deps.storage, organizationId, domain);
      if (!updated) throw new DocentError('not_found', `No site "${domain}" in this organization`);
      const json = siteWithGitJson(updated, await getGitSource(deps.storage, site.id));
      return c.json({ ...json, ...(set?.newSecret ? { webhookSecret: set.newSecret } : {}) });
    },
  );
}
