import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppEnv } from './app-env.ts';
import { handleError } from './error-handler.ts';
import { type ClientGone, clientGone } from './node-request.ts';
import { limitBody, MAX_DISCARDED_UPLOAD_BYTES, readJsonBody } from './request-body.ts';
import { serverRequestId } from './request-id.ts';

const LIMIT = 1_000;

function testApp(onGone: (gone: ClientGone, early: AbortSignal | undefined) => void = () => {}) {
  const app = new Hono<AppEnv>();
  app.use(serverRequestId());
  app.use(async (c, next) => {
    c.set('logger', pino({ level: 'silent' }));
    await next();
  });
  app.onError(handleError);
  app.post('/echo', async (c) => c.json({ got: await readJsonBody(c, LIMIT) }));
  // As the assistant routes do: the key and limits are checked before the body is read.
  app.post('/late', async (c) => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    return c.json({ got: await readJsonBody(c, LIMIT) });
  });
  // As the admin API and the console do: Hono reads the body, through limitBody.
  app.post('/form', limitBody(LIMIT), async (c) => c.json({ got: await c.req.json() }));
  app.post('/slow', async (c) => {
    const gone = clientGone(c);
    // `?eager` makes the signal at once; otherwise it is made (if ever) after the fact.
    onGone(gone, c.req.query('eager') === undefined ? undefined : gone.signal);
    await new Promise((resolve) => setTimeout(resolve, 100));
    return c.text('done');
  });
  return app;
}

/** Sends `parts` as a chunked body (no Content-Length) and reads the whole response. */
function sendChunked(origin: string, path: string, parts: string[]) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      const request = http.request(`${origin}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
      });
      request.on('response', (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
      });
      // The server may answer 413 and close before every part is written.
      request.on('error', (error) => (error.message.includes('EPIPE') ? undefined : reject(error)));
      for (const part of parts) request.write(part);
      request.end();
    },
  );
}

/**
 * Sends `parts` (chunked unless a Content-Length is given) as fast as the client can, and reports the
 * response and any error the client saw, until the request is done with: a write failing after the
 * response came (EPIPE, ECONNRESET) counts too.
 */
function send(
  origin: string,
  path: string,
  parts: string[],
  options: { agent?: http.Agent; headers?: Record<string, string>; gapMs?: number } = {},
) {
  return new Promise<{
    status: number;
    headers: http.IncomingHttpHeaders;
    body: string;
    error: string | undefined;
    socket: unknown;
  }>((resolve, reject) => {
    let error: string | undefined;
    let socket: unknown;
    const request = http.request(`${origin}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...options.headers },
      ...(options.agent ? { agent: options.agent } : {}),
    });
    request.on('error', (e) => {
      error = e.message;
    });
    request.on('socket', (s) => {
      socket = s;
    });
    const closed = new Promise((done) => request.once('close', done));
    request.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (text: string) => {
        body += text;
      });
      response.on('end', () => {
        void closed.then(() =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body, error, socket }),
        );
      });
      response.on('error', reject);
    });
    const end = (): void => {
      if (!options.headers?.['Content-Length']) request.end();
    };
    if (options.gapMs === undefined) {
      for (const part of parts) request.write(part);
      end();
      return;
    }
    // A slow client: a part every `gapMs`, until the parts run out or the connection is gone.
    const rest = [...parts];
    const next = (): void => {
      if (request.destroyed || request.socket?.destroyed) return;
      const part = rest.shift();
      if (part === undefined) end();
      else {
        request.write(part);
        setTimeout(next, options.gapMs);
      }
    };
    next();
  });
}

