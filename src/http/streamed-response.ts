import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import { nodeBindings } from './node-request.ts';

/** Where a streamed body's text goes, as it is produced. */
export interface TextSink {
  write(text: string): void;
}

/**
 * A 200 response whose body `produce` writes while it runs; the body ends when `produce` settles (it
 * should not reject: a rejection is passed to `onError` and the body still ends).
 *
 * On @hono/node-server the text goes straight to Node's response. A web `Response` body would cost a
 * web-stream stage per chunk on Node 20 (the answer's tokens arrive one by one), and @hono/node-server
 * holds back the first chunk of a streamed body without `Transfer-Encoding: chunked` until a timer turn
 * has passed, which adds a millisecond or more to the first token. Without Node bindings
 * (`app.request()` in tests, other runtimes) the body is a `ReadableStream` of the same bytes.
 */
export function streamedResponse(
  c: Context,
  headers: Record<string, string>,
  produce: (sink: TextSink) => Promise<void>,
  onError: (error: unknown) => void,
): Response {
  const node = nodeBindings(c);
  if (node !== undefined) {
    const { outgoing } = node;
    outgoing.writeHead(200, headers);
    // A write after the client left is dropped by Node (the stream is destroyed), never thrown.
    produce({ write: (text) => outgoing.write(text) })
      .catch(onError)
      .finally(() => outgoing.end());
    // Tells @hono/node-server the response is being written; a copy, so no request touches the shared one.
    return new Response(null, RESPONSE_ALREADY_SENT);
  }
  const encoder = new TextEncoder();
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      produce({
        write(text) {
          if (!cancelled) controller.enqueue(encoder.encode(text));
        },
      })
        .catch(onError)
        .finally(() => {
          if (!cancelled) controller.close();
        });
    },
    cancel() {
      cancelled = true;
    },
  });
  return new Response(body, { status: 200, headers });
}
