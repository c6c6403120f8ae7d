/**
 * What MCP clients other than the TypeScript SDK send, made to meet the protocol's error codes: a
 * request whose params are of the wrong shape is the client's mistake (-32602), not the server's
 * (the SDK parses params inside the handler and answers any failure -32603, with zod's issues as
 * the message); a message that is JSON but not JSON-RPC is an Invalid Request (-32600, where the SDK's
 * HTTP transport says -32700, a parse error); and a task-augmented request is served as a plain one.
 */

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ClientRequestSchema,
  ErrorCode,
  isJSONRPCRequest,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js';

/** The SDK's schema of each request a client may send, by method. */
const requestSchemas = new Map<string, (typeof ClientRequestSchema.options)[number]>(
  ClientRequestSchema.options.map((schema) => [schema.shape.method.value, schema]),
);

interface Issue {
  path: PropertyKey[];
  message: string;
}

/** At most three of zod's issues, `params.name: expected string, …`: enough to fix a request by. */
function describeIssues(issues: readonly Issue[]): string {
  const shown = issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || '(the message)'}: ${issue.message}`);
  return issues.length > 3 ? `${shown.join('; ')}; and ${issues.length - 3} more` : shown.join('; ');
}

/**
 * The request without `params.task`: this server declares no tasks capability, and the 2025-11-25
 * revision says such a receiver MUST serve a task-augmented request normally, ignoring the task (the
 * SDK refuses it with -32603, and serves a tool call's result where a CreateTaskResult is expected).
 */
function withoutTask(request: JSONRPCRequest): JSONRPCRequest {
  if (request.params === undefined || !('task' in request.params)) return request;
  const { task: _ignored, ...params } = request.params;
  return { ...request, params };
}

/**
 * Puts a check of every request's params between the transport and the server it is connected to
 * (call it after `server.connect(transport)`): a request the server has a schema for whose params do
 * not fit it is answered -32602, naming the fields, and never reaches the server.
 */
export function guardClientMessages(transport: Transport): void {
  const deliver = transport.onmessage;
  if (deliver === undefined)
    throw new Error('guardClientMessages: connect the server to the transport first');
  const guarded = (message: JSONRPCMessage, extra?: Parameters<typeof deliver>[1]): void => {
    if (!isJSONRPCRequest(message)) {
      deliver(message, extra);
      return;
    }
    const request = withoutTask(message);
    const checked = requestSchemas.get(request.method)?.safeParse(request);
    if (checked === undefined || checked.success) {
      deliver(request, extra);
      return;
    }
    const refusal: JSONRPCErrorResponse = {
      jsonrpc: '2.0',
      id: request.id,
      error: {
        code: ErrorCode.InvalidParams,
        message: `Invalid params for ${request.method}: ${describeIssues(checked.error.issues)}`,
      },
    };
    // A send fails only when the client has gone; there is no one left to tell.
    transport.send(refusal).catch(() => undefined);
  };
  transport.onmessage = guarded as Transport['onmessage'];
}

/** An error response whose id may be null, as JSON-RPC answers a request whose id cannot be read. */
export interface InvalidRequestReply {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string };
}

/**
 * The JSON-RPC error for a body that is JSON but not a JSON-RPC message (or a batch holding one), or
 * null when it is one. Its `id` is the message's own when it has a usable one.
 */
export function invalidJsonRpc(body: unknown): InvalidRequestReply | null {
  const messages = Array.isArray(body) ? body : [body];
  const bad = messages.findIndex((message) => !JSONRPCMessageSchema.safeParse(message).success);
  if (bad === -1) return Array.isArray(body) ? invalidBatch(body as JSONRPCMessage[]) : null;
  const message: unknown = messages[bad];
  const id =
    !Array.isArray(body) && typeof message === 'object' && message !== null && 'id' in message
      ? message.id
      : undefined;
  const where = Array.isArray(body) ? ` (message ${bad + 1} of the batch)` : '';
  return {
    jsonrpc: '2.0',
    id: typeof id === 'string' || typeof id === 'number' ? id : null,
    error: {
      code: ErrorCode.InvalidRequest,
      message: `Invalid Request${where}: not a JSON-RPC 2.0 message. Send {"jsonrpc": "2.0", "id": <string or number>, "method": "<name>", "params": {…}}, or a notification without "id".`,
    },
  };
}

/**
 * A batch of well-formed messages the transport would mishandle: two requests under one id (it
 * answered one of them, not as an array, and left the other running: an `ask_docs` charged and never
 * delivered), or an `initialize` (which MCP 2025-03-26 forbids in a batch; the SDK's refusal says
 * "only one initialization request is allowed", even of one).
 */
function invalidBatch(batch: JSONRPCMessage[]): InvalidRequestReply | null {
  const seen = new Set<string>();
  for (const message of batch) {
    if (!isJSONRPCRequest(message)) continue;
    const reason =
      message.method === 'initialize'
        ? 'initialize may not be sent in a batch: send it alone'
        : seen.has(JSON.stringify(message.id))
          ? `two requests of the batch have the id ${JSON.stringify(message.id)}: give each its own`
          : null;
    if (reason !== null)
      return {
        jsonrpc: '2.0',
        id: null,
        error: { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${reason}` },
      };
    seen.add(JSON.stringify(message.id));
  }
  return null;
}

/**
 * The transport's answer to a batch, always an array as JSON-RPC 2.0 requires: the transport answers
 * a batch holding a single request (the rest notifications or responses) with that one reply alone.
 */
export async function asBatchReply(response: Response, body: unknown): Promise<Response> {
  if (!Array.isArray(body) || response.status !== 200) return response;
  const reply: unknown = await response.json();
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return Response.json(Array.isArray(reply) ? reply : [reply], { headers });
}

/**
 * Whether an `Accept` header admits a JSON answer, the only kind this server sends: absent, or naming
 * `application/json`, `application/*` or `*\/*` with a non-zero quality.
 */
export function acceptsJson(accept: string | null): boolean {
  if (accept === null || accept.trim() === '') return true;
  return accept.split(',').some((range) => {
    const [type = '', ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    if (type !== 'application/json' && type !== 'application/*' && type !== '*/*') return false;
    const quality = parameters.find((p) => p.startsWith('q='));
    return quality === undefined || Number(quality.slice(2)) > 0;
  });
}

/**
 * The request as the SDK's transport is to see it: one whose `Accept` admits JSON says it accepts both
 * JSON and event streams, which the transport requires of every POST though this server (JSON
 * responses only) never streams. curl's and most HTTP libraries' default `*\/*`, and `application/json`
 * alone, are then served; an `Accept` that admits no JSON keeps the transport's 406.
 */
export function asJsonAnswerable(request: Request): Request {
  if (!acceptsJson(request.headers.get('accept'))) return request;
  const headers = new Headers(request.headers);
  headers.set('accept', 'application/json, text/event-stream');
  // The body has been read already, and the transport is handed it parsed.
  return new Request(request.url, { method: request.method, headers });
}