describe('request body on @hono/node-server', () => {
  const seen: { gone: ClientGone; early: AbortSignal | undefined }[] = [];
  let server: ReturnType<typeof serve>;
  let origin: string;
  beforeAll(async () => {
    const app = testApp((gone, early) => seen.push({ gone, early }));
    await new Promise<void>((resolve) => {
      server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
    });
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reads a chunked body, and a byte order mark is not part of the JSON', async () => {
    const ok = await sendChunked(origin, '/echo', ['{"a":', '[1,2', ',"é"]}']);
    expect(ok).toMatchObject({ status: 200, body: '{"got":{"a":[1,2,"é"]}}' });
    const bom = await sendChunked(origin, '/echo', ['\uFEFF{"b":true}']);
    expect(bom).toMatchObject({ status: 200, body: '{"got":{"b":true}}' });
  });

  it('refuses a chunked body that grows past the limit with 413, and reads the rest so the client gets it', async () => {
    const parts = Array.from({ length: 20 }, () => `"${'x'.repeat(98)}",`);
    const response = await sendChunked(origin, '/echo', ['[', ...parts, '0]']);
    expect(response.status).toBe(413);
    expect(response.headers.connection).not.toBe('close');
    expect(JSON.parse(response.body).error).toMatchObject({ code: 'payload_too_large' });

    // A client still streaming megabytes when the 413 is sent: its connection is not reset under it
    // (it was: EPIPE as it wrote on), and its next request is served.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const chunk = 'x'.repeat(64 * 1024);
    const big = await send(
      origin,
      '/late',
      Array.from({ length: 200 }, () => chunk),
      { agent },
    );
    expect(big).toMatchObject({ status: 413, error: undefined });
    const after = await send(origin, '/echo', ['{"ok":1}'], { agent });
    expect(after).toMatchObject({ status: 200, body: '{"got":{"ok":1}}' });
    agent.destroy();
  });

  it('reads the rest of a slow upload, and of one Hono was reading (limitBody), before the 413', async () => {
    // @hono/node-server cuts a connection whose request is still arriving 500 ms after the response has
    // ended; limitBody's web stream paused the request again after each chunk the discard resumed.
    const chunk = 'x'.repeat(64 * 1024);
    for (const [path, parts, gapMs] of [
      ['/late', 20, 50],
      ['/form', 20, 50],
      ['/form', 200, undefined],
    ] as const) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const big = await send(
        origin,
        path,
        Array.from({ length: parts }, () => chunk),
        { agent, ...(gapMs !== undefined ? { gapMs } : {}) },
      );
      expect({ path, ...big }).toMatchObject({ path, status: 413, error: undefined });
      expect(big.headers.connection).not.toBe('close');
      const after = await send(origin, '/form', ['{"ok":1}'], { agent });
      expect(after).toMatchObject({ status: 200, body: '{"got":{"ok":1}}' });
      // Served on the same connection: it was not cut under the upload.
      expect({ path, reused: after.socket === big.socket }).toEqual({ path, reused: true });
      agent.destroy();
    }
  });

  it('answers a body declared too large at once, before the client sends it', async () => {
    // A client that waits for an answer before it sends its body (or never sends it) is not held for
    // MAX_DISCARD_MS: the 413 came only after it, 10 s on.
    const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const request = http.request(`${origin}/late`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Length': '200000' },
      });
      request.on('response', (answer) => {
        resolve(answer);
        request.destroy();
      });
      request.on('error', () => {});
      request.write('{');
      setTimeout(() => reject(new Error('no answer before the body was sent')), 5_000).unref();
    });
    expect(response.statusCode).toBe(413);
    expect(response.headers.connection).toBe('close');
  });

  it('closes the connection instead when the declared rest is past what it reads', async () => {
    const response = await send(origin, '/echo', ['{}'], {
      headers: { 'Content-Length': String(MAX_DISCARDED_UPLOAD_BYTES + 1) },
    });
    expect(response.status).toBe(413);
    expect(response.headers.connection).toBe('close');
  });

  it('refuses malformed JSON with the standard 400', async () => {
    const response = await sendChunked(origin, '/echo', ['{"a":']);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).error).toMatchObject({ code: 'invalid_request' });
  });

  it('signals when the client goes away, and not when the response completes', async () => {
    seen.length = 0;
    const done = await fetch(`${origin}/slow?eager`, { method: 'POST' });
    expect(await done.text()).toBe('done');
    expect(seen[0]?.gone.aborted).toBe(false);
    expect(seen[0]?.early?.aborted).toBe(false);

    for (const path of ['/slow?eager', '/slow']) {
      const controller = new AbortController();
      const request = fetch(`${origin}${path}`, { method: 'POST', signal: controller.signal }).catch(
        () => null,
      );
      const index = seen.length;
      // Waits, not timings: generous, as a loaded machine can take seconds to deliver the close.
      await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(index + 1);
      controller.abort();
      await request;
      const entry = seen[index];
      await expect.poll(() => entry?.gone.aborted, { timeout: 10_000 }).toBe(true);
      // A signal made before the client left is aborted with it; one made afterwards starts aborted.
      if (path.includes('eager')) expect(entry?.early?.aborted).toBe(true);
      else expect(entry?.gone.signal.aborted).toBe(true);
    }
  });
});

describe('request body without Node bindings (app.request)', () => {
  const app = testApp();
  const streamOf = (parts: string[]) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
        controller.close();
      },
    });

  it('reads the web stream and enforces the limit on what is actually sent', async () => {
    const ok = await app.request('/echo', {
      method: 'POST',
      body: streamOf(['{"a"', ':1}']),
      duplex: 'half',
    } as RequestInit);
    expect(await ok.json()).toEqual({ got: { a: 1 } });
    const big = await app.request('/echo', {
      method: 'POST',
      body: streamOf(Array.from({ length: 11 }, () => 'x'.repeat(100))),
      duplex: 'half',
    } as RequestInit);
    expect(big.status).toBe(413);
  });

  it('refuses a declared Content-Length over the limit before reading', async () => {
    const response = await app.request('/echo', {
      method: 'POST',
      headers: { 'Content-Length': String(LIMIT + 1) },
      body: '{}',
    });
    expect(response.status).toBe(413);
  });
});
