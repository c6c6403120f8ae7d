import { Hono } from 'hono';
import { z } from 'zod';
import { isCalendarDay, MAX_USAGE_DAYS, usageReport } from '../../../limits/usage-report.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';

const daySchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  // A value that is not YYYY-MM-DD has its one message already.
  .refine((value) => !/^\d{4}-\d{2}-\d{2}$/.test(value) || isCalendarDay(value), 'must be a real date');

export const usageQuery = z
  .object({
    from: daySchema.optional().describe('First day (UTC), default: the first of this month'),
    to: daySchema
      .optional()
      .describe(
        `Last day (UTC), inclusive; default: today; not before from, at most ${MAX_USAGE_DAYS} days after it`,
      ),
  })
  // The range's own rules are usageReport's: a range it refuses is a 400 too.
  .strict();

export const usageResponse = z.object({
  organization: z.string(),
  plan: z.object({
    id: z.string(),
    monthlyCredits: z.number().int(),
    overageEnabled: z.boolean(),
    overageCap: z.number().int().nullable(),
    creditCost: z.number().int(),
    orgRequestsPerHour: z.number().int(),
    ipRequestsPerDay: z.number().int(),
  }),
  period: z.object({
    month: z.string(),
    included: z.number().int(),
    used: z.number().int(),
    overage: z.number().int(),
    remaining: z.number().int(),
  }),
  from: z.string(),
  to: z.string(),
  days: z.array(
    z.object({
      day: z.string(),
      requests: z.number().int().describe('Answered requests (charged, not refunded)'),
      credits: z.number().int(),
      overage: z.number().int(),
    }),
  ),
  totals: z.object({ requests: z.number().int(), credits: z.number().int(), overage: z.number().int() }),
});

export const getUsageOperation: Operation = {
  method: 'get',
  path: '/v1/admin/usage',
  summary: 'Credits and requests per day, and this month’s balance',
  tags: ['Usage'],
  security: [{ adminKey: [] }],
  request: { query: usageQuery },
  responses: {
    200: { description: 'Usage', ...jsonContent(usageResponse) },
    ...errorResponses(400, 401, 429),
  },
};

export function getUsageRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().get('/v1/admin/usage', validate('query', usageQuery), async (c) => {
    const query = c.req.valid('query');
    const { organization, plan } = c.get('admin');
    return c.json(await usageReport(deps.storage, organization.id, plan, query));
  });
}
