import { Hono } from 'hono';
import { z } from 'zod';
import { analyticsQuerySchema } from '../../../analytics/analytics-filter.ts';
import { listFeedback, MAX_FEEDBACK_PAGE, resolveFeedback } from '../../../analytics/feedback-inbox.ts';
import { FP_HASH_CHARS } from '../../../analytics/question-scope.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { DocentError } from '../../errors.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import {
  checkFilterSite,
  cursorSchema,
  feedbackItemSchema,
  limitSchema,
  pagedQueryDoc,
  pageOf,
  resolvedSchema,
} from './analytics-schemas.ts';
import { MAX_ID_LENGTH } from './schemas.ts';

const feedbackExtra = {
  cursor: cursorSchema.optional(),
  limit: limitSchema(MAX_FEEDBACK_PAGE),
  resolved: resolvedSchema,
};
const feedbackQuery = analyticsQuerySchema(feedbackExtra);

export const analyticsFeedbackOperation: Operation = {
  method: 'get',
  path: '/v1/admin/analytics/feedback',
  summary: "Readers' votes changed in a period, newest first, with the question, the answer and the comment",
  description:
    '`feedback` filters the rating (`up`, `down`); the other filters apply to the question and answer.',
  tags: ['Analytics'],
  security: [{ adminKey: [] }],
  request: { query: pagedQueryDoc(MAX_FEEDBACK_PAGE).extend({ resolved: resolvedSchema }) },
  responses: {
    200: { description: 'A page of votes', ...jsonContent(pageOf(feedbackItemSchema)) },
    ...errorResponses(400, 401, 404, 429),
  },
};

export function analyticsFeedbackRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().get(
    '/v1/admin/analytics/feedback',
    validate('query', feedbackQuery),
    async (c) => {
      const { filter, cursor, limit, resolved } = c.req.valid('query');
      const organizationId = c.get('admin').organization.id;
      await checkFilterSite(deps.storage, organizationId, filter);
      return c.json(
        await listFeedback(deps.storage, organizationId, { ...filter, resolved }, { cursor, limit }),
      );
    },
  );
}

export const resolveFeedbackBody = z
  .object({
    messageId: z.string().min(1).max(MAX_ID_LENGTH).describe('The answer voted on'),
    fpHash: z
      .string()
      .regex(new RegExp(`^[0-9a-f]{${FP_HASH_CHARS}}$`), `must be ${FP_HASH_CHARS} lowercase hex digits`)
      .describe('The reader, as the feedback listing shows them'),
    resolved: z.boolean(),
  })
  .strict();

export const resolveFeedbackOperation: Operation = {
  method: 'post',
  path: '/v1/admin/analytics/feedback/resolve',
  summary: 'Mark a vote resolved, or open again',
  tags: ['Analytics'],
  security: [{ adminKey: [] }],
  request: { body: jsonContent(resolveFeedbackBody) },
  responses: {
    200: { description: 'The vote’s new state', ...jsonContent(resolveFeedbackBody) },
    ...errorResponses(400, 401, 404, 413, 415, 429),
  },
};

export function resolveFeedbackRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().post(
    '/v1/admin/analytics/feedback/resolve',
    validate('json', resolveFeedbackBody),
    async (c) => {
      const body = c.req.valid('json');
      if (!(await resolveFeedback(deps.storage, c.get('admin').organization.id, body)))
        throw new DocentError('not_found', 'No such vote in this organization');
      return c.json(body);
    },
  );
}
