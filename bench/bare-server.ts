/**
 * The ceiling for this stack, one route per wire, with no auth, storage, search or answering:
 * - `POST /message` (v1): a bare Hono route on @hono/node-server that streams a fixed answer with the same
 *   ai@4.3.19 helpers and the same part sequence Docent's v1 route writes (f, 9, a, 0…, h, 8, e, d).
 * - `POST /message-v2` (v2): the same fixed answer as an AI SDK 5 UI message stream, built with the real
 *   ai@5 helpers (`ai-v5`, an npm alias of ai@5.0.277: `createUIMessageStream` +
 *   `createUIMessageStreamResponse`, i.e. the SDK's own chunk stream, JSON-to-SSE and text-encoder
 *   stages) and the same chunk sequence Docent's v2 route writes (start, start-step, tool-input-available,
 *   tool-output-available, text-start, text-delta…, text-end, source-url, finish-step, finish, [DONE]).
 * Both read and parse the JSON request body. Prints its port on stdout.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createDataStreamResponse, formatDataStreamPart } from 'ai-v4';
import { createUIMessageStream, createUIMessageStreamResponse } from 'ai-v5';
import { Hono } from 'hono';

const words =
  'Docent answers questions about your documentation with grounded, cited answers streamed to the client. [1]'.split(
    ' ',
  );
/** The answer's text deltas: four words each, as on both routes. */
const deltas: string[] = [];
for (let i = 0; i < words.length; i += 4) deltas.push(`${words.slice(i, i + 4).join(' ')} `);

const app = new Hono()
  .post('/message', async (c) => {
    await c.req.json();
    return createDataStreamResponse({
      headers: { 'X-Thread-Id': 'thr_bare' },
      execute: async (writer) => {
        writer.write(formatDataStreamPart('start_step', { messageId: 'msg_bare' }));
        writer.write(
          formatDataStreamPart('tool_call', {
            toolCallId: 'call_1',
            toolName: 'search',
            args: { query: 'q' },
          }),
        );
        writer.write(
          formatDataStreamPart('tool_result', {
            toolCallId: 'call_1',
            result: { type: 'search', results: [{ path: 'a', url: '/a', metadata: { title: 'A' } }] },
          }),
        );
        for (const delta of deltas) writer.write(formatDataStreamPart('text', delta));
        writer.write(formatDataStreamPart('source', { sourceType: 'url', id: '1', url: '/a', title: 'A' }));
        writer.write(formatDataStreamPart('message_annotations', [{ threadId: 'thr_bare' }]));
        const usage = { promptTokens: 100, completionTokens: 20 };
        writer.write(
          formatDataStreamPart('finish_step', { finishReason: 'stop', usage, isContinued: false }),
        );
        writer.write(formatDataStreamPart('finish_message', { finishReason: 'stop', usage }));
      },
    });
  })
  .post('/message-v2', async (c) => {
    await c.req.json();
    const stream = createUIMessageStream({
      execute: ({ writer }) => {
        writer.write({ type: 'start', messageId: 'msg_bare', messageMetadata: { threadId: 'thr_bare' } });
        writer.write({ type: 'start-step' });
        writer.write({
          type: 'tool-input-available',
          toolCallId: 'call_1',
          toolName: 'search',
          input: { query: 'q' },
          providerExecuted: true,
          dynamic: true,
        });
        writer.write({
          type: 'tool-output-available',
          toolCallId: 'call_1',
          output: { type: 'search', results: [{ path: 'a', url: '/a', metadata: { title: 'A' } }] },
          providerExecuted: true,
          dynamic: true,
        });
        writer.write({ type: 'text-start', id: 'txt_0' });
        for (const delta of deltas) writer.write({ type: 'text-delta', id: 'txt_0', delta });
        writer.write({ type: 'text-end', id: 'txt_0' });
        writer.write({ type: 'source-url', sourceId: '1', url: '/a', title: 'A' });
        writer.write({ type: 'finish-step' });
        writer.write({
          type: 'finish',
          messageMetadata: {
            threadId: 'thr_bare',
            finishReason: 'stop',
            usage: { inputTokens: 100, outputTokens: 20 },
          },
        });
      },
    });
    return createUIMessageStreamResponse({ stream, headers: { 'X-Thread-Id': 'thr_bare' } });
  });

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
