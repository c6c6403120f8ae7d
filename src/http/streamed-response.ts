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
    // What is written in one turn of the event loop goes out as one chunk: an answer ready at once (the
    // built-in answerer's) is one write instead of one per part, and each write costs Node's HTTP layer
    // a chunk of its own (its length line, the data, its end). The flush waits for the end of the turn
    // (setImmediate: a nextTick would run before the promise continuations that write the next parts);
    // a model's tokens arrive in turns of their own, so they still go out as they come. A write after
    // the client left is dropped by Node (the stream is destroyed), never thrown.
    let pending = '';
    const take = (): string => {
      const text = pending;
      pending = '';
      return text;
    };
    const flush = (): void => {
      const text = take();
      if (text !== '') outgoing.write(text);
    };
    produce({
      write: (text) => {
        if (text === '') return;
        if (pending === '') setImmediate(flush);
        pending += text;
      },
    })
      .catch(onError)
      .finally(() => outgoing.end(take()));
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
