import { APICallError } from '@ai-sdk/provider';
import { EmptyAnswerError } from '../answer-stream.ts';

/**
 * Errors of the model providers, and what of them may leave the server. Their names are deliberately not
 * `AbortError`/`TimeoutError`: the stream writer reads those as the client going away, not as a failure.
 */

/** No response headers from the provider within the connect timeout. */
export class ProviderConnectTimeoutError extends Error {
  override name = 'ProviderConnectTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`The model provider did not respond within ${timeoutMs} ms`);
  }
}

/** The provider's response body went silent for longer than the stall timeout. */
export class ProviderStallError extends Error {
  override name = 'ProviderStallError';
  constructor(readonly timeoutMs: number) {
    super(`The model provider sent nothing for ${timeoutMs} ms`);
  }
}

/** The provider's stream ended without saying the answer was finished (no finish reason). */
export class ProviderStreamCutError extends Error {
  override name = 'ProviderStreamCutError';
  constructor() {
    super('The model provider ended the stream before the answer was finished');
  }
}

/**
 * What the reader is told. Never the provider's own message: it can carry account details, quota names
 * or fragments of the prompt. The request id lets an operator find the details in the server log.
 */
export function safeProviderErrorMessage(thrown: unknown, requestId: string): string {
  const error = transportCause(thrown);
  let what = 'The model provider failed while answering.';
  if (error instanceof ProviderStallError) what = 'The model provider stopped responding while answering.';
  else if (error instanceof ProviderStreamCutError) what = 'The answer was cut off by the model provider.';
  else if (error instanceof ProviderConnectTimeoutError) what = 'The model provider did not respond in time.';
  else if (error instanceof EmptyAnswerError) what = 'The model ended without an answer; please try again.';
  else if (APICallError.isInstance(error) && error.statusCode === 429)
    what = isOutOfQuota(error.responseBody)
      ? 'The model provider refused the request: the account it answers with has no quota left.'
      : 'The model provider is rate limiting requests; please try again shortly.';
  return `${what} (request ${requestId})`;
}

/**
 * The transport's own failure under a package's wrapper: the packages report a body that fails while
 * they read it as an `APICallError` ("Failed to process successful response") caused by it.
 */
function transportCause(error: unknown): unknown {
  const cause = APICallError.isInstance(error) ? error.cause : undefined;
  return cause instanceof ProviderStallError || cause instanceof ProviderStreamCutError ? cause : error;
}

/**
 * OpenAI's 429 for an account with no quota or credit left (`insufficient_quota`): no retry or wait
 * changes it, so retrying only kept the reader waiting for the same refusal.
 */
export function isOutOfQuota(body: string | undefined): boolean {
  return body?.includes('insufficient_quota') === true;
}

/**
 * The wait a provider asked for in its `retry-after-ms` (OpenAI's) or `Retry-After` header (seconds or an
 * HTTP date), in milliseconds; undefined when it asked for none or wrote something unreadable.
 */
export function askedRetryAfterMs(header: (name: string) => string | null | undefined): number | undefined {
  const ms = header('retry-after-ms');
  const value = ms ?? header('retry-after');
  if (value === null || value === undefined) return undefined;
  let asked: number;
  if (ms !== null && ms !== undefined) asked = Number(ms);
  else if (/^\d+(\.\d+)?$/.test(value.trim())) asked = Number(value) * 1000;
  else asked = Date.parse(value) - Date.now();
  return Number.isFinite(asked) ? Math.max(0, asked) : undefined;
}

/** The longest `Retry-After` passed on to a reader: an hour, beyond which "later" is all it says. */
const MAX_PASSED_RETRY_AFTER_SECONDS = 3_600;

/**
 * The `Retry-After` (whole seconds) to give a reader whose answer failed before any text because the
 * provider refused for now (429, 5xx) and said for how long; undefined otherwise. Not for an account out of
 * quota: waiting does not change that refusal.
 */
export function providerRetryAfterSeconds(thrown: unknown): number | undefined {
  if (!APICallError.isInstance(thrown) || thrown.statusCode === undefined) return undefined;
  const status = thrown.statusCode;
  if (status !== 429 && status < 500) return undefined;
  if (status === 429 && isOutOfQuota(thrown.responseBody)) return undefined;
  const headers = thrown.responseHeaders ?? {};
  const lowercased = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const ms = askedRetryAfterMs((name) => lowercased.get(name));
  if (ms === undefined) return undefined;
  return Math.min(MAX_PASSED_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil(ms / 1000)));
}

/** Most of a provider error body worth logging; longer bodies are cut so a log line stays a line. */
const MAX_LOGGED_BODY = 2_000;

/**
 * A provider error as it goes to the server log: enough to diagnose (status, provider message, URL), but
 * not the request body (the whole prompt with the retrieved docs) and never request headers (API keys).
 */
export function describeProviderError(error: unknown): Record<string, unknown> {
  if (APICallError.isInstance(error)) {
    return {
      name: error.name,
      message: error.message,
      statusCode: error.statusCode,
      url: loggableUrl(error.url),
      isRetryable: error.isRetryable,
      responseBody: error.responseBody?.slice(0, MAX_LOGGED_BODY),
      // A stream that failed while the package read it: what failed (a stall, a cut connection).
      ...(error.cause instanceof Error ? { cause: `${error.cause.name}: ${error.cause.message}` } : {}),
    };
  }
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `${error.cause.name}: ${error.cause.message}` : undefined;
    return { name: error.name, message: error.message, ...(cause ? { cause } : {}), stack: error.stack };
  }
  // A provider's error event in its stream (`{"error": {"message": …, "type": …}}`, Anthropic's
  // `overloaded_error`, a Bedrock exception frame) reaches here as the plain object it sent.
  if (typeof error === 'object' && error !== null) {
    let text: string;
    try {
      text = JSON.stringify(error) ?? String(error);
    } catch {
      text = String(error);
    }
    return { name: 'ProviderErrorEvent', message: text.slice(0, MAX_LOGGED_BODY) };
  }
  return { message: String(error) };
}

/**
 * A provider URL without what may be a secret in it: a user and password (`https://user:pass@vllm…`, a
 * server behind basic auth) or a query string (`?key=…`).
 */
function loggableUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username !== '' || parsed.password !== '') {
      parsed.username = 'redacted';
      parsed.password = '';
    }
    if (parsed.search !== '') parsed.search = '?redacted';
    return parsed.href;
  } catch {
    return '(not a URL)';
  }
}
