import { APICallError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import {
  describeProviderError,
  ProviderStallError,
  providerRetryAfterSeconds,
  safeProviderErrorMessage,
} from './provider-errors.ts';

/** How the packages report a body that failed while they read it. */
const wrapped = (cause: unknown) =>
  new APICallError({
    message: 'Failed to process successful response',
    url: 'https://api.example.com/v1/chat/completions',
    requestBodyValues: { messages: [{ role: 'system', content: 'SECRET PROMPT' }] },
    statusCode: 200,
    responseBody: 'x'.repeat(5_000),
    cause,
  });

describe('provider errors', () => {
  it('tells the reader what failed, under the package wrapper too, and never the provider message', () => {
    expect(safeProviderErrorMessage(wrapped(new ProviderStallError(300)), 'req_1')).toBe(
      'The model provider stopped responding while answering. (request req_1)',
    );
    const limited = new APICallError({
      message: 'Rate limit for org-123 exceeded',
      url: 'https://api.example.com',
      requestBodyValues: {},
      statusCode: 429,
    });
    expect(safeProviderErrorMessage(limited, 'req_2')).toBe(
      'The model provider is rate limiting requests; please try again shortly. (request req_2)',
    );
    // OpenAI's answer for an account out of quota: waiting does not help.
    const broke = new APICallError({
      ...limited,
      message: 'You exceeded your current quota',
      requestBodyValues: {},
      responseBody: JSON.stringify({ error: { type: 'insufficient_quota', code: 'insufficient_quota' } }),
    });
    expect(safeProviderErrorMessage(broke, 'req_3')).toBe(
      'The model provider refused the request: the account it answers with has no quota left. (request req_3)',
    );
  });

  it("gives the reader the provider's Retry-After, in whole seconds, only when waiting can help", () => {
    const refused = (statusCode: number, responseHeaders: Record<string, string>, responseBody?: string) =>
      new APICallError({
        message: 'refused',
        url: 'https://api.example.com',
        requestBodyValues: {},
        statusCode,
        responseHeaders,
        ...(responseBody !== undefined ? { responseBody } : {}),
      });
    expect(providerRetryAfterSeconds(refused(429, { 'retry-after': '20' }))).toBe(20);
    expect(providerRetryAfterSeconds(refused(503, { 'Retry-After': '2.5' }))).toBe(3);
    expect(providerRetryAfterSeconds(refused(429, { 'retry-after-ms': '12001', 'retry-after': '99' }))).toBe(
      13,
    );
    const inAMinute = new Date(Date.now() + 60_000).toUTCString();
    expect(providerRetryAfterSeconds(refused(529, { 'retry-after': inAMinute }))).toBeGreaterThanOrEqual(59);
    // A date already past, or a week away: at least a second, at most an hour.
    expect(providerRetryAfterSeconds(refused(503, { 'retry-after': 'Mon, 01 Jan 2024 00:00:00 GMT' }))).toBe(
      1,
    );
    expect(providerRetryAfterSeconds(refused(503, { 'retry-after': String(7 * 86_400) }))).toBe(3_600);
    // Nothing asked, nothing readable, a refusal waiting does not change, or no provider refusal at all.
    expect(providerRetryAfterSeconds(refused(503, {}))).toBeUndefined();
    expect(providerRetryAfterSeconds(refused(503, { 'retry-after': 'soon' }))).toBeUndefined();
    expect(providerRetryAfterSeconds(refused(400, { 'retry-after': '20' }))).toBeUndefined();
    expect(
      providerRetryAfterSeconds(
        refused(429, { 'retry-after': '20' }, '{"error":{"code":"insufficient_quota"}}'),
      ),
    ).toBeUndefined();
    expect(providerRetryAfterSeconds(new ProviderStallError(300))).toBeUndefined();
  });

  it('logs the status, URL, a cut body and the cause, but not the prompt', () => {
    const logged = describeProviderError(wrapped(new ProviderStallError(300)));
    expect(logged).toMatchObject({
      statusCode: 200,
      url: 'https://api.example.com/v1/chat/completions',
      cause: 'ProviderStallError: The model provider sent nothing for 300 ms',
    });
    expect(String(logged.responseBody)).toHaveLength(2_000);
    expect(JSON.stringify(logged)).not.toContain('SECRET PROMPT');
  });

  it('logs no password or query string of the provider URL, and a provider error event as what it said', () => {
    const behindBasicAuth = new APICallError({
      message: 'Internal Server Error',
      url: 'http://qauser:SECRETPASS@vllm.internal:8000/v1/chat/completions?key=SECRETKEY',
      requestBodyValues: {},
      statusCode: 500,
    });
    const logged = JSON.stringify(describeProviderError(behindBasicAuth));
    expect(logged).not.toContain('SECRETPASS');
    expect(logged).not.toContain('SECRETKEY');
    expect(logged).toContain('vllm.internal:8000/v1/chat/completions');
    expect(describeProviderError({ message: 'CUDA out of memory', type: 'server_error' })).toEqual({
      name: 'ProviderErrorEvent',
      message: '{"message":"CUDA out of memory","type":"server_error"}',
    });
  });
});
