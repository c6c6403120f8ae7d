import { Hono } from 'hono';
import { getIngestionJob } from '../../../ingest/jobs.ts';
import { jobCommit } from '../../../sources/git-sources.ts';
import { getSite } from '../../../tenancy/sites.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { DocentError } from '../../errors.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import { idParamSchema, ingestionJson, ingestionSchema } from './schemas.ts';

export const getIngestionOperation: Operation = {
  method: 'get',
  path: '/v1/admin/ingestions/{id}',
  summary:
    'Status of an ingestion (queued, in_progress, success, failure) with counts, warnings and, for a git source, the commit',
  tags: ['Ingestion'],
  security: [{ adminKey: [] }],
  request: { params: idParamSchema },
  responses: {
    200: { description: 'The ingestion', ...jsonContent(ingestionSchema) },
    ...errorResponses(400, 401, 404, 429),
  },
};

export function getIngestionRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().get('/v1/admin/ingestions/:id', validate('param', idParamSchema), async (c) => {
    const { id } = c.req.valid('param');
    const job = await getIngestionJob(deps.storage, id);
    const site = job ? await getSite(deps.storage, job.siteId) : undefined;
    if (!job || site?.organization_id !== c.get('admin').organization.id) {
      throw new DocentError('not_found', `No ingestion "${id}" in this organization`);
    }
    return c.json(ingestionJson(job, site.domain, await jobCommit(deps.storage, job.id)));
  });
}
