import { Agent, type Dispatcher, errors, request } from 'undici';
import { ProviderConnectTimeoutError, ProviderStallError } from './provider-errors.ts';

export interface ProviderTransportOptions {
  /** No connection, or no response headers, within this long fails the attempt. */
  connectTimeoutMs: number;
  /** Silence on the response body for this long (while it is being read) fails the answer. */
  stallTimeoutMs: number;
}

/** Idle provider connections are kept this long for the next answer (a TLS handshake costs more). */
const KEEP_ALIVE_MS = 30_000;

/**
 * The HTTP transport under every provider client: a `fetch` made from undici's `request` and one
 * connection pool. The provider packages only need `fetch`'s surface; a whole WHATWG fetch costs more
 * per answer (request objects, header guards) and its body cannot time out by itself, so a stall timer
 * had to wrap every chunk in one more stream. Here undici's own timers do it:
 *
 * - `connect.timeout` and `headersTimeout` become `ProviderConnectTimeoutError`;
 * - `bodyTimeout` becomes `ProviderStallError`. undici stops that clock while the body is paused, so a
 *   slow reader downstream (backpressure) never counts as the provider stalling;
 * - other connection failures reject like `fetch` does (`TypeError('fetch failed')` with the cause),
 *   which the AI SDK reports as "Cannot connect to API";
 * - the caller's `signal` aborts the request, before or after the headers, with the signal's reason.
 *
 * undici's header and body timers tick every half second, so they fire up to half a second early or
 * a second late; for timeouts of tens of seconds that is noise, and it keeps a timer per chunk cheap.
 */
export function providerTransport(options: ProviderTransportOptions): typeof fetch {
  const agent = new Agent({
    connect: { timeout: options.connectTimeoutMs },
    headersTimeout: options.connectTimeoutMs,
    bodyTimeout: options.stallTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_MS,
  });
  return async (input, init) => {
    const signal = init?.signal ?? undefined;
    signal?.throwIfAborted();
    const method = (init?.method ?? 'GET').toUpperCase() as Dispatcher.HttpMethod;
    // Outside the `try`, and not a `TypeError`: a body this cannot send is a programming error, not a
    // connection failure to retry.
    const body = requestBody(init?.body);
    let response: Dispatcher.ResponseData;
    try {
      response = await request(urlOf(input), {
        method,
        headers: headerRecord(init?.headers),
        body,
        dispatcher: agent,
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof errors.HeadersTimeoutError || error instanceof errors.ConnectTimeoutError)
        throw new ProviderConnectTimeoutError(options.connectTimeoutMs);
      throw new TypeError('fetch failed', { cause: error });
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (Array.isArray(value)) for (const item of value) headers.append(name, item);
      else if (value !== undefined) headers.set(name, value);
    }
    const status = response.statusCode;
    const empty = method === 'HEAD' || status === 204 || status === 205 || status === 304;
    if (empty) response.body.destroy();
    return new Response(empty ? null : webBody(response.body, options.stallTimeoutMs, signal), {
      status,
      headers,
    });
  };
}

/**
 * The response body as the web stream `Response` needs, pausing undici while the reader is behind.
 * One layer, like `fetch`'s own body; it also names the failures the answer stream reports.
 */
function webBody(
  body: Dispatcher.ResponseData['body'],
  stallTimeoutMs: number,
  signal: AbortSignal | undefined,
): ReadableStream<Uint8Array> {
  let settled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      body.on('data', (chunk: Buffer) => {
        if (settled) return;
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 0) <= 0) body.pause();
      });
      body.once('end', () => {
        if (settled) return;
        settled = true;
        controller.close();
      });
      body.once('error', (error: Error) => {
        if (settled) return;
        settled = true;
        if (signal?.aborted) controller.error(signal.reason);
        else if (error instanceof errors.BodyTimeoutError)
          controller.error(new ProviderStallError(stallTimeoutMs));
        else controller.error(new TypeError('terminated', { cause: error }));
      });
    },
    pull() {
      body.resume();
    },
    cancel() {
      settled = true;
      // Destroying an unfinished body aborts the request and closes its connection: the provider stops
      // generating (and billing) the rest of the answer.
      body.destroy();
    },
  });
}

function urlOf(input: Parameters<typeof fetch>[0]): string {
  if (typeof input === 'string') return input;
  if (input instanceof URL) return input.href;
  return input.url;
}

function headerRecord(headers: RequestInit['headers']): Record<string, string> | undefined {
  return headers === undefined ? undefined : toRecord(headers);
}

function toRecord(headers: NonNullable<RequestInit['headers']>): Record<string, string> {
  if (headers instanceof Headers || Array.isArray(headers)) return Object.fromEntries(new Headers(headers));
  const out: Record<string, string> = {};
  // The AI SDK passes a plain record and leaves unset headers as `undefined`.
  for (const [name, value] of Object.entries(headers as Record<string, string | undefined>))
    if (value !== undefined) out[name] = value;
  return out;
}

function requestBody(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === null || body === undefined) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  // The provider clients send JSON text; anything else would be a new kind of request to support here.
  throw new Error(`unsupported request body for a model provider: ${Object.prototype.toString.call(body)}`);
}
