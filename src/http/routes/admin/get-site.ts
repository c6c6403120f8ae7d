import { Hono } from 'hono';
import { getGitSource } from '../../../sources/git-sources.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import { requireOrganizationSite } from './require-site.ts';
import { domainParamSchema, siteSchema, siteWithGitJson } from './schemas.ts';

export const getSiteOperation: Operation = {
  method: 'get',
  path: '/v1/admin/sites/{domain}',
  summary: 'Get a site, with its git source if it has one',
  tags: ['Sites'],
  security: [{ adminKey: [] }],
  request: { params: domainParamSchema },
  responses: {
    200: { description: 'The site', ...jsonContent(siteSchema) },
    ...errorResponses(400, 401, 404, 429),
  },
};

export function getSiteRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().get(
    '/v1/admin/sites/:domain',
    validate('param', domainParamSchema),
    async (c) => {
      const { domain } = c.req.valid('param');
      const site = await requireOrganizationSite(deps.storage, c.get('admin').organization.id, domain);
      return c.json(siteWithGitJson(site, await getGitSource(deps.storage, site.id)));
    },
  );
}
