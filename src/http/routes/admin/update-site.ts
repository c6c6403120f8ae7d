import { Hono } from 'hono';
import { z } from 'zod';
import { DocsDirError, resolveDocsDirUnderRoot } from '../../../tenancy/docs-dir.ts';
import {
  allowedOriginsSchema,
  baseUrlSchema,
  getOrganizationSite,
  type Site,
  updateSite,
} from '../../../tenancy/sites.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { DocentError } from '../../errors.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import { requireOrganizationSite } from './require-site.ts';
import { domainParamSchema, MAX_NAME_LENGTH, MAX_PATH_LENGTH, siteJson, siteSchema } from './schemas.ts';

export const updateSiteBody = z
  .object({
    name: z.string().min(1).max(MAX_NAME_LENGTH).optional(),
    baseUrl: baseUrlSchema
      .nullable()
      .optional()
      .describe("http: or https: address of the docs; citations link there (null: Docent's page view)"),
    docsDir: z.string().min(1).max(MAX_PATH_LENGTH).optional().describe('Folder under DOCENT_DOCS_ROOT'),
    allowedOrigins: allowedOriginsSchema
      .optional()
      .describe('Browser origins allowed to call the assistant; an empty list allows any origin'),
    public: z
      .boolean()
      .optional()
      .describe("Let agents use the site's MCP server, search, page and context API without a key"),
  })
  .strict();

export const updateSiteOperation: Operation = {
  method: 'patch',
  path: '/v1/admin/sites/{domain}',
  summary: 'Change a site (name, base URL, docs folder, allowed origins, public)',
  tags: ['Sites'],
  security: [{ adminKey: [] }],
  request: { params: domainParamSchema, body: jsonContent(updateSiteBody) },
  responses: {
    200: { description: 'The changed site', ...jsonContent(siteSchema) },
    ...errorResponses(400, 401, 403, 404, 429),
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
      const organizationId = c.get('admin').organization.id;
      const site = await requireOrganizationSite(deps.storage, organizationId, domain);
      const patch: Partial<Pick<Site, 'name' | 'docs_dir' | 'base_url' | 'allowed_origins' | 'public'>> = {};
      if (body.name !== undefined) patch.name = body.name;
      if (body.baseUrl !== undefined) patch.base_url = body.baseUrl;
      if (body.allowedOrigins !== undefined) patch.allowed_origins = JSON.stringify(body.allowedOrigins);
      if (body.public !== undefined) patch.public = body.public ? 1 : 0;
      if (body.docsDir !== undefined) {
        try {
          patch.docs_dir = await resolveDocsDirUnderRoot(body.docsDir, deps.docsRoot);
        } catch (error) {
          if (error instanceof DocsDirError) throw new DocentError('forbidden', error.message);
          throw error;
        }
      }
      await updateSite(deps.storage, site.id, patch);
      const updated = await getOrganizationSite(deps.storage, organizationId, domain);
      if (!updated) throw new DocentError('not_found', `No site "${domain}" in this organization`);
      return c.json(siteJson(updated));
    },
  );
}
