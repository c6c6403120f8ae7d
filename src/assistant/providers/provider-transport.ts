import http from 'node:http';
import https from 'node:https';
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
 * The HTTP transport under every provider client: a `fetch` made from Node's `http`/`https` clients with
 * one keep-alive pool each. The provider packages only need `fetch`'s surface; a whole WHATWG fetch costs
 * more per answer (request objects, header guards) and its body cannot time out by itself.
 *
 * Node's client rather than undici's: undici (6.29 and 7.x) waits for the event loop's next check phase
 * before it writes a request to a kept-alive connection, to see first whether the server sent anything
 * unasked on it. On a loaded server that wait is everything else the loop has to do first, and it comes
 * before the model's time to first token: measured at 32 concurrent answers, about 0.7 ms of the median
 * and a third of the 90th percentile (`npm run bench:overhead`). Node's client writes the request at once;
 * bytes a server sends on a connection while it sits idle in the pool are read by nobody and dropped, and a
 * connection the server closes leaves the pool.
 *
 * - no response headers within `connectTimeoutMs` of the request (connecting included) is
 *   `ProviderConnectTimeoutError`;
 * - silence on a body being read for `stallTimeoutMs` is `ProviderStallError`. The clock stops while the
 *   body is paused, so a slow reader downstream (backpressure) never counts as the provider stalling;
 *   in an event stream, comments (`: keep-alive`, which proxies send while a model is slow) are silence;
 * - other connection failures reject like `fetch` does (`TypeError('fetch failed')` with the cause), which
 *   the AI SDK reports as "Cannot connect to API"; a body cut short fails with `TypeError('terminated')`;
 * - the caller's `signal` aborts the request, before or after the headers, with the signal's reason, and
 *   closes the connection.
 */
export function providerTransport(options: ProviderTransportOptions): typeof fetch {
  // `timeout` closes pooled connections idle this long; Node also honours a shorter `Keep-Alive: timeout`.
  const agents = {
    'http:': new http.Agent({ keepAlive: true, timeout: KEEP_ALIVE_MS }),
    'https:': new https.Agent({ keepAlive: true, timeout: KEEP_ALIVE_MS }),
  };
  return async (input, init) => {
    const signal = init?.signal ?? undefined;
    signal?.throwIfAborted();
    const method = (init?.method ?? 'GET').toUpperCase();
    // Outside the connection failures, and not a `TypeError`: a body this cannot send is a programming
    // error, not a connection failure to retry.
    const body = requestBody(init?.body);
    const url = new URL(urlOf(input));
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new TypeError('fetch failed', { cause: new Error(`unsupported protocol ${url.protocol}`) });
    const client = url.protocol === 'https:' ? https : http;
    const send = (): Promise<http.IncomingMessage> =>
      new Promise<http.IncomingMessage>((resolve, reject) => {
        const request = client.request(url, {
          method,
          headers: headerRecord(init?.headers),
          agent: agents[url.protocol as keyof typeof agents],
        });
        let settled = false;
        /** True the first time only: the attempt's timer and abort listener are then gone. */
        const finish = (): boolean => {
          if (settled) return false;
          settled = true;
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          return true;
        };
        const fail = (error: unknown): void => {
          if (!finish()) return;
          request.destroy();
          reject(error);
        };
        const timer = setTimeout(
          () => fail(new ProviderConnectTimeoutError(options.connectTimeoutMs)),
          options.connectTimeoutMs,
        );
        const onAbort = (): void => fail(signal?.reason);
        signal?.addEventListener('abort', onAbort, { once: true });
        // Stays attached: a connection can still fail after the promise has settled.
        request.on('error', (error) => {
          // A kept-alive connection that closed as this request was written: most likely the server
          // closed it as idle a moment before, without reading the request. It goes out again at once
          // (other connection failures wait for resilient-fetch.ts's backoff). The failed connection has
          // left the pool, so this ends at the latest on a new connection, failing like any other.
          if (request.reusedSocket && isStaleConnection(error) && !signal?.aborted) {
            if (finish()) resolve(send());
            return;
          }
          fail(new TypeError('fetch failed', { cause: error }));
        });
        request.once('response', (response) => {
          if (finish()) resolve(response);
          else response.destroy();
        });
        request.end(body);
      });
    const incoming = await send();
    const headers = new Headers();
    const raw = incoming.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
    const status = incoming.statusCode ?? 0;
    const empty = method === 'HEAD' || status === 204 || status === 205 || status === 304;
    if (empty) {
      incoming.resume();
      return new Response(null, { status, headers });
    }
    const events = headers.get('content-type')?.startsWith('text/event-stream') === true;
    return new Response(bodyOf(incoming, options.stallTimeoutMs, signal, events), { status, headers });
  };
}

