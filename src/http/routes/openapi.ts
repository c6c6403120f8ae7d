import { Hono } from 'hono';
import { z } from 'zod';
import { assistantRequestSchema } from '../../assistant/request-schema.ts';
import { uiAssistantRequestSchema } from '../../assistant/ui-request-schema.ts';
import { domainSchema } from '../../tenancy/sites.ts';
import type { AppEnv } from '../app-env.ts';
import { buildOpenApiDocument, errorResponses, jsonContent, type Operation } from '../openapi.ts';
import { adminOperations } from './admin/admin-api.ts';
import { agentApiOperations } from './agent-api-openapi.ts';
import { widgetApiOperations } from './assistant-feedback-openapi.ts';

export const OPENAPI_VERSION = '1.0.0';

const assistantOperation: Operation = {
  method: 'post',
  path: '/v1/assistant/{domain}/message',
  summary: 'Stream an answer (AI SDK v4 data stream). Also served under /discovery.',
  tags: ['Assistant'],
  deprecated: true,
  security: [{ assistantKey: [] }],
  request: { params: z.object({ domain: domainSchema }), body: jsonContent(assistantRequestSchema) },
  responses: {
    200: {
      description:
        'A data stream (`text/plain`, one `CODE:JSON` part per line). Headers: `X-Thread-Id`, `X-Thread-Key` (new threads), `RateLimit-*`.',
      content: { 'text/plain': { schema: z.string() } },
    },
    ...errorResponses(400, 401, 402, 403, 404, 413, 415, 429),
  },
};

const assistantV2Operation: Operation = {
  method: 'post',
  path: '/v2/assistant/{domain}/message',
  summary:
    'Stream an answer (AI SDK 5, 6 and 7 UI message stream over SSE), as `DefaultChatTransport` sends it. Also served under /discovery.',
  tags: ['Assistant'],
  security: [{ assistantKey: [] }],
  request: { params: z.object({ domain: domainSchema }), body: jsonContent(uiAssistantRequestSchema) },
  responses: {
    200: {
      description:
        'SSE `data:` chunks ending `data: [DONE]`, `x-vercel-ai-ui-message-stream: v1`. Headers: `X-Thread-Id`, `X-Thread-Key` (new threads), `RateLimit-*`. Resume with `GET /v2/assistant/{domain}/message/{chatId}/stream` (204 when nothing is in flight).',
      content: { 'text/event-stream': { schema: z.string() } },
    },
    ...errorResponses(400, 401, 402, 403, 404, 413, 415, 429),
  },
};

const resumeOperation: Operation = {
  method: 'get',
  path: '/v2/assistant/{domain}/message/{chatId}/stream',
  summary:
    "Resume a chat's answer in flight (what `useChat({resume: true})` calls): replayed from its start, then live. Also served under /discovery.",
  tags: ['Assistant'],
  security: [{ assistantKey: [] }],
  request: { params: z.object({ domain: domainSchema, chatId: z.string().min(1).max(512) }) },
  responses: {
    200: {
      description: 'The same SSE stream as the message route, from its first chunk.',
      content: { 'text/event-stream': { schema: z.string() } },
    },
    204: { description: 'Nothing is in flight for this chat.' },
    ...errorResponses(401, 403, 404, 429),
  },
};

/**
 * The public mirrors of a site's pages: where citations link, and what agents read. No key; a site with
 * a base URL of its own that is not marked public publishes none (404).
 */
const UNPUBLISHED =
  ' A site with a base URL of its own that is not marked public publishes no pages here: 404, `Site … does not publish its pages here`.';
const pageOperations: Operation[] = [
  {
    method: 'get',
    path: '/sites/{domain}/pages/{path}',
    summary:
      "A stored page as readable HTML, or as Markdown at `{path}.md` or when `Accept` prefers `text/markdown`. `{path}` is the page id and may hold slashes (`guides/cli`). Headers: `ETag`, `Link` to the site's llms.txt." +
      UNPUBLISHED,
    tags: ['Pages'],
    request: { params: z.object({ domain: domainSchema, path: z.string().min(1) }) },
    responses: {
      200: {
        description: 'The page.',
        content: { 'text/html': { schema: z.string() }, 'text/markdown': { schema: z.string() } },
      },
      304: { description: 'Unchanged since the `If-None-Match` tag.' },
      ...errorResponses(404),
    },
  },
  ...(['llms.txt', 'llms-full.txt'] as const).map(
    (name): Operation => ({
      method: 'get',
      path: `/sites/{domain}/${name}`,
      summary:
        (name === 'llms.txt'
          ? "The site's pages for language models: one `- [title](url): description` line per page, linking its Markdown."
          : 'Every page of the site as Markdown, in navigation order, each after a `Source: {url}` line.') +
        UNPUBLISHED,
      tags: ['Pages'],
      request: { params: z.object({ domain: domainSchema }) },
      responses: {
        200: { description: name, content: { 'text/plain': { schema: z.string() } } },
        304: { description: 'Unchanged since the `If-None-Match` tag.' },
        ...errorResponses(404),
      },
    }),
  ),
];

/** `GET /openapi.json`, built once from the schemas the routes validate with. */
export function openApiRoute(): Hono<AppEnv> {
  let document: object | undefined;
  return new Hono<AppEnv>().get('/openapi.json', (c) => {
    document ??= buildOpenApiDocument(
      [
        assistantOperation,
        assistantV2Operation,
        resumeOperation,
        ...widgetApiOperations,
        ...agentApiOperations,
        ...pageOperations,
        ...adminOperations,
      ],
      { version: OPENAPI_VERSION },
    );
    return c.json(document);
  });
}
