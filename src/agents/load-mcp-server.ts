import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { createDocsMcpServer } from './docs-mcp-server.ts';
import type {
  asBatchReply,
  asJsonAnswerable,
  guardClientMessages,
  invalidJsonRpc,
} from './mcp-client-messages.ts';

export interface McpServerModules {
  WebStandardStreamableHTTPServerTransport: typeof WebStandardStreamableHTTPServerTransport;
  createDocsMcpServer: typeof createDocsMcpServer;
  guardClientMessages: typeof guardClientMessages;
  invalidJsonRpc: typeof invalidJsonRpc;
  asJsonAnswerable: typeof asJsonAnswerable;
  asBatchReply: typeof asBatchReply;
}

let loading: Promise<McpServerModules> | undefined;

/**
 * The MCP SDK is about 14 MB of a process's memory: loaded with the first MCP request, so a server no
 * agent talks to never holds it.
 */
export function loadMcpServer(): Promise<McpServerModules> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('./docs-mcp-server.ts'),
    import('./mcp-client-messages.ts'),
  ]).then(([transport, server, messages]) => ({
    WebStandardStreamableHTTPServerTransport: transport.WebStandardStreamableHTTPServerTransport,
    createDocsMcpServer: server.createDocsMcpServer,
    guardClientMessages: messages.guardClientMessages,
    invalidJsonRpc: messages.invalidJsonRpc,
    asJsonAnswerable: messages.asJsonAnswerable,
    asBatchReply: messages.asBatchReply,
  }));
  return loading;
}
