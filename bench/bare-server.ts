/**
 * The ceiling for this stack: a bare Hono route on @hono/node-server that streams a fixed answer with
 * the same ai@4.3.19 helpers and the same part sequence Docent writes (f, 9, a, 0…, h, 8, e, d), with
 * no auth, storage, search or answering. Prints its port on stdout.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createDataStreamResponse, formatDataStreamPart } from 'ai';
import { Hono } from 'hono';

const words =
  'Docent answers questions about your documentation with grounded, cited answers streamed to the client. [1]'.split(
    ' ',
  );

const app = new Hono().post('/message', async (c) => {
  await c.req.json();
  return createDataStreamResponse({
    headers: { 'X-Thread-Id': 'thr_bare' },
    execute: async (writer) => {
      writer.write(formatDataStreamPart('start_step', { messageId: 'msg_bare' }));
      writer.write(
        formatDataStreamPart('tool_call', { toolCallId: 'call_1', toolName: 'search', args: { query: 'q' } }),
      );
      writer.write(
        formatDataStreamPart('tool_result', {
          toolCallId: 'call_1',
          result: { type: 'search', results: [{ path: 'a', url: '/a', metadata: { title: 'A' } }] },
        }),
      );
      for (let i = 0; i < words.length; i += 4)
        writer.write(formatDataStreamPart('text', `${words.slice(i, i + 4).join(' ')} `));
      writer.write(formatDataStreamPart('source', { sourceType: 'url', id: '1', url: '/a', title: 'A' }));
      writer.write(formatDataStreamPart('message_annotations', [{ threadId: 'thr_bare' }]));
      const usage = { promptTokens: 100, completionTokens: 20 };
      writer.write(formatDataStreamPart('finish_step', { finishReason: 'stop', usage, isContinued: false }));
      writer.write(formatDataStreamPart('finish_message', { finishReason: 'stop', usage }));
    },
  });
});

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
