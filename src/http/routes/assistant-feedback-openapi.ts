import { z } from 'zod';
import {
  FEEDBACK_RATINGS,
  feedbackRequestSchema,
  MAX_FEEDBACK_COMMENT_CHARS,
} from '../../assistant/feedback.ts';
import { domainSchema } from '../../tenancy/sites.ts';
import { errorResponses, jsonContent, type Operation } from '../openapi.ts';

const params = z.object({ domain: domainSchema });
const security: Record<string, string[]>[] = [{ assistantKey: [] }];
const tags = ['Assistant'];

export const feedbackResponseSchema = z.object({
  messageId: z.string(),
  rating: z.enum(FEEDBACK_RATINGS),
  comment: z.string().nullable(),
  updatedAt: z.string().describe('When the vote last changed; an unchanged vote sent again keeps it'),
});

export const widgetConfigSchema = z.object({
  domain: z.string(),
  name: z.string(),
  starterQuestions: z.array(z.string()).describe('Set with the admin API (site settings); empty when none'),
});

/**
 * The request as documented: the comment's limit is checked after trimming (a pipe), which the
 * generator cannot read, so the document showed no limit on it at all.
 */
const documentedFeedbackRequest = feedbackRequestSchema.extend({
  comment: z
    .string()
    .max(MAX_FEEDBACK_COMMENT_CHARS)
    .nullish()
    .describe(`At most ${MAX_FEEDBACK_COMMENT_CHARS} characters once trimmed; blank or null: no comment`),
});

/** The OpenAPI operations of the widget's routes (assistant-feedback.ts). */
export const widgetApiOperations: Operation[] = [
  {
    method: 'post',
    path: '/v2/assistant/{domain}/feedback',
    summary:
      "Vote on an answer (thumbs up or down, optional comment); voting again replaces the reader's vote. No credit cost. Also under /discovery.",
    tags,
    security,
    request: { params, body: jsonContent(documentedFeedbackRequest) },
    responses: {
      200: { description: 'The vote as stored', ...jsonContent(feedbackResponseSchema) },
      ...errorResponses(400, 401, 403, 404, 413, 415, 429),
    },
  },
  {
    method: 'get',
    path: '/v2/assistant/{domain}/config',
    summary:
      "What the widget shows on an empty panel: the site's name and starter questions. Also under /discovery.",
    tags,
    security,
    request: { params },
    responses: {
      200: { description: "The site's widget settings", ...jsonContent(widgetConfigSchema) },
      ...errorResponses(401, 403, 404, 429),
    },
  },
];
