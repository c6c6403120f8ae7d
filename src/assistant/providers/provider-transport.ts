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
 * A successful answer's body is usually not read through the `Response` at all: `takeRawBody` hands it
 * to Docent's own stream decoding (direct-stream-model.ts).
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
    if (empty) {
      response.body.destroy();
      return new Response(null, { status, headers });
    }
    const raw = rawBody(response.body, options.stallTimeoutMs, signal);
    const fetched: Response = new Response(
      webBody(raw, (): boolean => unread.delete(fetched)),
      { status, headers },
    );
    unread.set(fetched, raw);
    return fetched;
  };
}

/**
 * A transport response's body for a reader that decodes it itself, without web streams
 * (direct-stream-model.ts). The failures it reports are the ones named above.
 */
export interface RawBody {
  /** Starts the flow: `data` for each chunk, then `end`, or `error` with the named failure. Call once. */
  read(sink: { data(chunk: Buffer): void; end(): void; error(error: unknown): void }): void;
  /** Stop delivering chunks until `resume` (the reader is behind): undici stops the stall clock too. */
  pause(): void;
  resume(): void;
  /** Stops reading and closes the connection: the provider stops generating (and billing) the rest. */
  destroy(): void;
}

/** Responses of this transport whose body nobody has started to read, with that body. */
const unread = new WeakMap<Response, RawBody>();

/**
 * The body of a response of this transport as a `RawBody`, if its web body was never read; the web body
 * then fails if anyone reads it. Undefined for any other response (a caller falls back to `response.body`).
 */
export function takeRawBody(response: Response): RawBody | undefined {
  const raw = unread.get(response);
  unread.delete(response);
  return raw;
}

function rawBody(
  body: Dispatcher.ResponseData['body'],
  stallTimeoutMs: number,
  signal: AbortSignal | undefined,
): RawBody {
  let settled = false;
  let sink: Parameters<RawBody['read']>[0] | undefined;
  let failure: unknown;
  // Listened to from the start: a body can fail (or be destroyed) before anyone reads it, and an
  // 'error' without a listener would crash the process.
  body.once('error', (error: Error) => {
    if (settled) return;
    settled = true;
    if (signal?.aborted) failure = signal.reason;
    else if (error instanceof errors.BodyTimeoutError) failure = new ProviderStallError(stallTimeoutMs);
    else failure = new TypeError('terminated', { cause: error });
    sink?.error(failure);
  });
  return {
    read(reader) {
      sink = reader;
      if (failure !== undefined) {
        reader.error(failure);
        return;
      }
      body.on('data', (chunk: Buffer) => {
        if (!settled) reader.data(chunk);
      });
      body.once('end', () => {
        if (settled) return;
        settled = true;
        reader.end();
      });
    },
    pause: () => body.pause(),
    resume: () => body.resume(),
    destroy() {
      settled = true;
      // Destroying an unfinished body aborts the request and closes its connection.
      body.destroy();
    },
  };
}

/**
 * The body as the web stream `Response` needs, one layer like `fetch`'s own. It starts reading at the
 * first read only (a high-water mark of 0), so that until then the body can still be taken raw; it pauses
 * undici while the reader is behind.
 */
function webBody(raw: RawBody, claim: () => boolean): ReadableStream<Uint8Array> {
  let started = false;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (started) {
          raw.resume();
          return;
        }
        started = true;
        if (!claim()) {
          controller.error(new TypeError('the response body was taken by another reader'));
          return;
        }
        raw.read({
          data(chunk) {
            controller.enqueue(chunk);
            if ((controller.desiredSize ?? 0) <= 0) raw.pause();
          },
          end: () => controller.close(),
          error: (error) => controller.error(error),
        });
      },
      cancel() {
        raw.destroy();
      },
    },
    { highWaterMark: 0 },
  );
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
