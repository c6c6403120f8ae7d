import { Hono } from 'hono';
import { z } from 'zod';
import { analyticsOverview } from '../../../analytics/overview.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import { checkFilterSite, filterQuery, filterQueryDoc } from './analytics-schemas.ts';

export const overviewResponse = z.object({
  questions: z.number().int(),
  answered: z.number().int(),
  unanswered: z.number().int(),
  feedbackUp: z.number().int(),
  feedbackDown: z.number().int(),
  creditsUsed: z.number().int().describe("Credits used in the organization's current billing month (UTC)"),
  creditsLeft: z
    .number()
    .int()
    .nullable()
    .describe('Credits the plan still allows this month; null: unlimited'),
  firstTokenMs: z
    .object({ p50: z.number(), p95: z.number() })
    .nullable()
    .describe('Time to first token of the answers in range'),
  series: z.array(z.object({ start: z.string(), questions: z.number().int(), unanswered: z.number().int() })),
  bucket: z.enum(['hour', 'day']).describe('Hourly buckets for ranges up to 48 hours, daily otherwise'),
});

export const analyticsOverviewOperation: Operation = {
  method: 'get',
  path: '/v1/admin/analytics/overview',
  summary: 'Questions, answered and unanswered, votes, credits and time to first token over a period',
  tags: ['Analytics'],
  security: [{ adminKey: [] }],
  request: { query: filterQueryDoc },
  responses: {
    200: { description: 'The overview', ...jsonContent(overviewResponse) },
    ...errorResponses(400, 401, 404, 429),
  },
};

export function analyticsOverviewRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().get(
    '/v1/admin/analytics/overview',
    validate('query', filterQuery),
    async (c) => {
      const { filter } = c.req.valid('query');
      const organizationId = c.get('admin').organization.id;
      await checkFilterSite(deps.storage, organizationId, filter);
      return c.json(await analyticsOverview(deps.storage, organizationId, filter));
    },
  );
}
