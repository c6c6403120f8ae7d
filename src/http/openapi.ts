import {
  extendZodWithOpenApi,
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  type RouteConfig,
} from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { errorStatus } from './errors.ts';

// The generator reads metadata through `.openapi()` on schemas; this adds it to zod's prototypes.
extendZodWithOpenApi(z);

export type Operation = RouteConfig;

export const errorResponseSchema = z.object({
  error: z.object({
    code: z.enum(Object.keys(errorStatus) as [keyof typeof errorStatus, ...(keyof typeof errorStatus)[]]),
    message: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    requestId: z.string(),
  }),
});

const errorDescriptions: Record<number, string> = {
  400: 'Invalid request (see `error.details`)',
  401: 'Missing, invalid, revoked or expired key',
  402: 'Monthly credits used up and overage off or capped',
  403: 'Not allowed (wrong site, origin or folder)',
  404: 'Not found for this organization',
  406: 'The client must accept `application/json` and `text/event-stream` (MCP; a JSON-RPC error body)',
  409: 'Conflict with the current state',
  413: 'Request body too large',
  415: 'Send the body as `application/json`',
  429: 'Rate limited; see `Retry-After` and `RateLimit-*` headers',
  503: 'A dependency (database, Redis) is unavailable',
};

/**
 * The standard error responses, for an operation's `responses`; 503 on every operation, since any of
 * them answers it while the database (or Redis, where it counts requests) cannot be reached.
 */
export function errorResponses(...statuses: number[]): RouteConfig['responses'] {
  return Object.fromEntries(
    [...new Set([...statuses, 503])].map((status) => [
      status,
      {
        description: errorDescriptions[status] ?? 'Error',
        content: { 'application/json': { schema: errorResponseSchema } },
      },
    ]),
  );
}

export function jsonContent(schema: z.ZodTypeAny) {
  return { content: { 'application/json': { schema } } };
}

/** Builds the OpenAPI 3.1 document from the operations, which hold the schemas routes validate with. */
export function buildOpenApiDocument(operations: Operation[], info: { version: string }): object {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'adminKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'An admin key (`svc_…`), organization-wide. Never put it in a browser.',
  });
  registry.registerComponent('securitySchemes', 'assistantKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'An assistant key (`svc_dsc_…`), bound to one site; public, safe in browsers.',
  });
  for (const operation of operations) registry.registerPath(operation);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Docent API',
      version: info.version,
      description:
        'Assistant and admin API of a Docent server. Generated from the schemas the server validates with.',
    },
  });
}
