import { Hono } from 'hono';
import { z } from 'zod';
import { decodeCursor, encodeCursor, isCursor, MAX_CURSOR_CHARS } from '../../../analytics/question-scope.ts';
import { listOrganizationThreads, MAX_THREADS_PAGE } from '../../../tenancy/organization-threads.ts';
import { domainSchema } from '../../../tenancy/sites.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import { requireOrganizationSite } from './require-site.ts';

export const listThreadsQuery = z
  .object({
    site: domainSchema.optional(),
    limit: z.coerce.number().int().min(1).max(MAX_THREADS_PAGE).default(50),
    cursor: z
      .string()
      .max(MAX_CURSOR_CHARS)
      .refine(isCursor, 'not a cursor this listing gave out')
      .optional()
      .describe("The previous page's nextCursor: the page after it"),
    before: z
      .string()
      .datetime()
      .optional()
      .describe(
        'Only threads last active before this time. Older paging: threads active in the same millisecond as the last one listed can be missed; use cursor',
      ),
  })
  .strict();

export const threadSummarySchema = z.object({
  id: z.string(),
  site: z.string(),
  fp: z.string(),
  messageCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const listThreadsResponse = z.object({
  threads: z.array(threadSummarySchema),
  nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last page'),
});

export const listThreadsOperation: Operation = {
  method: 'get',
  path: '/v1/admin/threads',
  summary: 'List conversation threads, most recently active first',
  tags: ['Threads'],
  security: [{ adminKey: [] }],
  request: { query: listThreadsQuery },
  responses: {
    200: { description: 'Threads', ...jsonContent(listThreadsResponse) },
    ...errorResponses(400, 401, 404, 429),
  },
};

export function listThreadsRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().get('/v1/admin/threads', validate('query', listThreadsQuery), async (c) => {
    const query = c.req.valid('query');
    const organizationId = c.get('admin').organization.id;
    let siteId: string | undefined;
    if (query.site !== undefined) {
      const site = await requireOrganizationSite(deps.storage, organizationId, query.site);
      siteId = site.id;
    }
    const after =
      query.cursor === undefined ? undefined : decodeCursor(query.cursor, ['string', 'string'] as const);
    const { threads, next } = await listOrganizationThreads(deps.storage, organizationId, {
      limit: query.limit,
      ...(siteId !== undefined ? { siteId } : {}),
      ...(query.before !== undefined ? { before: new Date(query.before).toISOString() } : {}),
      ...(after !== undefined ? { after: { updatedAt: after[0], id: after[1] } } : {}),
    });
    return c.json({
      nextCursor: next === null ? null : encodeCursor([next.updatedAt, next.id]),
      threads: threads.map((t) => ({
        id: t.thread.id,
        site: t.domain,
        fp: t.thread.fp,
        messageCount: t.messageCount,
        createdAt: t.thread.created_at,
        updatedAt: t.thread.updated_at,
      })),
    });
  });
}
