import { Hono } from 'hono';
import type { AdminEnv } from '../../admin-env.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import { requireOrganizationSite } from './require-site.ts';
import { domainParamSchema, siteJson, siteSchema } from './schemas.ts';

export const getSiteOperation: Operation = {
  method: 'get',
  path: '/v1/admin/sites/{domain}',
  summary: 'Get a site',
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
      return c.json(siteJson(site));
    },
  );
}
