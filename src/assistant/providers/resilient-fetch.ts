import { ProviderConnectTimeoutError, ProviderStallError } from './provider-errors.ts';

/**
 * The `fetch` every provider client is given. It owns the failure rules that are the same for all
 * providers, at the only layer that sees them all: the HTTP exchange.
 *
 * - Connect timeout: no response headers within `connectTimeoutMs` aborts the attempt.
 * - Retries with backoff on 408/409/429/5xx and on connection failures, and only before a response is
 *   handed to the provider client, so only before any of the answer exists: a stream that fails once
 *   text has started is never replayed (the reader would see the answer twice).
 * - Stall timeout: while the provider client waits for more of the body, silence longer than
 *   `stallTimeoutMs` aborts the request (closing the connection) and errors the body with
 *   `ProviderStallError`. Time the client spends not reading (backpressure) is not counted.
 * - The caller's abort signal (the reader disconnecting) aborts the upstream request at any point.
 */
export interface ResilientFetchOptions {
  connectTimeoutMs: number;
  stallTimeoutMs: number;
  maxRetries: number;
  /** First backoff delay; doubled on each retry, with jitter. */
  retryDelayMs?: number;
  /** Longest wait before a retry. A `Retry-After` beyond it is not waited for: the error is returned. */
  maxRetryDelayMs?: number;
  /** The underlying fetch (tests pass a spy); the global one by default. */
  fetch?: typeof fetch;
}

const DEFAULT_RETRY_DELAY_MS = 500;
const DEFAULT_MAX_RETRY_DELAY_MS = 8_000;

export function resilientFetch(options: ResilientFetchOptions): typeof fetch {
  const baseFetch = options.fetch ?? globalThis.fetch;
  const retryDelayMs = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  const maxRetryDelayMs = options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;

  return async (input, init) => {
    const outer = init?.signal ?? undefined;
    for (let attempt = 0; ; attempt++) {
      outer?.throwIfAborted();
      const controller = new AbortController();
      const onOuterAbort = (): void => controller.abort(outer?.reason);
      outer?.addEventListener('abort', onOuterAbort, { once: true });
      const release = (): void => outer?.removeEventListener('abort', onOuterAbort);

      let timedOut = false;
      const connectTimer = setTimeout(() => {
        timedOut = true;
        controller.abort(new ProviderConnectTimeoutError(options.connectTimeoutMs));
      }, options.connectTimeoutMs);

      let response: Response;
      try {
        response = await baseFetch(input, { ...init, signal: controller.signal });
      } catch (error) {
        release();
        if (timedOut) throw new ProviderConnectTimeoutError(options.connectTimeoutMs);
        if (outer?.aborted || !isConnectionFailure(error) || attempt >= options.maxRetries) throw error;
        await sleep(backoff(attempt, retryDelayMs, maxRetryDelayMs), outer);
        continue;
      } finally {
        clearTimeout(connectTimer);
      }

      if (isRetryableStatus(response.status) && attempt < options.maxRetries) {
        const delay = retryDelay(response.headers, attempt, retryDelayMs, maxRetryDelayMs);
        if (delay !== undefined) {
          // Discarding the body frees the connection for the retry.
          await response.body?.cancel().catch(() => {});
          release();
          await sleep(delay, outer);
          continue;
        }
      }
      if (response.body === null) {
        release();
        return response;
      }
      return new Response(guardStalls(response.body, controller, options.stallTimeoutMs, release), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    }
  };
}

function guardStalls(
  body: ReadableStream<Uint8Array>,
  controller: AbortController,
  stallTimeoutMs: number,
  release: () => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let stalled = false;
  // One timer per stream, re-armed with `refresh` (cheaper than a timer per chunk), and acted on only
  // while waiting on the provider, so a slow downstream reader never counts as a stall.
  let waiting = false;
  const timer = setTimeout(() => {
    if (!waiting) return;
    stalled = true;
    controller.abort(new ProviderStallError(stallTimeoutMs));
  }, stallTimeoutMs);
  const finish = (): void => {
    clearTimeout(timer);
    release();
  };
  return new ReadableStream<Uint8Array>({
    async pull(out) {
      waiting = true;
      timer.refresh();
      try {
        const { done, value } = await reader.read();
        if (done) {
          finish();
          out.close();
        } else out.enqueue(value);
      } catch (error) {
        finish();
        out.error(stalled ? new ProviderStallError(stallTimeoutMs) : error);
      } finally {
        waiting = false;
      }
    },
    async cancel(reason) {
      finish();
      // Cancelling the body alone can leave the socket open until the server finishes: abort the request.
      controller.abort(reason);
      await reader.cancel(reason).catch(() => {});
    },
  });
}

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** `fetch` rejects with a `TypeError` when the connection fails (refused, reset before a response). */
function isConnectionFailure(error: unknown): boolean {
  return error instanceof TypeError;
}

function backoff(attempt: number, base: number, max: number): number {
  const full = Math.min(max, base * 2 ** attempt);
  // Jitter spreads the retries of many streams that failed together (one provider outage).
  return Math.round(full / 2 + (Math.random() * full) / 2);
}

/** The wait before a retry, honouring `Retry-After` (seconds or a date); undefined when it is too long. */
function retryDelay(headers: Headers, attempt: number, base: number, max: number): number | undefined {
  const computed = backoff(attempt, base, max);
  const header = headers.get('retry-after-ms') ?? headers.get('retry-after');
  if (header === null) return computed;
  let asked: number;
  if (headers.has('retry-after-ms')) asked = Number(header);
  else if (/^\d+(\.\d+)?$/.test(header.trim())) asked = Number(header) * 1000;
  else asked = Date.parse(header) - Date.now();
  if (!Number.isFinite(asked)) return computed;
  if (asked > max) return undefined;
  return Math.max(computed, asked);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
