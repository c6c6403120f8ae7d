/**
 * Loopback language-model servers for tests and the overhead benchmark: plain `node:http` servers on
 * 127.0.0.1 that speak the real streaming wire formats (OpenAI chat completions SSE, Anthropic messages
 * SSE), so the provider packages run unmodified against them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

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

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface ScriptedStream {
  /** Text deltas, in order. */
  tokens: readonly string[];
  /** Wait before the response headers. */
  headerDelayMs?: number;
  /** Wait before the first token (after the headers). */
  firstTokenDelayMs?: number;
  /** Wait between tokens. */
  tokenDelayMs?: number;
  /**
   * How the stream ends after the tokens: `finish` (normally, with usage), `destroy` (the socket is cut),
   * `end` (the response ends cleanly without a finish reason), `stall` (nothing more is sent; the
   * connection stays open until the client gives up), `error` (the provider's in-stream error event).
   */
  ending?: 'finish' | 'destroy' | 'end' | 'stall' | 'error';
  usage?: { input: number; output: number };
  /**
   * Function calls the model makes after its tokens, the arguments in two pieces as real servers split
   * them: OpenAI `tool_calls` deltas ending with `finish_reason: "tool_calls"`, Anthropic `tool_use`
   * blocks with `input_json_delta`s ending with `stop_reason: "tool_use"`.
   */
  toolCalls?: readonly { id: string; name: string; arguments: string }[];
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
export async function writeOpenAIStream(
  res: http.ServerResponse,
  script: ScriptedStream,
  model = 'loopback',
): Promise<void> {
  const id = 'chatcmpl-loopback';
  const created = 1_700_000_000;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): string =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`;
  await sleep(script.headerDelayMs ?? 0);
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  res.write(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]));
  await sleep(script.firstTokenDelayMs ?? 0);
  for (const [i, token] of script.tokens.entries()) {
    if (i > 0) await sleep(script.tokenDelayMs ?? 0);
    if (res.destroyed) return;
    res.write(chunk([{ index: 0, delta: { content: token }, finish_reason: null }]));
  }
  await endStream(
    res,
    script,
    () => {
      const usage = script.usage ?? { input: 0, output: 0 };
      const calls = script.toolCalls ?? [];
      for (const [index, call] of calls.entries()) {
        const half = Math.floor(call.arguments.length / 2);
        const delta = (fn: Record<string, string>, extra: Record<string, string> = {}) =>
          chunk([
            { index: 0, delta: { tool_calls: [{ index, ...extra, function: fn }] }, finish_reason: null },
          ]);
        res.write(
          delta(
            { name: call.name, arguments: call.arguments.slice(0, half) },
            { id: call.id, type: 'function' },
          ),
        );
        res.write(delta({ arguments: call.arguments.slice(half) }));
      }
      res.write(chunk([{ index: 0, delta: {}, finish_reason: calls.length > 0 ? 'tool_calls' : 'stop' }]));
      res.write(
        chunk([], {
          usage: {
            prompt_tokens: usage.input,
            completion_tokens: usage.output,
            total_tokens: usage.input + usage.output,
          },
        }),
      );
      res.end('data: [DONE]\n\n');
    },
    () => {
      // OpenAI reports an error inside a stream as a chunk with an `error` object.
      res.end(
        `data: ${JSON.stringify({ error: { message: 'The server had an error', type: 'server_error' } })}\n\n`,
      );
    },
  );
}

/** An Anthropic messages stream. */
export async function writeAnthropicStream(
  res: http.ServerResponse,
  script: ScriptedStream,
  model = 'loopback',
): Promise<void> {
  const event = (name: string, data: unknown): string => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  const usage = script.usage ?? { input: 0, output: 0 };
  await sleep(script.headerDelayMs ?? 0);
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  res.write(
    event('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_loopback',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.input, output_tokens: 1 },
      },
    }),
  );
  res.write(
    event('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    }),
  );
  res.write(event('ping', { type: 'ping' }));
  await sleep(script.firstTokenDelayMs ?? 0);
  for (const [i, token] of script.tokens.entries()) {
    if (i > 0) await sleep(script.tokenDelayMs ?? 0);
    if (res.destroyed) return;
    res.write(
      event('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: token },
      }),
    );
  }
  await endStream(
    res,
    script,
    () => {
      res.write(event('content_block_stop', { type: 'content_block_stop', index: 0 }));
      const calls = script.toolCalls ?? [];
      for (const [i, call] of calls.entries()) {
        const index = i + 1;
        const half = Math.floor(call.arguments.length / 2);
        res.write(
          event('content_block_start', {
            type: 'content_block_start',
            index,
            content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
          }),
        );
        for (const partial of [call.arguments.slice(0, half), call.arguments.slice(half)]) {
          res.write(
            event('content_block_delta', {
              type: 'content_block_delta',
              index,
              delta: { type: 'input_json_delta', partial_json: partial },
            }),
          );
        }
        res.write(event('content_block_stop', { type: 'content_block_stop', index }));
      }
      res.write(
        event('message_delta', {
          type: 'message_delta',
          delta: { stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null },
          usage: { output_tokens: usage.output },
        }),
      );
      res.end(event('message_stop', { type: 'message_stop' }));
    },
    () => {
      res.end(event('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
    },
  );
}

async function endStream(
  res: http.ServerResponse,
  script: ScriptedStream,
  finish: () => void,
  error: () => void,
): Promise<void> {
  if (res.destroyed) return;
  switch (script.ending ?? 'finish') {
    case 'finish':
      finish();
      return;
    case 'destroy':
      // Let the written tokens reach the client first, then cut the connection without ending the response.
      await sleep(20);
      res.destroy();
      return;
    case 'end':
      res.end();
      return;
    case 'stall':
      return;
    case 'error':
      error();
      return;
  }
}
