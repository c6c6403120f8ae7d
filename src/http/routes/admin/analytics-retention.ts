import { Hono } from 'hono';
import { z } from 'zod';
import {
  getRetentionDays,
  MAX_RETENTION_DAYS,
  MIN_RETENTION_DAYS,
  setRetentionDays,
} from '../../../analytics/retention.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';

export const retentionBody = z
  .object({
    days: z
      .number()
      .int()
      .min(MIN_RETENTION_DAYS)
      .max(MAX_RETENTION_DAYS)
      .nullable()
      .describe('Conversations idle longer than this many days are deleted (hourly); null keeps them'),
  })
  .strict();

const tags = ['Organization'];

export const getRetentionOperation: Operation = {
  method: 'get',
  path: '/v1/admin/organization/retention',
  summary: "The organization's conversation retention",
  tags,
  security: [{ adminKey: [] }],
  responses: {
    200: { description: 'Retention', ...jsonContent(retentionBody) },
    ...errorResponses(401, 429),
  },
};

export function getRetentionRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().get('/v1/admin/organization/retention', async (c) =>
    c.json({ days: await getRetentionDays(deps.storage, c.get('admin').organization.id) }),
  );
}

export const putRetentionOperation: Operation = {
  method: 'put',
  path: '/v1/admin/organization/retention',
  summary: "Set the organization's conversation retention",
  tags,
  security: [{ adminKey: [] }],
  request: { body: jsonContent(retentionBody) },
  responses: {
    200: { description: 'Retention', ...jsonContent(retentionBody) },
    ...errorResponses(400, 401, 413, 415, 429),
  },
};

export function putRetentionRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().put(
    '/v1/admin/organization/retention',
    validate('json', retentionBody),
    async (c) => {
      const { days } = c.req.valid('json');
      await setRetentionDays(deps.storage, c.get('admin').organization.id, days);
      return c.json({ days });
    },
  );
}
