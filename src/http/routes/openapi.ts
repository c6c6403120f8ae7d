import { Hono } from 'hono';
import { z } from 'zod';
import { assistantRequestSchema } from '../../assistant/request-schema.ts';
import { domainSchema } from '../../tenancy/sites.ts';
import type { AppEnv } from '../app-env.ts';
import { buildOpenApiDocument, errorResponses, jsonContent, type Operation } from '../openapi.ts';
import { adminOperations } from './admin/admin-api.ts';

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
    ...errorResponses(400, 401, 402, 403, 404, 429),
  },
};

/** `GET /openapi.json`, built once from the schemas the routes validate with. */
export function openApiRoute(): Hono<AppEnv> {
  let document: object | undefined;
  return new Hono<AppEnv>().get('/openapi.json', (c) => {
    document ??= buildOpenApiDocument([assistantOperation, ...adminOperations], { version: OPENAPI_VERSION });
    return c.json(document);
  });
}
