import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';

/*
 * The assistant route's view of the request on @hono/node-server, read from Node's own objects. Going
 * through `c.req` makes the server build a WHATWG `Request` (a `Headers` object, a web stream over the
 * body, an `AbortController`) for every request, which showed up as several per cent of the route's
 * CPU. Without Node bindings (`app.request()` in tests, other runtimes) these fall back to `c.req`.
 */

/** What @hono/node-server passes as `c.env`; absent under `app.request()` and other runtimes. */
interface NodeBindings {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

export function nodeBindings(c: Context): NodeBindings | undefined {
  const env = c.env as Partial<NodeBindings> | undefined;
  return env?.incoming !== undefined && env.outgoing !== undefined ? (env as NodeBindings) : undefined;
}

/** A request header (`name` in any case), as `c.req.header` gives it. */
export function requestHeader(c: Context, name: string): string | undefined {
  const node = nodeBindings(c);
  if (node === undefined) return c.req.header(name);
  const value = node.incoming.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Whether the client went away before the response was complete. */
export interface ClientGone {
  readonly aborted: boolean;
  /**
   * The same as an `AbortSignal`, made on first use: creating one is a measurable share of a request's
   * CPU on Node 20, and only a model that does I/O (a provider's fetch) needs a real one.
   */
  readonly signal: AbortSignal;
}

/**
 * Watches for the client going away before the response is complete. On @hono/node-server this
 * listens on the Node response instead of materialising the WHATWG request's signal (see above).
 */
export function clientGone(c: Context): ClientGone {
  const node = nodeBindings(c);
  if (node === undefined) {
    const signal = c.req.raw.signal;
    return {
      get aborted() {
        return signal.aborted;
      },
      signal,
    };
  }
  const { outgoing } = node;
  let gone = false;
  let controller: AbortController | undefined;
  outgoing.once('close', () => {
    if (outgoing.writableFinished) return;
    gone = true;
    controller?.abort();
  });
  return {
    get aborted() {
      return gone;
    },
    get signal() {
      if (controller === undefined) {
        controller = new AbortController();
        if (gone) controller.abort();
      }
      return controller.signal;
    },
  };
}
