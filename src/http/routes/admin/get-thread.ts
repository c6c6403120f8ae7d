import { Hono } from 'hono';
import { z } from 'zod';
import { FEEDBACK_RATINGS, listThreadFeedback } from '../../../assistant/feedback.ts';
import { listThreadMessages } from '../../../assistant/threads.ts';
import { getOrganizationThread } from '../../../tenancy/organization-threads.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { DocentError } from '../../errors.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import { idParamSchema } from './schemas.ts';

export const transcriptSchema = z.object({
  id: z.string(),
  site: z.string(),
  fp: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  messages: z.array(
    z.object({
      id: z.string(),
      seq: z.number().int(),
      role: z.enum(['user', 'assistant']),
      content: z.string(),
      status: z.enum(['complete', 'aborted', 'error']),
      sources: z.array(z.object({ id: z.string(), url: z.string(), title: z.string(), path: z.string() })),
      finishReason: z.string().nullable(),
      usage: z.object({ promptTokens: z.number(), completionTokens: z.number() }).nullable(),
      timings: z.record(z.number()).nullable(),
      requestId: z.string().nullable(),
      createdAt: z.string(),
      currentPath: z
        .string()
        .nullable()
        .describe(
          'Questions: the page the reader was on: the page id its `currentPath` named, else `currentPath` as sent',
        ),
      version: z.string().nullable().describe('Questions: the `filter.version` asked with'),
      language: z.string().nullable().describe('Questions: the `filter.language` asked with'),
      answered: z
        .boolean()
        .nullable()
        .describe('Answers: whether it answered the question (null: stored before this was recorded)'),
      retrievalScore: z.number().nullable().describe("Answers: the retrieval's strength, 0–1"),
      feedback: z
        .array(
          z.object({
            fp: z.string(),
            rating: z.enum(FEEDBACK_RATINGS),
            comment: z.string().nullable(),
            createdAt: z.string(),
            updatedAt: z.string(),
            resolvedAt: z.string().nullable(),
            regeneratedAnswer: z
              .string()
              .nullable()
              .describe('A vote on an earlier answer to the question, since regenerated: that answer'),
          }),
        )
        .optional()
        .describe("Assistant messages only: readers' votes on the answer, oldest first (empty when none)"),
    }),
  ),
});

export const getThreadOperation: Operation = {
  method: 'get',
  path: '/v1/admin/threads/{id}',
  summary: 'Read one thread’s transcript',
  tags: ['Threads'],
  security: [{ adminKey: [] }],
  request: { params: idParamSchema },
  responses: {
    200: { description: 'The transcript', ...jsonContent(transcriptSchema) },
    ...errorResponses(400, 401, 404, 429),
  },
};

export function getThreadRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().get('/v1/admin/threads/:id', validate('param', idParamSchema), async (c) => {
    const { id } = c.req.valid('param');
    const found = await getOrganizationThread(deps.storage, c.get('admin').organization.id, id);
    if (!found) throw new DocentError('not_found', `No thread "${id}" in this organization`);
    const [messages, feedback] = await Promise.all([
      listThreadMessages(deps.storage, found.thread.id),
      listThreadFeedback(deps.storage, found.thread.id),
    ]);
    return c.json({
      id: found.thread.id,
      site: found.domain,
      fp: found.thread.fp,
      createdAt: found.thread.created_at,
      updatedAt: found.thread.updated_at,
      messages: messages.map((m) =>
        m.role === 'assistant' ? { ...m, feedback: feedback.get(m.id) ?? [] } : m,
      ),
    });
  });
}
