import { Hono } from 'hono';
import { z } from 'zod';
import { dailyUsage, dayOf, getBalance } from '../../../limits/credits.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';

/** Longest range one usage request may cover. */
export const MAX_USAGE_DAYS = 366;
const DAY_MS = 86_400_000;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const daySchema = z
  .string()
  .regex(DAY, 'must be a date YYYY-MM-DD')
  .refine((value) => {
    // A value that is not YYYY-MM-DD has its one message already.
    if (!DAY.test(value)) return true;
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && dayOf(date) === value;
  }, 'must be a real date');

export const usageQuery = z
  .object({
    from: daySchema.optional().describe('First day (UTC), default: the first of this month'),
    to: daySchema.optional().describe('Last day (UTC), inclusive; default: today'),
  })
  .strict()
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: 'from must not be after to', path: ['from'] })
  .refine(
    (q) =>
      !q.from || !q.to || (new Date(q.to).getTime() - new Date(q.from).getTime()) / DAY_MS < MAX_USAGE_DAYS,
    { message: `at most ${MAX_USAGE_DAYS} days`, path: ['to'] },
  );

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
    const now = new Date();
    const to = query.to ?? dayOf(now);
    const from = query.from ?? `${to.slice(0, 7)}-01`;
    const [balance, days] = await Promise.all([
      getBalance(deps.storage, organization.id, now),
      dailyUsage(deps.storage, organization.id, { from, to }),
    ]);
    const totals = days.reduce(
      (sum, d) => ({
        requests: sum.requests + d.requests,
        credits: sum.credits + d.credits,
        overage: sum.overage + d.overage,
      }),
      { requests: 0, credits: 0, overage: 0 },
    );
    return c.json({
      organization: organization.id,
      plan: {
        id: plan.id,
        monthlyCredits: plan.monthlyCredits,
        overageEnabled: plan.overageEnabled,
        overageCap: plan.overageCap,
        creditCost: plan.creditCost,
        orgRequestsPerHour: plan.orgRequestsPerHour,
        ipRequestsPerDay: plan.ipRequestsPerDay,
      },
      period: {
        month: balance.period,
        included: balance.included,
        used: balance.used,
        overage: balance.overage,
        remaining: balance.remaining,
      },
      from,
      to,
      days,
      totals,
    });
  });
}
