/**
 * Loopback language-model servers for tests and the overhead benchmark: plain `node:http` servers on
 * 127.0.0.1 that speak the real streaming wire formats (loopback-wires.ts), so the provider packages run
 * unmodified against them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicWire, openaiChatWire, type ScriptedStream, writeWire } from './loopback-wires.ts';

export { type ScriptedStream, sleep } from './loopback-wires.ts';

export interface LoopbackRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body. */
  body: Record<string, unknown>;
  /** 0-based number of this request on the server. */
  index: number;
  /** Resolves when the connection of this request is gone; `early` when the response had not ended. */
  closed: Promise<{ early: boolean }>;
}

export type LoopbackHandler = (
  request: LoopbackRequest,
  response: http.ServerResponse,
) => void | Promise<void>;

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  requests: LoopbackRequest[];
  close(): Promise<void>;
}

export async function startLoopbackLlm(handler: LoopbackHandler): Promise<LoopbackServer> {
  const requests: LoopbackRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const closed = new Promise<{ early: boolean }>((resolve) => {
        res.on('close', () => resolve({ early: !res.writableFinished }));
      });
      const text = Buffer.concat(chunks).toString('utf8');
      const request: LoopbackRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
        index: requests.length,
        closed,
      };
      requests.push(request);
      Promise.resolve(handler(request, res)).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.destroy();
      });
    });
  });
  // Hosted providers keep connections open for reuse. The `Keep-Alive: timeout=N` hint this sends is
  // what HTTP clients plan by, less a safety margin of a second: with 1 s here every request paid a new
  // connection.
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Writes `status` with a provider-style JSON error body. */
export function sendError(
  res: http.ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ error: { message, type: status === 429 ? 'rate_limit_error' : 'server_error' } }));
}

/** An OpenAI chat completions stream (`stream: true`, usage chunk as with `stream_options.include_usage`). */
export const writeOpenAIStream = (res: http.ServerResponse, script: ScriptedStream, model?: string) =>
  writeWire(res, openaiChatWire, script, model);

/** An Anthropic messages stream. */
export const writeAnthropicStream = (res: http.ServerResponse, script: ScriptedStream, model?: string) =>
  writeWire(res, anthropicWire, script, model);
