import { afterEach, describe, expect, it } from 'vitest';
import { resilientFetch } from './resilient-fetch.ts';
import { type LoopbackServer, sendError, startLoopbackLlm } from './testing/loopback-llm.ts';

const options = { connectTimeoutMs: 1_000, stallTimeoutMs: 1_000, maxRetries: 2, retryDelayMs: 1 };

describe('resilientFetch', () => {
  let server: LoopbackServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('returns a 429 without retrying when Retry-After asks for longer than it will wait', async () => {
    server = await startLoopbackLlm((_req, res) =>
      sendError(res, 429, 'slow down', { 'Retry-After': '120' }),
    );
    const response = await resilientFetch(options)(`${server.origin}/v1/chat`, {
      method: 'POST',
      body: '{}',
    });
    expect(response.status).toBe(429);
    expect(server.requests).toHaveLength(1);
  });

  it("does not retry OpenAI's 429 for an account out of quota", async () => {
    const body = { error: { message: 'You exceeded your current quota', type: 'insufficient_quota' } };
    server = await startLoopbackLlm((_req, res) => {
      res.writeHead(429, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    });
    const response = await resilientFetch(options)(`${server.origin}/v1/chat`, {
      method: 'POST',
      body: '{}',
    });
    expect(response.status).toBe(429);
    // The body is still whole for the package to read.
    expect(await response.json()).toEqual(body);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry client errors', async () => {
    server = await startLoopbackLlm((_req, res) => sendError(res, 401, 'bad key'));
    const response = await resilientFetch(options)(`${server.origin}/v1/chat`, {
      method: 'POST',
      body: '{}',
    });
    expect(response.status).toBe(401);
    expect(server.requests).toHaveLength(1);
  });

  it('retries connection failures, then gives up with the fetch error', async () => {
    let calls = 0;
    const failing: typeof fetch = async () => {
      calls++;
      throw new TypeError('fetch failed');
    };
    await expect(resilientFetch({ ...options, fetch: failing })('http://127.0.0.1:9/')).rejects.toThrow(
      'fetch failed',
    );
    expect(calls).toBe(3);
  });

  it('stops waiting to retry when the caller aborts', async () => {
    server = await startLoopbackLlm((_req, res) => sendError(res, 503, 'down'));
    const controller = new AbortController();
    const pending = resilientFetch({ ...options, retryDelayMs: 60_000, maxRetryDelayMs: 60_000 })(
      server.origin,
      {
        signal: controller.signal,
      },
    );
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.requests).toHaveLength(1);
  });
});
