import { z } from 'zod';
import {
  contextRequestSchema,
  contextResponseSchema,
  pageRequestSchema,
  pageResponseSchema,
  searchHitSchema,
  searchRequestSchema,
} from '../../agents/request-schemas.ts';
import { domainSchema } from '../../tenancy/sites.ts';
import { errorResponses, jsonContent, type Operation } from '../openapi.ts';

const params = z.object({ domain: domainSchema });
// A site marked public is read without a key; the others need the site's assistant key.
const security: Record<string, string[]>[] = [{ assistantKey: [] }, {}];
const tags = ['Agents'];

/** The OpenAPI operations of the agent routes (agent-api.ts, mcp.ts). */
export const agentApiOperations: Operation[] = [
  {
    method: 'post',
    path: '/v1/search/{domain}',
    summary: 'Search the docs: the best sections with absolute links. No credit cost. Also under /discovery.',
    tags,
    security,
    request: { params, body: jsonContent(searchRequestSchema) },
    responses: {
      200: { description: 'Sections, best first', ...jsonContent(z.array(searchHitSchema)) },
      ...errorResponses(400, 401, 403, 404, 413, 415, 429),
    },
  },
  {
    method: 'post',
    path: '/v1/page/{domain}',
    summary: 'One page as Markdown. No credit cost. Also under /discovery.',
    tags,
    security,
    request: { params, body: jsonContent(pageRequestSchema) },
    responses: {
      200: { description: 'The page', ...jsonContent(pageResponseSchema) },
      ...errorResponses(400, 401, 403, 404, 413, 415, 429),
    },
  },
  {
    method: 'post',
    path: '/v1/context/{domain}',
    summary: "The best sections packed into a token budget, for an agent's own model. Also under /discovery.",
    tags,
    security,
    request: { params, body: jsonContent(contextRequestSchema) },
    responses: {
      200: { description: 'Numbered sections and their text', ...jsonContent(contextResponseSchema) },
      ...errorResponses(400, 401, 403, 404, 413, 415, 429),
    },
  },
  {
    method: 'post',
    path: '/mcp/{domain}',
    summary:
      "The site's MCP server (Streamable HTTP, stateless, JSON responses): tools search_docs, get_page, ask_docs",
    tags,
    security,
    request: { params, body: jsonContent(z.object({ jsonrpc: z.literal('2.0') }).passthrough()) },
    responses: {
      200: { description: 'The JSON-RPC response', ...jsonContent(z.object({}).passthrough()) },
      202: { description: 'A notification was accepted' },
      ...errorResponses(400, 401, 403, 404, 406, 413, 415, 429),
    },
  },
  {
    method: 'get',
    path: '/mcp/{domain}/server-card',
    summary:
      'The MCP server card (SEP-2127) of the site; also at /sites/{domain}/.well-known/mcp/server-card.json',
    tags,
    request: { params },
    responses: {
      200: { description: 'The server card', ...jsonContent(z.object({}).passthrough()) },
      ...errorResponses(404),
    },
  },
];