/** Where an event stream's last chunk ended: at the start of a line, or inside a comment line or not. */
interface SseLines {
  atStart: boolean;
  comment: boolean;
}

const COLON = 0x3a;
const LF = 0x0a;
const CR = 0x0d;

/**
 * Whether a chunk of an event stream has a byte of a line that is not a comment (a field such as
 * `data:`). Lines end at CR, LF or CRLF, as the SSE format allows; `lines` carries a line cut between
 * chunks. One pass at most: comment lines are walked, and the first other byte ends the walk (the state
 * for the next chunk is then read from the chunk's last line).
 */
export function hasMoreThanComments(chunk: Uint8Array, lines: SseLines): boolean {
  for (let at = 0; at < chunk.length; at++) {
    const byte = chunk[at];
    if (byte === LF || byte === CR) {
      lines.atStart = true;
      continue;
    }
    if (lines.atStart) {
      lines.atStart = false;
      lines.comment = byte === COLON;
    }
    if (!lines.comment) {
      settleAtEnd(chunk, at, lines);
      return true;
    }
  }
  return false;
}

/** The line state after `chunk`, whose byte at `from` is of a line that is not a comment. */
function settleAtEnd(chunk: Uint8Array, from: number, lines: SseLines): void {
  let last = chunk.length - 1;
  while (last > from && chunk[last] !== LF && chunk[last] !== CR) last--;
  if (last === from) return;
  if (last === chunk.length - 1) lines.atStart = true;
  else lines.comment = chunk[last + 1] === COLON;
}

/** The errors of writing to a connection the server had already closed. */
function isStaleConnection(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

/**
 * The body as the web stream `Response` needs, one layer like `fetch`'s own, with the stall clock. It
 * pauses the connection while the reader is behind; a period that runs out meanwhile starts again when
 * the reader catches up, so a slow reader downstream (backpressure) never counts as the provider
 * stalling. In an event stream (`events`) only bytes of a line that is not a comment reset the clock.
 */
function bodyOf(
  body: http.IncomingMessage,
  stallTimeoutMs: number,
  signal: AbortSignal | undefined,
  events: boolean,
): ReadableStream<Uint8Array> {
  let stall: NodeJS.Timeout | undefined;
  let settled = false;
  let dueWhilePaused = false;
  const lines: SseLines = { atStart: true, comment: false };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        /** True the first time only: the stall timer and abort listener are then gone. */
        const finish = (): boolean => {
          if (settled) return false;
          settled = true;
          clearTimeout(stall);
          signal?.removeEventListener('abort', onAbort);
          return true;
        };
        const fail = (error: unknown): void => {
          if (finish()) controller.error(error);
          // Destroying an unfinished body closes its connection.
          body.destroy();
        };
        const onAbort = (): void => fail(signal?.reason);
        signal?.addEventListener('abort', onAbort, { once: true });
        stall = setTimeout(() => {
          if (body.isPaused()) dueWhilePaused = true;
          else fail(new ProviderStallError(stallTimeoutMs));
        }, stallTimeoutMs);
        // Listened to from the start: an 'error' without a listener would crash the process.
        body.once('error', (error: Error) => fail(new TypeError('terminated', { cause: error })));
        body.once('close', () => {
          if (!body.complete) fail(new TypeError('terminated'));
        });
        body.on('data', (chunk: Buffer) => {
          if (settled) return;
          if (!events || hasMoreThanComments(chunk, lines)) stall?.refresh();
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) <= 0) body.pause();
        });
        body.once('end', () => {
          if (finish()) controller.close();
        });
      },
      pull() {
        if (!body.isPaused()) return;
        // The reader was behind when the clock ran out: the provider gets a whole period again. Not on
        // every resume: the body pauses after each chunk, and keep-alive comments would restart it.
        if (dueWhilePaused && !settled) stall?.refresh();
        dueWhilePaused = false;
        body.resume();
      },
      cancel() {
        settled = true;
        clearTimeout(stall);
        body.destroy();
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
