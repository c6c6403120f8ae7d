import { z } from 'zod';
import { analyticsFilterFields, analyticsQuerySchema } from '../../../analytics/analytics-filter.ts';
import { isCursor, MAX_CURSOR_CHARS } from '../../../analytics/question-scope.ts';
import type { Storage } from '../../../storage/database.ts';
import { requireOrganizationSite } from './require-site.ts';

/** Shared query and response shapes of the analytics routes (the OpenAPI document is built from them). */

/** Items per page when the query does not say. */
export const DEFAULT_ANALYTICS_PAGE = 50;

export const cursorSchema = z
  .string()
  .min(1)
  .max(MAX_CURSOR_CHARS)
  .refine(isCursor, 'must be a cursor a previous page returned')
  .describe('`nextCursor` of the previous page');

export const limitSchema = (max: number) =>
  z.coerce.number().int().min(1).max(max).default(DEFAULT_ANALYTICS_PAGE);

/** The filter's query parameters as documented (the routes parse them with `analyticsQuerySchema`). */
export const filterQueryDoc = z.object(analyticsFilterFields);
export const pagedQueryDoc = (max: number) =>
  z.object({ ...analyticsFilterFields, cursor: cursorSchema.optional(), limit: limitSchema(max) });

/** The feedback inbox's own filter, beside the analytics filter. */
export const resolvedSchema = z
  .enum(['true', 'false'])
  .transform((value) => value === 'true')
  .optional()
  .describe('Only votes marked resolved (true) or still open (false)');

/** The filter alone. */
export const filterQuery = analyticsQuerySchema({});
/** The filter and `resolved`, as the feedback listing takes them (its export). */
export const feedbackFilterQuery = analyticsQuerySchema({ resolved: resolvedSchema });
/** The filter with a page: `cursor` and `limit` up to `max`. */
export const pagedQuery = (max: number) =>
  analyticsQuerySchema({ cursor: cursorSchema.optional(), limit: limitSchema(max) });

/** A filter naming a site of another organization (or none) is a 404, as everywhere in the admin API. */
export async function checkFilterSite(
  storage: Storage,
  organizationId: string,
  filter: { site?: string | undefined },
): Promise<void> {
  if (filter.site !== undefined) await requireOrganizationSite(storage, organizationId, filter.site);
}

export const pageOf = <T extends z.ZodTypeAny>(item: T) =>
  z.object({ items: z.array(item), nextCursor: z.string().nullable() });

export const conversationSummarySchema = z.object({
  threadId: z.string(),
  site: z.string(),
  fpHash: z.string().describe("The first 12 hex digits of the reader fingerprint's SHA-256"),
  createdAt: z.string(),
  updatedAt: z.string(),
  messageCount: z.number().int(),
  firstQuestion: z.string(),
  unanswered: z.number().int().describe('Answers of the thread that did not answer'),
  feedbackUp: z.number().int(),
  feedbackDown: z.number().int(),
  page: z.string().nullable(),
  version: z.string().nullable(),
  language: z.string().nullable(),
});

export const questionGroupSchema = z.object({
  groupId: z.string(),
  site: z.string(),
  label: z.string().describe("The group's first question"),
  count: z.number().int(),
  unanswered: z.number().int(),
  examples: z.array(z.string()),
  closestPages: z.array(z.object({ path: z.string(), title: z.string() })),
});

export const feedbackItemSchema = z.object({
  messageId: z.string(),
  threadId: z.string(),
  site: z.string(),
  fpHash: z.string(),
  rating: z.enum(['up', 'down']),
  comment: z.string().nullable(),
  question: z.string(),
  answer: z.string().describe('The answer voted on, as the reader saw it'),
  regenerated: z
    .boolean()
    .describe('The answer voted on was regenerated since: `answer` is the replaced one, kept with the vote'),
  createdAt: z.string(),
  updatedAt: z.string(),
  resolvedAt: z.string().nullable(),
});
