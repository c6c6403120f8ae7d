import { Hono } from 'hono';
import { z } from 'zod';
import { listIngestionJobs } from '../../../ingest/jobs.ts';
import { jobCommit } from '../../../sources/git-sources.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import { requireOrganizationSite } from './require-site.ts';
import { domainParamSchema, ingestionJson, ingestionSchema } from './schemas.ts';

/** Ingestions listed per site, newest first: enough to find why the last pushes or polls failed. */
export const MAX_LISTED_INGESTIONS = 20;

const ingestionListSchema = z.object({ ingestions: z.array(ingestionSchema) });

export const listIngestionsOperation: Operation = {
  method: 'get',
  path: '/v1/admin/sites/{domain}/ingestions',
  summary: `The site's latest ${MAX_LISTED_INGESTIONS} ingestions, newest first (from the API, the CLI, a push or a poll), each as GET /v1/admin/ingestions/{id} gives it`,
  tags: ['Ingestion'],
  security: [{ adminKey: [] }],
  request: { params: domainParamSchema },
  responses: {
    200: { description: 'The ingestions', ...jsonContent(ingestionListSchema) },
    ...errorResponses(400, 401, 404, 429),
  },
};

export function listIngestionsRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().get(
    '/v1/admin/sites/:domain/ingestions',
    validate('param', domainParamSchema),
    async (c) => {
      const { domain } = c.req.valid('param');
      const site = await requireOrganizationSite(deps.storage, c.get('admin').organization.id, domain);
      const jobs = await listIngestionJobs(deps.storage, site.id, MAX_LISTED_INGESTIONS);
      const ingestions = await Promise.all(
        jobs.map(async (job) => ingestionJson(job, site.domain, await jobCommit(deps.storage, job.id))),
      );
      return c.json({ ingestions });
    },
  );
}
