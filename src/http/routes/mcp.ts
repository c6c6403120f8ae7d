import { Hono } from 'hono';
import { docsAsker } from '../../agents/ask-docs.ts';
import { loadMcpServer } from '../../agents/load-mcp-server.ts';
import type { AnswerService } from '../../assistant/answer-question.ts';
import { DEFAULT_RETRIEVAL_PAGE_SIZE, retrievalOf } from '../../assistant/request-schema.ts';
import { MCP_FP } from '../../assistant/threads.ts';
import type { TrustProxy } from '../../config.ts';
import type { SiteSearch } from '../../search/site-search.ts';
import type { Storage } from '../../storage/database.ts';
import { DOCENT_VERSION } from '../../version.ts';
import type { AppEnv } from '../app-env.ts';
import type { AssistantAccess } from '../assistant-access.ts';
import { DocentError } from '../errors.ts';
import { clientGone } from '../node-request.ts';
import { readJsonBody, requireJsonBody } from '../request-body.ts';
import { requestOrigin } from '../request-origin.ts';

/** Largest JSON-RPC message read: tool calls carry a question or a query, not documents. */
export const MAX_MCP_BODY_BYTES = 64 * 1024;
/**
 * Most messages in one JSON-RPC batch. A batch is admitted, and counted against the rate limits, as one
 * request, so this bounds what one request can make the server do. (MCP itself dropped batches in its
 * 2025-06-18 revision; older clients may still send small ones.)
 */
export const MAX_MCP_BATCH_MESSAGES = 10;

export interface McpRouteDeps {
  storage: Storage;
  search: SiteSearch;
  answers: AnswerService;
  access: AssistantAccess;
  trustProxy: TrustProxy;
  publicUrl: string | null;
}

/**
 * `POST /mcp/{domain}`: the site's MCP server over Streamable HTTP, stateless (a server per request,
 * JSON responses), behind the assistant key, CORS and rate limits (a site marked public needs no key).
 * Its server card is mcp-server-card.ts's.
 */
export function mcpRoute(deps: McpRouteDeps): Hono<AppEnv> {
  const route = new Hono<AppEnv>();
  const { access } = deps;
  const docentUrl = (c: Parameters<typeof requestOrigin>[0]) =>
    deps.publicUrl ?? requestOrigin(c, deps.trustProxy);

  // With a trailing slash too: agents' configurations are written both ways.
  const paths = ['/mcp/:domain', '/mcp/:domain/'];
  route.on('OPTIONS', paths, access.preflight);
  route.on('POST', paths, access.wrap, async (c) => {
    const gone = clientGone(c);
    const caller = await access.admit(c, { allowPublic: true });
    requireJsonBody(c);
    let message: unknown;
    try {
      message = await readJsonBody(c, MAX_MCP_BODY_BYTES);
    } catch (error) {
      // A body that is not JSON is the protocol's own error, answered as the SDK answers `null` or `42`.
      if (error instanceof SyntaxError)
        return c.json(
          { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not JSON' } },
          400,
        );
      throw error;
    }
    if (Array.isArray(message) && (message.length === 0 || message.length > MAX_MCP_BATCH_MESSAGES))
      throw new DocentError(
        'invalid_request',
        `A JSON-RPC batch must hold 1 to ${MAX_MCP_BATCH_MESSAGES} messages (got ${message.length})`,
      );
    const mcp = await loadMcpServer();
    const invalid = mcp.invalidJsonRpc(message);
    if (invalid) return c.json(invalid, 400);
    const origin = docentUrl(c);
    const server = mcp.createDocsMcpServer({
      site: caller.site,
      storage: deps.storage,
      search: deps.search,
      docentUrl: origin,
      version: DOCENT_VERSION,
      // A site whose index cannot be loaded still serves get_page: its tools are described without labels.
      labels: await deps.search.labels(caller.site.id, caller.site).catch(() => null),
      ask: docsAsker(deps.answers, {
        site: caller.site,
        plan: caller.plan,
        requestId: c.get('requestId'),
        fp: MCP_FP,
        retrieval: retrievalOf({ retrievalPageSize: DEFAULT_RETRIEVAL_PAGE_SIZE }),
        origin,
        gone,
        logger: c.get('logger'),
      }),
    });
    const transport = new mcp.WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    mcp.guardClientMessages(transport);
    try {
      const answer = transport.handleRequest(mcp.asJsonAnswerable(c.req.raw), { parsedBody: message });
      const response = await mcp.asBatchReply(await answer, message);
      // The transport's own Response: the id set on the context before the route is not on it.
      response.headers.set('X-Request-Id', c.get('requestId'));
      return response;
    } finally {
      await server.close();
    }
  });
  // Stateless: no session to stream server messages on or to end. PUT and PATCH get the same answer and
  // `Allow`: left to the app's 405 they were told GET and DELETE are allowed, which are refused here.
  route.on(['GET', 'DELETE', 'PUT', 'PATCH'], paths, () => {
    throw new DocentError('method_not_allowed', 'This MCP server is stateless: send requests with POST', {
      headers: { Allow: 'POST, OPTIONS' },
    });
  });

  return route;
}
