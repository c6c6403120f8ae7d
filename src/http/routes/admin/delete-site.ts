import { Hono } from 'hono';
import { deleteSiteAndClone } from '../../../sources/site-source.ts';
import { getOrganizationSite } from '../../../tenancy/sites.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { DocentError } from '../../errors.ts';
import { errorResponses, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import { ingestingConflict } from './require-site.ts';
import { domainParamSchema } from './schemas.ts';

export const deleteSiteOperation: Operation = {
  method: 'delete',
  path: '/v1/admin/sites/{domain}',
  summary: 'Delete a site with its pages, keys, threads and git clone',
  tags: ['Sites'],
  security: [{ adminKey: [] }],
  request: { params: domainParamSchema },
  responses: { 204: { description: 'Deleted' }, ...errorResponses(400, 401, 404, 409, 429) },
};

export function deleteSiteRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().delete(
    '/v1/admin/sites/:domain',
    validate('param', domainParamSchema),
    async (c) => {
      const { domain } = c.req.valid('param');
      const organizationId = c.get('admin').organization.id;
      const site = await getOrganizationSite(deps.storage, organizationId, domain);
      const dataDir = deps.ingestions.git?.dataDir ?? null;
      // This process's own ingestion, even one whose job row is not written yet; deleteSite reads the
      // job table for every server's.
      const running = site && deps.ingestions.runningJob(site.id);
      if (running) throw ingestingConflict(running, 'delete it');
      const deletion = site
        ? await deleteSiteAndClone(deps.storage, dataDir, organizationId, site.id)
        : 'missing';
      if (deletion === 'missing')
        throw new DocentError('not_found', `No site "${domain}" in this organization`);
      if (deletion !== 'deleted') throw ingestingConflict(deletion.ingesting, 'delete it');
      return c.body(null, 204);
    },
  );
}
