import { askedRetryAfterMs, isOutOfQuota } from './provider-errors.ts';
import { type ProviderTransportOptions, providerTransport } from './provider-transport.ts';

/**
 * The `fetch` every provider client is given. It owns the failure rules that are the same for all
 * providers, at the only layer that sees them all: the HTTP exchange.
 *
 * - Retries with backoff on 408/409/429/5xx and on connection failures, and only before a response is
 *   handed to the provider client, so only before any of the answer exists: a stream that fails once
 *   text has started is never replayed (the reader would see the answer twice).
 * - The connect and stall timeouts, and the caller's abort signal (the reader disconnecting), are the
 *   transport's (provider-transport.ts). A timed-out connection is not retried: the provider is down or
 *   overloaded, and the reader has already waited the whole timeout.
 */
export interface ResilientFetchOptions extends ProviderTransportOptions {
  maxRetries: number;
  /** First backoff delay; doubled on each retry, with jitter. */
  retryDelayMs?: number;
  /** Longest wait before a retry. A `Retry-After` beyond it is not waited for: the error is returned. */
  maxRetryDelayMs?: number;
  /** The underlying fetch (tests pass a spy); `providerTransport` by default. */
  fetch?: typeof fetch;
}

const DEFAULT_RETRY_DELAY_MS = 500;
const DEFAULT_MAX_RETRY_DELAY_MS = 8_000;

export function resilientFetch(options: ResilientFetchOptions): typeof fetch {
  const baseFetch = options.fetch ?? providerTransport(options);
  const retryDelayMs = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  const maxRetryDelayMs = options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;

  return async (input, init) => {
    const signal = init?.signal ?? undefined;
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      let response: Response;
      try {
        response = await baseFetch(input, init);
      } catch (error) {
        if (signal?.aborted || !isConnectionFailure(error) || attempt >= options.maxRetries) throw error;
        await sleep(backoff(attempt, retryDelayMs, maxRetryDelayMs), signal);
        continue;
      }
      if (
        isRetryableStatus(response.status) &&
        attempt < options.maxRetries &&
        !(response.status === 429 && isOutOfQuota(await response.clone().text()))
      ) {
        const delay = retryDelay(response.headers, attempt, retryDelayMs, maxRetryDelayMs);
        if (delay !== undefined) {
          // Discarding the body frees the connection for the retry.
          await response.body?.cancel().catch(() => {});
          await sleep(delay, signal);
          continue;
        }
      }
      return response;
    }
  };
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
  const asked = askedRetryAfterMs((name) => headers.get(name));
  if (asked === undefined) return computed;
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
