import { Hono } from 'hono';
import { z } from 'zod';
import { getGitSources } from '../../../sources/git-sources.ts';
import { listSites } from '../../../tenancy/sites.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import type { AdminDeps } from './admin-deps.ts';
import { siteSchema, siteWithGitJson } from './schemas.ts';

export const listSitesResponse = z.object({ sites: z.array(siteSchema) });

export const listSitesOperation: Operation = {
  method: 'get',
  path: '/v1/admin/sites',
  summary: "List the organization's sites",
  tags: ['Sites'],
  security: [{ adminKey: [] }],
  responses: {
    200: { description: 'Sites', ...jsonContent(listSitesResponse) },
    ...errorResponses(401, 429),
  },
};

export function listSitesRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().get('/v1/admin/sites', async (c) => {
    const sites = await listSites(deps.storage, c.get('admin').organization.id);
    const git = await getGitSources(
      deps.storage,
      sites.map((site) => site.id),
    );
    return c.json({ sites: sites.map((site) => siteWithGitJson(site, git.get(site.id))) });
  });
}
