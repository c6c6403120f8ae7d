import { Hono } from 'hono';
import {
  deleteConversation,
  listConversations,
  MAX_CONVERSATIONS_PAGE,
} from '../../../analytics/conversations.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { DocentError } from '../../errors.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import {
  checkFilterSite,
  conversationSummarySchema,
  pagedQuery,
  pagedQueryDoc,
  pageOf,
} from './analytics-schemas.ts';
import { idParamSchema } from './schemas.ts';

const conversationsQuery = pagedQuery(MAX_CONVERSATIONS_PAGE);

export const analyticsConversationsOperation: Operation = {
  method: 'get',
  path: '/v1/admin/analytics/conversations',
  summary:
    'Conversations with a question asked in the period that matches the filter, most recently active first',
  tags: ['Analytics'],
  security: [{ adminKey: [] }],
  request: { query: pagedQueryDoc(MAX_CONVERSATIONS_PAGE) },
  responses: {
    200: { description: 'A page of conversations', ...jsonContent(pageOf(conversationSummarySchema)) },
    ...errorResponses(400, 401, 404, 429),
  },
};

export function analyticsConversationsRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().get(
    '/v1/admin/analytics/conversations',
    validate('query', conversationsQuery),
    async (c) => {
      const { filter, cursor, limit } = c.req.valid('query');
      const organizationId = c.get('admin').organization.id;
      await checkFilterSite(deps.storage, organizationId, filter);
      return c.json(await listConversations(deps.storage, organizationId, filter, { cursor, limit }));
    },
  );
}

export const deleteThreadOperation: Operation = {
  method: 'delete',
  path: '/v1/admin/threads/{id}',
  summary: 'Delete a conversation with its messages and votes',
  tags: ['Threads'],
  security: [{ adminKey: [] }],
  request: { params: idParamSchema },
  responses: { 204: { description: 'Deleted' }, ...errorResponses(400, 401, 404, 429) },
};

export function deleteThreadRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().delete('/v1/admin/threads/:id', validate('param', idParamSchema), async (c) => {
    const { id } = c.req.valid('param');
    if (!(await deleteConversation(deps.storage, c.get('admin').organization.id, id)))
      throw new DocentError('not_found', `No thread "${id}" in this organization`);
    return c.body(null, 204);
  });
}
