import { Hono } from 'hono';
import { z } from 'zod';
import { pageStats } from '../../../analytics/pages.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import { checkFilterSite, filterQuery, filterQueryDoc } from './analytics-schemas.ts';

const pageSchema = z.object({ site: z.string(), path: z.string(), title: z.string() });

export const pageStatsResponse = z.object({
  mostCited: z.array(
    pageSchema.extend({
      citations: z.number().int().describe('Answers in the period that cited the page'),
      up: z.number().int().describe('Votes up on those answers'),
      down: z.number().int(),
    }),
  ),
  neverCited: z
    .array(pageSchema)
    .describe('Pages no answer in the period cited, by site and path: the first 200'),
  neverCitedTotal: z.number().int().describe('How many pages no answer in the period cited, all of them'),
});

export const analyticsPagesOperation: Operation = {
  method: 'get',
  path: '/v1/admin/analytics/pages',
  summary: 'The most cited pages (with votes on the answers citing them) and the pages never cited',
  tags: ['Analytics'],
  security: [{ adminKey: [] }],
  request: { query: filterQueryDoc },
  responses: {
    200: { description: 'Page statistics', ...jsonContent(pageStatsResponse) },
    ...errorResponses(400, 401, 404, 429),
  },
};

export function analyticsPagesRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().get('/v1/admin/analytics/pages', validate('query', filterQuery), async (c) => {
    const { filter } = c.req.valid('query');
    const organizationId = c.get('admin').organization.id;
    await checkFilterSite(deps.storage, organizationId, filter);
    return c.json(await pageStats(deps.storage, organizationId, filter));
  });
}
