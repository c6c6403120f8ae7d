import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinAnswerer } from '../assistant/builtin-answerer.ts';
import { askBody } from '../limits/limits-fixtures.ts';
import { bootstrapSite } from '../tenancy/bootstrap-site.ts';
import { repoRoot } from '../testing/paths.ts';
import { startTestServer, type TestServer } from '../testing/server.ts';

/**
 * Sends raw bytes and reads the whole answer (the server closes the connection after it). `keepOpen`:
 * the client's side stays open after them, as a client still sending would.
 */
const raw = (port: number, request: string, { keepOpen = false } = {}): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () =>
      keepOpen ? socket.write(request) : socket.end(request),
    );
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });

const parse = (answer: string) => {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const [statusLine = '', ...headers] = head.split('\r\n');
  const header = (name: string) =>
    headers.find((h) => h.toLowerCase().startsWith(`${name.toLowerCase()}:`))?.split(': ')[1];
  return {
    status: Number(statusLine.split(' ')[1]),
    header,
    json: JSON.parse(body) as { error: Record<string, string> },
  };
};

describe('requests Node refuses before the app', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('answer with the standard JSON error body and a request id, and the server keeps serving', async () => {
    const long = parse(await raw(server.port, `GET /${'a'.repeat(70_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expect(long.status).toBe(431);
    expect(long.json.error).toMatchObject({
      code: 'headers_too_large',
      requestId: long.header('X-Request-Id'),
    });
    const framed = parse(
      await raw(
        server.port,
        'POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      ),
    );
    expect(framed.status).toBe(400);
    expect(framed.json.error.code).toBe('invalid_request');
    expect(framed.header('Content-Type')).toBe('application/json');
    const expecting = parse(
      await raw(
        server.port,
        'POST /healthz HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}',
      ),
    );
    expect(expecting.status).toBe(417);
    expect(expecting.json.error).toMatchObject({
      code: 'expectation_failed',
      requestId: expecting.header('X-Request-Id'),
    });
    const garbage = parse(await raw(server.port, 'NOT HTTP AT ALL\r\n\r\n'));
    expect(garbage.status).toBe(400);
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
  });

  it('answer an HTTP/1.1 request without a Host header with it too (Node answered a bare 400)', async () => {
    const missing = parse(await raw(server.port, 'GET /healthz HTTP/1.1\r\n\r\n'));
    expect(missing.status).toBe(400);
    expect(missing.header('Content-Type')).toBe('application/json');
    expect(missing.json.error).toMatchObject({
      code: 'invalid_request',
      requestId: missing.header('X-Request-Id'),
    });
    // HTTP/1.0 needs none, and a Host given is served as before.
    const old = await raw(server.port, 'GET /healthz HTTP/1.0\r\n\r\n');
    expect(old.split('\r\n')[0]).toContain(' 200 ');
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
  });

  it('answer a request the HTTP adapter cannot read (a Host that is no host, a backslash) with it too', async () => {
    for (const request of [
      'GET /healthz HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n',
      'GET /v1/admin/sites HTTP/1.1\r\nHost: evil.example"><x\r\nConnection: close\r\n\r\n',
      'GET /sites/demo/pages/a\\b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    ]) {
      const answer = parse(await raw(server.port, request));
      expect(answer.status, request).toBe(400);
      expect(answer.header('Content-Type'), request).toBe('application/json');
      expect(answer.json.error, request).toMatchObject({
        code: 'invalid_request',
        message: expect.stringMatching(/^The request could not be read: /),
        requestId: answer.header('X-Request-Id'),
      });
    }
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
  });

  it('take a Host header in capitals as the same host (host names are case-insensitive)', async () => {
    const answer = await raw(
      server.port,
      'GET /healthz HTTP/1.1\r\nHost: LOCALHOST:3000\r\nConnection: close\r\n\r\n',
    );
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
  });
});

describe('a request that does not finish arriving', () => {
  const timeoutMs = 1_000;
  let server: TestServer;
  let key = '';
  beforeAll(async () => {
    // 400 ms between an answer's pieces: its stream outlasts the time the request had to arrive.
    server = await startTestServer('sqlite', {
      requestTimeoutMs: timeoutMs,
      modelProvider: ({ sources, context }) => new BuiltinAnswerer({ sources, context, deltaDelayMs: 400 }),
    });
    key = (await bootstrapSite(server.storage, { domain: 'docs', docsDir: path.join(repoRoot, 'docs') }))
      .assistantKey;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('is answered 408 with the JSON error once DOCENT_REQUEST_TIMEOUT_MS is over, not held for minutes', async () => {
    // Headers and 12 of the 100 bytes it announced, then nothing (the connection stays open).
    const answer = await raw(
      server.port,
      'POST /v1/assistant/docs/message HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${key}\r\nContent-Length: 100\r\n\r\n{"messages":`,
      { keepOpen: true },
    );
    const refused = parse(answer);
    expect(refused.status).toBe(408);
    expect(refused.json.error).toMatchObject({
      code: 'request_timeout',
      requestId: refused.header('X-Request-Id'),
    });
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
  });

  it('does not cut an answer whose stream lasts longer than that', async () => {
    const started = Date.now();
    const response = await fetch(`${server.baseUrl}/v1/assistant/docs/message`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
      body: JSON.stringify(askBody('How do I run Docent on PostgreSQL with backups?')),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    // The premise: the stream ran past the request timeout (and past a check of it).
    expect(Date.now() - started).toBeGreaterThan(timeoutMs + 500);
    expect(text).toMatch(/(^|\n)d:\{"finishReason":"stop"/);
  });
});
