import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderConnectTimeoutError, ProviderStallError } from './provider-errors.ts';
import { hasMoreThanComments, providerTransport } from './provider-transport.ts';
import { type LoopbackServer, sleep, startLoopbackLlm } from './testing/loopback-llm.ts';

const options = { connectTimeoutMs: 300, stallTimeoutMs: 200 };

async function readAll(body: ReadableStream<Uint8Array> | null): Promise<number> {
  let bytes = 0;
  for await (const chunk of body ?? []) bytes += chunk.byteLength;
  return bytes;
}

describe('providerTransport', () => {
  let server: LoopbackServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('sends the method, headers and body, and returns status, headers and body like fetch', async () => {
    server = await startLoopbackLlm((_req, res) => {
      res.setHeader('Set-Cookie', ['a=1', 'b=2']);
      res.writeHead(201, { 'Content-Type': 'application/json', 'X-Request-Id': 'r1' });
      res.end('{"ok":true}');
    });
    const response = await providerTransport(options)(`${server.origin}/v1/chat`, {
      method: 'POST',
      // The AI SDK leaves unset headers as `undefined` in a plain record.
      headers: {
        'Content-Type': 'application/json',
        Authorization: 'Bearer k',
        'X-Unset': undefined,
      } as unknown as Record<string, string>,
      body: JSON.stringify({ question: 'hi' }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-request-id')).toBe('r1');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.json()).toEqual({ ok: true });
    const seen = server.requests[0];
    expect(seen).toMatchObject({ method: 'POST', path: '/v1/chat', body: { question: 'hi' } });
    expect(seen?.headers.authorization).toBe('Bearer k');
    expect(seen?.headers['x-unset']).toBeUndefined();
  });

  it('keeps the connection for the next request once a body has been read', async () => {
    const ports: number[] = [];
    server = await startLoopbackLlm((_req, res) => {
      ports.push(res.socket?.remotePort ?? -1);
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.end('data: {}\n\n');
    });
    const transport = providerTransport(options);
    for (let i = 0; i < 3; i++) {
      const response = await transport(server.origin, { method: 'POST', body: '{}' });
      expect(await readAll(response.body)).toBe(10);
    }
    expect(ports).toHaveLength(3);
    expect(new Set(ports).size).toBe(1);
  });

  it('sends a request again at once when its kept-alive connection turns out to be closed', async () => {
    const ports: number[] = [];
    let reset = false;
    server = await startLoopbackLlm((_req, res) => {
      const port = res.socket?.remotePort ?? -1;
      // The second request on the first connection: the connection closes without an answer.
      if (!reset && ports.includes(port)) {
        reset = true;
        res.socket?.destroy();
        return;
      }
      ports.push(port);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
    const transport = providerTransport(options);
    for (let i = 0; i < 2; i++) {
      const response = await transport(server.origin, { method: 'POST', body: '{}' });
      expect(await response.json()).toEqual({});
    }
    expect(reset).toBe(true);
    expect(ports).toHaveLength(2);
    expect(new Set(ports).size).toBe(2);
  });

  it('never takes bytes a server sent on an idle kept-alive connection for the next answer', async () => {
    let requests = 0;
    const sockets = new Set<net.Socket>();
    const raw = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('data', () => {
        requests++;
        const body = requests === 1 ? 'first' : 'second';
        socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
        // Unasked: a whole response, sent while the connection sits idle in the pool.
        if (requests === 1)
          setTimeout(() => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nSMUGGLED'), 20);
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    try {
      const origin = `http://127.0.0.1:${(raw.address() as AddressInfo).port}`;
      const transport = providerTransport(options);
      const first = await transport(origin, { method: 'POST', body: '{}' });
      expect(await first.text()).toBe('first');
      await sleep(100);
      const second = await transport(origin, { method: 'POST', body: '{}' });
      expect(await second.text()).toBe('second');
      expect(requests).toBe(2);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => raw.close(resolve));
    }
  });

  it('fails a body cut off mid-stream with a terminated TypeError', async () => {
    server = await startLoopbackLlm((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('data: {}\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const response = await providerTransport(options)(server.origin, { method: 'POST', body: '{}' });
    const failure = await readAll(response.body).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe('terminated');
  });

  it('errors a body that goes silent with ProviderStallError and closes the connection', async () => {
    server = await startLoopbackLlm((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('data: {}\n\n');
    });
    const response = await providerTransport(options)(server.origin, { method: 'POST', body: '{}' });
    await expect(readAll(response.body)).rejects.toBeInstanceOf(ProviderStallError);
    expect(await server.requests[0]?.closed).toEqual({ early: true });
  });

  it('counts an event stream that only sends keep-alive comments as stalled', async () => {
    let keepAlive: NodeJS.Timeout | undefined;
    server = await startLoopbackLlm((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('data: {}\n\n');
      keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 40);
      res.once('close', () => clearInterval(keepAlive));
    });
    const response = await providerTransport(options)(server.origin, { method: 'POST', body: '{}' });
    await expect(readAll(response.body)).rejects.toBeInstanceOf(ProviderStallError);
    expect(await server.requests[0]?.closed).toEqual({ early: true });
  });

  it('counts every byte of a body that is not an event stream', async () => {
    server = await startLoopbackLlm(async (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      // A JSON body that starts with a colon-led line is no comment.
      for (let i = 0; i < 8; i++) {
        res.write(':\n');
        await sleep(80);
      }
      res.end();
    });
    const response = await providerTransport(options)(server.origin, { method: 'POST', body: '{}' });
    expect(await readAll(response.body)).toBe(16);
  });

  it('does not count a slow reader (backpressure) as the provider stalling', async () => {
    const size = 32 * 1024 * 1024;
    server = await startLoopbackLlm((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      res.end(Buffer.alloc(size, 1));
    });
    // Longer timeouts than the other tests: allocating and reading 32 MB on a loaded 2-core machine can leave
    // gaps of a few hundred milliseconds between chunks, which are real stalls at 200 ms.
    const patient = { connectTimeoutMs: 10_000, stallTimeoutMs: 1_000 };
    const response = await providerTransport(patient)(server.origin, { method: 'POST', body: '{}' });
    const reader = response.body?.getReader();
    const first = await reader?.read();
    // Several stall timeouts, with megabytes still to come: the connection is paused by the reader, not
    // waiting on the provider.
    await sleep(patient.stallTimeoutMs * 3);
    let bytes = first?.value?.byteLength ?? 0;
    for (;;) {
      const next = await reader?.read();
      if (!next || next.done) break;
      bytes += next.value.byteLength;
    }
    expect(bytes).toBe(size);
  });

  it('fails with ProviderConnectTimeoutError when no headers come within the connect timeout', async () => {
    server = await startLoopbackLlm(async (_req, res) => {
      await sleep(5_000);
      res.end();
    });
    await expect(
      providerTransport(options)(server.origin, { method: 'POST', body: '{}' }),
    ).rejects.toBeInstanceOf(ProviderConnectTimeoutError);
  });

  it('rejects a refused connection the way fetch does', async () => {
    const closed = await startLoopbackLlm(() => {});
    const origin = closed.origin;
    await closed.close();
    const failure = await providerTransport(options)(origin, { method: 'POST', body: '{}' }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe('fetch failed');
    expect((failure as TypeError).cause).toBeInstanceOf(Error);
  });

  it("ends the body with the signal's reason and closes the connection when the caller aborts", async () => {
    server = await startLoopbackLlm((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      const timer = setInterval(() => res.write('data: {}\n\n'), 20);
      res.on('close', () => clearInterval(timer));
    });
    const controller = new AbortController();
    const response = await providerTransport(options)(server.origin, {
      method: 'POST',
      body: '{}',
      signal: controller.signal,
    });
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();
    await expect(reader?.read()).rejects.toMatchObject({ name: 'AbortError' });
    expect(await server.requests[0]?.closed).toEqual({ early: true });
  });

  it('closes the connection when the reader cancels the body', async () => {
    server = await startLoopbackLlm((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      const timer = setInterval(() => res.write('data: {}\n\n'), 20);
      res.on('close', () => clearInterval(timer));
    });
    const response = await providerTransport(options)(server.origin, { method: 'POST', body: '{}' });
    await response.body?.cancel();
    expect(await server.requests[0]?.closed).toEqual({ early: true });
  });

  it('speaks TLS to https URLs and refuses a certificate it cannot verify', async () => {
    let requests = 0;
    const tls = https.createServer({ key: SELF_SIGNED_KEY, cert: SELF_SIGNED_CERT }, (_req, res) => {
      requests++;
      res.end('{}');
    });
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = tls.address() as AddressInfo;
      const failure = await providerTransport(options)(`https://127.0.0.1:${port}/v1/chat`, {
        method: 'POST',
        body: '{}',
      }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(TypeError);
      expect((failure as TypeError).message).toBe('fetch failed');
      expect(((failure as TypeError).cause as { code?: string }).code).toMatch(/SELF_SIGNED|ALTNAME/);
      expect(requests).toBe(0);
    } finally {
      tls.closeAllConnections();
      await new Promise((resolve) => tls.close(resolve));
    }
  });
});

/** A self-signed certificate for localhost (EC P-256, made with openssl for this test only). */
const SELF_SIGNED_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgjjdQApsewwRI+sv+
ynub7m6b6mIvwle21+bzefT+6qihRANCAARk7HndmA8sNfiPesh6ssu4VIrxB3bC
4/YsWhIxtS7kGhAVgnvWG5PE8s4zPb4F+sVgxJSz6VFZf/FLVHcr6lrZ
-----END PRIVATE KEY-----`;
const SELF_SIGNED_CERT = `-----BEGIN CERTIFICATE-----
MIIBfjCCASWgAwIBAgIUEnRQ91Ra68d0iO8ytgtVSy7IDvowCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyMzE5NTIxNloYDzIxMjYxMDMw
MTk1MjE2WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAARk7HndmA8sNfiPesh6ssu4VIrxB3bC4/YsWhIxtS7kGhAVgnvWG5PE
8s4zPb4F+sVgxJSz6VFZf/FLVHcr6lrZo1MwUTAdBgNVHQ4EFgQUV6xZE6eKqKvR
pXpUfw9ogZXVjHAwHwYDVR0jBBgwFoAUV6xZE6eKqKvRpXpUfw9ogZXVjHAwDwYD
VR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNHADBEAiA7rLaEF4Zawu3N9ktjqEkW
ab69dA2OOLbhDXZxTLbyzwIgEDQDNGvYXkmp5HtiCGyUNHs2iVGdfr36AdKVMXEo
tvU=
-----END CERTIFICATE-----`;

describe('hasMoreThanComments', () => {
  const text = (value: string) => new TextEncoder().encode(value);
  const fresh = () => ({ atStart: true, comment: false });

  it.each([
    [': keep-alive\n\n', false],
    [':\n:\n\n', false],
    ['\n\r\n', false],
    ['data: {}\n\n', true],
    [': ping\n\ndata: {}\n\n', true],
    ['event: message\n', true],
    [': ping\rdata: {}\r\r', true],
    [': ping\r\n\r\ndata', true],
  ])('%j has more than comments: %s', (chunk, expected) => {
    expect(hasMoreThanComments(text(chunk), fresh())).toBe(expected);
  });

  it('carries a line cut between chunks', () => {
    const lines = fresh();
    expect(hasMoreThanComments(text(': keep-'), lines)).toBe(false);
    expect(hasMoreThanComments(text('alive, still a comment'), lines)).toBe(false);
    expect(hasMoreThanComments(text('\n\nda'), lines)).toBe(true);
    expect(hasMoreThanComments(text('ta: {}\n'), lines)).toBe(true);
    expect(hasMoreThanComments(text('\n'), lines)).toBe(false);
    expect(hasMoreThanComments(text(':'), lines)).toBe(false);
    expect(hasMoreThanComments(text(' ping\n'), lines)).toBe(false);
    // A chunk that ends inside a comment after a data line: the comment goes on in the next one.
    expect(hasMoreThanComments(text('data: {}\n\n: keep'), lines)).toBe(true);
    expect(hasMoreThanComments(text('-alive\r\n'), lines)).toBe(false);
    expect(hasMoreThanComments(text('data: {"a":1}\r'), lines)).toBe(true);
    expect(hasMoreThanComments(text('\n: x\n'), lines)).toBe(false);
    // Many lines in one chunk (a body that resumed after a pause): still one answer, progress.
    expect(hasMoreThanComments(text('data: {}\n\n'.repeat(10_000)), lines)).toBe(true);
    expect(lines).toEqual({ atStart: true, comment: false });
  });
});
